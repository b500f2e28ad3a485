import type { LedgerEntryInput } from './chain';
import type { OutcomeLabel } from '../../scan/model/outcome';

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

/** What a verdict on a rule is worth: following a learned rule earns a little, breaking it costs more. */
export const RULE_VERDICT_POINTS: Record<'validated' | 'violated', number> = { validated: 10, violated: -20 };

/** The source record of a rule verdict: `<rule id>#<n>`, the n-th validation (or violation) of the rule. */
export function ruleVerdictRef(ruleId: string, occurrence: number): string {
  return `${ruleId}#${occurrence}`;
}

/** The rule id a verdict's source record names (the text before the last `#`; the whole text when there is none). */
export function ruleIdOfVerdictRef(ref: string): string {
  const hash = ref.lastIndexOf('#');
  return hash < 0 ? ref : ref.slice(0, hash);
}

/**
 * The ledger entry of a verdict on a rule (seed 003 validation or violation): `rule_validated`
 * +10 as a reward, `rule_violated` −20 as a penalty, source `rule`, source_ref
 * `ruleVerdictRef(ruleId, occurrence)` where `occurrence` is the rule's validation count (or
 * violation count) after this verdict — so each verdict is its own source record, paid once
 * however often it is credited; `context` says what gave the verdict (a person, a guard entry id).
 */
export function ruleLedgerEntry(input: { ruleId: string; verdict: 'validated' | 'violated'; occurrence: number; context: string }): LedgerEntryInput {
  const points = RULE_VERDICT_POINTS[input.verdict];
  return {
    type: points > 0 ? 'reward' : 'penalty',
    category: input.verdict === 'validated' ? 'rule_validated' : 'rule_violated',
    points,
    action: `rule ${input.ruleId} ${input.verdict} (${input.context.slice(0, 200)})`,
    source: 'rule',
    source_ref: ruleVerdictRef(input.ruleId, input.occurrence),
  };
}
