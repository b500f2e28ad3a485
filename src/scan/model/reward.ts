import type { OutcomeLabel } from './outcome';

/** Seed 001 §3.1: the base reward of each label. */
export const REWARD_BY_LABEL: Record<OutcomeLabel, number> = {
  fixed: 1.0,
  accepted: 0.5,
  ignored: 0.0,
  rejected_fp: -0.7,
  reopened: -1.0,
};

/**
 * Seed 001 §3.2: `weighted = base * (0.5 + 0.5 * confidence)` when the finding states a
 * confidence in [0,1]; the base reward otherwise. A confident miss costs more, a confident hit
 * earns more; a zero-confidence finding counts half.
 */
export function weightedReward(label: OutcomeLabel, confidence?: number): number {
  const base = REWARD_BY_LABEL[label];
  if (confidence === undefined) return base;
  if (!(confidence >= 0 && confidence <= 1)) {
    throw new RangeError(`confidence must be in [0,1], got ${confidence}`);
  }
  return base * (0.5 + 0.5 * confidence);
}
