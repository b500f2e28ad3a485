import type { LedgerEntryInput } from './ledger-chain';
import type { OutcomeLabel } from './outcome';

/** The ledger category of each label's reward or penalty; `ignored` earns 0 and is not recorded. */
export const LEDGER_CATEGORY_BY_LABEL: Record<OutcomeLabel, string | null> = {
  fixed: 'finding_fixed',
  accepted: 'finding_accepted',
  ignored: null,
  rejected_fp: 'false_positive',
  reopened: 'finding_reopened',
};

/** Ledger points are integers: a weighted reward in [-1, 1] counts as hundredths. */
export const POINTS_PER_REWARD = 100;

/**
 * The ledger entry of a stored scan outcome: `points = round(weighted reward × 100)` (fixed +100,
 * rejected_fp −70 without a confidence), a reward when positive, a penalty when negative; null
 * when it rounds to 0 (nothing to record).
 */
export function outcomeLedgerEntry(outcome: { id: string; label: OutcomeLabel; reward: number; findingKey: string }): LedgerEntryInput | null {
  const category = LEDGER_CATEGORY_BY_LABEL[outcome.label];
  const points = Math.round(outcome.reward * POINTS_PER_REWARD);
  if (!category || points === 0) return null;
  return {
    type: points > 0 ? 'reward' : 'penalty',
    category,
    points,
    action: `finding ${outcome.findingKey.slice(0, 200)} labelled ${outcome.label}`,
    source: 'scan_outcome',
    source_ref: outcome.id,
  };
}

/** The ledger entry of an accepted trajectory: its reward in sats as points; null when not accepted or worth nothing. */
export function trajectoryLedgerEntry(trajectory: { id: string; accepted: boolean; totalSats: number; quality: number }): LedgerEntryInput | null {
  if (!trajectory.accepted || trajectory.totalSats <= 0) return null;
  return {
    type: 'reward',
    category: 'trajectory_accepted',
    points: trajectory.totalSats,
    action: `trajectory accepted with quality ${trajectory.quality.toFixed(2)}`,
    source: 'trajectory',
    source_ref: trajectory.id,
  };
}
