import { OUTCOME_LABELS, type OutcomeLabel } from '../scan/model/outcome';

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for a proportion of `successes` in `trials`:
 * `(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`. With no trials it is [0, 1].
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): Interval {
  if (trials <= 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = p + z2 / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return {
    low: Math.max(0, (centre - spread) / denominator),
    high: Math.min(1, (centre + spread) / denominator),
  };
}

/**
 * How much a sample supports a claim about the rate `successes / trials`: one minus the width of
 * its 95% Wilson interval. 0 with no data, approaching 1 as the sample grows (at p = 0.5:
 * n=20 ≈ 0.60, n=100 ≈ 0.81, n=400 ≈ 0.90). A lesson's stored confidence never exceeds this.
 */
export function statisticalSupport(successes: number, trials: number): number {
  const { low, high } = wilsonInterval(successes, trials);
  return 1 - (high - low);
}

export type LabelCounts = Record<OutcomeLabel, number>;

export function emptyLabelCounts(): LabelCounts {
  return Object.fromEntries(OUTCOME_LABELS.map((l) => [l, 0])) as LabelCounts;
}

/** The smallest view of an outcome that statistics need. */
export interface ScoredOutcome {
  label: OutcomeLabel;
  reward: number;
  tsMs: number;
}

export interface GroupStats {
  n: number;
  avgReward: number;
  labelCounts: LabelCounts;
  /** rejected_fp / n, with its 95% Wilson interval. */
  falsePositiveRate: number;
  falsePositiveInterval: Interval;
  firstTsMs: number;
  lastTsMs: number;
}

/** Statistics of one group of outcomes. Throws on an empty group (a caller's mistake). */
export function summarizeOutcomes(outcomes: readonly ScoredOutcome[]): GroupStats {
  if (outcomes.length === 0) throw new RangeError('summarizeOutcomes needs at least one outcome');
  const labelCounts = emptyLabelCounts();
  let rewardSum = 0;
  let firstTsMs = Number.POSITIVE_INFINITY;
  let lastTsMs = Number.NEGATIVE_INFINITY;
  for (const o of outcomes) {
    labelCounts[o.label]++;
    rewardSum += o.reward;
    if (o.tsMs < firstTsMs) firstTsMs = o.tsMs;
    if (o.tsMs > lastTsMs) lastTsMs = o.tsMs;
  }
  const n = outcomes.length;
  return {
    n,
    avgReward: rewardSum / n,
    labelCounts,
    falsePositiveRate: labelCounts.rejected_fp / n,
    falsePositiveInterval: wilsonInterval(labelCounts.rejected_fp, n),
    firstTsMs,
    lastTsMs,
  };
}
