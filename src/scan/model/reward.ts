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
 * Seed 001 §3.2: `weighted = base * (0.5 + 0.5 * scannerConfidence)` when the scanner stated a
 * confidence in [0,1] for the finding (the row's `confidence`); the base reward otherwise. A confident miss costs more, a confident hit
 * earns more; a zero-confidence finding counts half.
 */
export function weightedReward(label: OutcomeLabel, scannerConfidence?: number): number {
  const base = REWARD_BY_LABEL[label];
  if (scannerConfidence === undefined) return base;
  if (!(scannerConfidence >= 0 && scannerConfidence <= 1)) {
    throw new RangeError(`confidence must be in [0,1], got ${scannerConfidence}`);
  }
  return base * (0.5 + 0.5 * scannerConfidence);
}
