import { type GroupKey, groupId } from './grouping';
import { OUTCOME_LABELS, type OutcomeLabel } from './outcome';
import { weightedReward } from './reward';

/** The levels a triage prior pools over, most specific first. */
export const TRIAGE_LEVELS = ['group', 'scanner_category', 'scanner', 'global'] as const;
export type TriageLevel = (typeof TRIAGE_LEVELS)[number];

const LABEL_COUNT = OUTCOME_LABELS.length;
const LABEL_INDEX = Object.fromEntries(OUTCOME_LABELS.map((l, i) => [l, i])) as Record<OutcomeLabel, number>;
const FP_INDEX = LABEL_INDEX.rejected_fp;
const GLOBAL_ID = JSON.stringify(['global']);

/**
 * The id of each level a finding belongs to. `group` is the lesson group id (project, scanner,
 * model, category); the parents drop the project and the model, so a new project or model starts
 * from what the scanner has shown elsewhere.
 */
export function triageLevelIds(key: GroupKey): Record<TriageLevel, string> {
  return {
    group: groupId(key),
    scanner_category: JSON.stringify(['scanner_category', key.scanner, key.category]),
    scanner: JSON.stringify(['scanner', key.scanner]),
    global: GLOBAL_ID,
  };
}

/** How much one level contributed to a prediction. */
export interface LevelEvidence {
  level: TriageLevel;
  id: string;
  /** Outcomes counted at this level. */
  n: number;
  false_positives: number;
  /** This level's own share of its estimate, `n / (n + strength)`; the rest comes from its parent. */
  weight: number;
}

/** A triage prior for one finding. Snake_case: it is printed as JSON. */
export interface TriageEstimate {
  /** Probability that an outcome of this finding is `rejected_fp`. */
  p_false_positive: number;
  /** `Σ P(label) · weightedReward(label, scannerConfidence)`. */
  expected_reward: number;
  label_probabilities: Record<OutcomeLabel, number>;
  /** Most specific level first. */
  evidence: LevelEvidence[];
  /** Outcomes in the finding's own group. */
  evidence_n: number;
}

/**
 * Label counts per level, and predictions by hierarchical shrinkage (a chain of Dirichlet
 * priors). With `m` = strength, counts `c` and `n` outcomes at a level and its parent's
 * probabilities `q`:
 *
 *   p(label) = (c(label) + m · q(label)) / (n + m)
 *
 * applied from the root down: global (whose parent is uniform over the five labels), then
 * scanner, scanner+category, and the group. With no evidence a level is exactly its parent; as
 * its evidence grows it moves monotonically toward its own rate. The numbers come from counting,
 * so they are never NaN and always in [0, 1].
 */
export class TriagePrior {
  private readonly counts = new Map<string, Float64Array>();

  constructor(readonly strength: number) {
    if (!(strength > 0) || !Number.isFinite(strength)) throw new RangeError(`strength must be a positive number, got ${strength}`);
  }

  /** Counts `times` outcomes with `label` in the group `key` (and in each of its parents). */
  add(key: GroupKey, label: OutcomeLabel, times = 1): void {
    const ids = triageLevelIds(key);
    for (const level of TRIAGE_LEVELS) {
      let row = this.counts.get(ids[level]);
      if (!row) {
        row = new Float64Array(LABEL_COUNT);
        this.counts.set(ids[level], row);
      }
      row[LABEL_INDEX[label]] = (row[LABEL_INDEX[label]] as number) + times;
    }
  }

  /** Outcomes counted in a level id (0 when unknown). */
  total(levelId: string): number {
    return sumOf(this.counts.get(levelId) ?? []);
  }

  /** The prior for a finding of group `key`; `scannerConfidence` (the scanner's, in the finding) weights the expected reward. */
  estimate(key: GroupKey, scannerConfidence?: number): TriageEstimate {
    const ids = triageLevelIds(key);
    const counts = Object.fromEntries(TRIAGE_LEVELS.map((level) => [level, this.counts.get(ids[level])])) as LevelCounts;
    return estimateFromCounts(key, counts, this.strength, scannerConfidence);
  }

  /** The root's false-positive rate alone: the running global rate a replay compares against. */
  globalFalsePositiveRate(): number {
    return globalFalsePositiveRateOf(this.counts.get(GLOBAL_ID), this.strength);
  }
}

/** The label counts of each level of one finding (in `OUTCOME_LABELS` order); a level with none may be absent. */
export type LevelCounts = Partial<Record<TriageLevel, ArrayLike<number>>>;

/** The index of a label in a level's counts. */
export function labelIndex(label: OutcomeLabel): number {
  return LABEL_INDEX[label];
}

/**
 * The prior for a finding of group `key` from the counts of its levels (see `TriagePrior`):
 * shrinkage from the root down, each level weighted by `n / (n + strength)`.
 */
export function estimateFromCounts(key: GroupKey, counts: LevelCounts, strength: number, scannerConfidence?: number): TriageEstimate {
  const ids = triageLevelIds(key);
  let probabilities: number[] = OUTCOME_LABELS.map(() => 1 / LABEL_COUNT);
  const evidence: LevelEvidence[] = [];
  for (const level of [...TRIAGE_LEVELS].reverse()) {
    const row = counts[level] ?? new Float64Array(LABEL_COUNT);
    const n = sumOf(row);
    const parent = probabilities;
    probabilities = parent.map((q, i) => ((row[i] ?? 0) + strength * q) / (n + strength));
    evidence.unshift({ level, id: ids[level], n, false_positives: row[FP_INDEX] ?? 0, weight: n / (n + strength) });
  }
  const labelProbabilities = Object.fromEntries(OUTCOME_LABELS.map((l, i) => [l, probabilities[i] as number])) as Record<OutcomeLabel, number>;
  let expectedReward = 0;
  for (const label of OUTCOME_LABELS) expectedReward += labelProbabilities[label] * weightedReward(label, scannerConfidence);
  return {
    p_false_positive: labelProbabilities.rejected_fp,
    expected_reward: expectedReward,
    label_probabilities: labelProbabilities,
    evidence,
    evidence_n: evidence[0]?.n ?? 0,
  };
}

/** The root level's false-positive rate alone, from its counts (absent: none). */
export function globalFalsePositiveRateOf(global: ArrayLike<number> | undefined, strength: number): number {
  return ((global?.[FP_INDEX] ?? 0) + strength / LABEL_COUNT) / (sumOf(global ?? []) + strength);
}

function sumOf(row: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < row.length; i++) n += row[i] as number;
  return n;
}
