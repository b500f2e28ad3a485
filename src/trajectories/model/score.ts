import type { CheckResult, TrajectorySignals } from './detect';

/** What seed 004 scores a trajectory on. */
export interface TrajectoryFacts {
  initialCommit: string | null;
  finalCommit: string | null;
  /** The session ended cleanly (has an end timestamp). */
  ended: boolean;
  tokenCount: number;
  toolCalls: number;
  ci: CheckResult | null;
}

/** Each score in [0,1]. Snake_case: printed as JSON. */
export interface QualityBreakdown {
  completeness: number;
  complexity: number;
  reward_signal: number;
  quality: number;
  token_points: number;
  tool_points: number;
}

/** Seed 004: `quality = 0.4·completeness + 0.3·complexity + 0.3·reward_signal`. */
export const QUALITY_WEIGHTS = { completeness: 0.4, complexity: 0.3, reward_signal: 0.3 } as const;

/** Seed 004 completeness: initial commit 0.4 + final commit 0.4 + clean end 0.2. */
export const COMPLETENESS_POINTS = { initialCommit: 0.4, finalCommit: 0.4, ended: 0.2 } as const;

/** A threshold step: a count strictly greater than `above` earns `points`. */
export interface PointStep {
  above: number;
  points: number;
}

/** Seed 004 token points, up to 0.5: > 100 +0.2, > 500 +0.2, > 2000 +0.1. */
export const TOKEN_STEPS: readonly PointStep[] = [
  { above: 100, points: 0.2 },
  { above: 500, points: 0.2 },
  { above: 2000, points: 0.1 },
];

/** Seed 004 tool-call points, up to 0.5: > 3 +0.2, > 10 +0.2, > 20 +0.1. */
export const TOOL_CALL_STEPS: readonly PointStep[] = [
  { above: 3, points: 0.2 },
  { above: 10, points: 0.2 },
  { above: 20, points: 0.1 },
];

/** Seed 004 reward signal: CI passed 1.0, failed 0.3 (still a useful negative signal), no CI data 0. */
export const REWARD_SIGNAL_BY_CI: Record<CheckResult | 'none', number> = { passed: 1.0, failed: 0.3, none: 0.0 };

/**
 * `round(x · 1e9) / 1e9`: drops binary float noise so scores compare exactly
 * (`0.2 + 0.4` is 0.6000000000000001 in doubles, `0.3·0.5 + 0.3·1` is 0.44999999999999996). Monotone, so
 * rounding never breaks an ordering.
 */
export function roundScore(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/** Sum of the points of every step whose `above` the count strictly exceeds. */
export function stepPoints(count: number, steps: readonly PointStep[]): number {
  return roundScore(steps.reduce((sum, s) => (count > s.above ? sum + s.points : sum), 0));
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

function assertUnit(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be in [0,1], got ${value}`);
}

const present = (commit: string | null): boolean => commit !== null && commit !== '';

/**
 * Seed 004 "Quality Score Calculation":
 * `completeness = 0.4·[initial commit] + 0.4·[final commit] + 0.2·[ended]`,
 * `complexity = token_points + tool_points` (`TOKEN_STEPS`, `TOOL_CALL_STEPS`),
 * `reward_signal = REWARD_SIGNAL_BY_CI[ci]`,
 * `quality = 0.4·completeness + 0.3·complexity + 0.3·reward_signal`; each score `roundScore`d.
 * An empty commit string counts as none. Throws a RangeError on a negative or fractional count.
 */
export function scoreTrajectory(f: TrajectoryFacts): QualityBreakdown {
  assertCount('tokenCount', f.tokenCount);
  assertCount('toolCalls', f.toolCalls);
  const completeness = roundScore(
    (present(f.initialCommit) ? COMPLETENESS_POINTS.initialCommit : 0) +
      (present(f.finalCommit) ? COMPLETENESS_POINTS.finalCommit : 0) +
      (f.ended ? COMPLETENESS_POINTS.ended : 0),
  );
  const token_points = stepPoints(f.tokenCount, TOKEN_STEPS);
  const tool_points = stepPoints(f.toolCalls, TOOL_CALL_STEPS);
  const complexity = roundScore(token_points + tool_points);
  const reward_signal = REWARD_SIGNAL_BY_CI[f.ci ?? 'none'];
  const quality = roundScore(
    QUALITY_WEIGHTS.completeness * completeness + QUALITY_WEIGHTS.complexity * complexity + QUALITY_WEIGHTS.reward_signal * reward_signal,
  );
  return { completeness, complexity, reward_signal, quality, token_points, tool_points };
}

/** Seed 004 "Default Reward Rates"; every rate a non-negative whole number of sats. */
export interface RewardRates {
  baseSats: number;
  qualityBonusSatsPerPoint: number;
  ciBonusSats: number;
  tokenBonusSatsPer1k: number;
  toolCallBonusSats: number;
}

export const DEFAULT_REWARD_RATES: RewardRates = {
  baseSats: 100,
  qualityBonusSatsPerPoint: 50,
  ciBonusSats: 200,
  tokenBonusSatsPer1k: 10,
  toolCallBonusSats: 5,
};

/** Whole sats. Snake_case: printed as JSON. */
export interface RewardBreakdown {
  base_sats: number;
  quality_bonus_sats: number;
  ci_bonus_sats: number;
  token_bonus_sats: number;
  tool_bonus_sats: number;
  /** token_bonus_sats + tool_bonus_sats. */
  complexity_bonus_sats: number;
  /** base + quality bonus + CI bonus + complexity bonus. */
  total_sats: number;
}

/**
 * Seed 004 "Reward Calculation", in whole sats:
 * `quality_bonus = floor(max(0, quality − minQuality) · qualityBonusSatsPerPoint)` (float noise
 * rounded away at 1e-9 first: (0.7 − 0.4)·50 is 14.999999999999996 in doubles, 15 sats here),
 * `ci_bonus = ciBonusSats` when a CI result exists, `token_bonus = floor(tokens · tokenBonusSatsPer1k / 1000)`,
 * `tool_bonus = calls · toolCallBonusSats`, `complexity = token + tool`,
 * `total = base + quality + ci + complexity`. It prices a trajectory below `minQuality` too (no
 * quality bonus); rejecting it is `acceptTrajectory`'s job. Throws a RangeError on a quality or
 * minQuality outside [0,1], a negative or fractional rate or count.
 */
export function trajectoryReward(f: TrajectoryFacts, quality: number, rates: RewardRates, minQuality: number): RewardBreakdown {
  assertUnit('quality', quality);
  assertUnit('minQuality', minQuality);
  assertCount('tokenCount', f.tokenCount);
  assertCount('toolCalls', f.toolCalls);
  for (const [name, rate] of Object.entries(rates)) assertCount(name, rate);
  const base_sats = rates.baseSats;
  const quality_bonus_sats = Math.floor(roundScore(Math.max(0, quality - minQuality) * rates.qualityBonusSatsPerPoint));
  const ci_bonus_sats = f.ci === null ? 0 : rates.ciBonusSats;
  const token_bonus_sats = Math.floor((f.tokenCount * rates.tokenBonusSatsPer1k) / 1000);
  const tool_bonus_sats = f.toolCalls * rates.toolCallBonusSats;
  const complexity_bonus_sats = token_bonus_sats + tool_bonus_sats;
  return {
    base_sats,
    quality_bonus_sats,
    ci_bonus_sats,
    token_bonus_sats,
    tool_bonus_sats,
    complexity_bonus_sats,
    total_sats: base_sats + quality_bonus_sats + ci_bonus_sats + complexity_bonus_sats,
  };
}

/** Seed 004 "Configuration": `min_quality_score`, `require_ci_signal`, `min_reward_sats`. */
export interface AcceptancePolicy {
  minQuality: number;
  requireCiSignal: boolean;
  minRewardSats: number;
}

export const DEFAULT_ACCEPTANCE_POLICY: AcceptancePolicy = { minQuality: 0.5, requireCiSignal: false, minRewardSats: 10 };

/** Seed 004 "Quality Thresholds": the four documented minimum-quality bars. */
export type QualityBar = 'inclusive' | 'standard' | 'high' | 'exceptional';
export const MIN_QUALITY_BY_BAR: Record<QualityBar, number> = { inclusive: 0.3, standard: 0.5, high: 0.7, exceptional: 0.9 };

/**
 * Accepted when `quality ≥ minQuality`, a CI result exists if `requireCiSignal`, and
 * `total_sats ≥ minRewardSats` (the seed: "don't contribute if reward < 10 sats"). `reasons` names
 * each failed threshold with its numbers, by its configuration key; empty when accepted.
 */
export function acceptTrajectory(
  q: QualityBreakdown,
  r: RewardBreakdown,
  facts: TrajectoryFacts,
  policy: AcceptancePolicy,
): { accepted: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (q.quality < policy.minQuality) reasons.push(`quality ${q.quality} is below min_quality_score ${policy.minQuality}`);
  if (policy.requireCiSignal && facts.ci === null) reasons.push('no CI result (test or build) but require_ci_signal is true');
  if (r.total_sats < policy.minRewardSats) reasons.push(`reward ${r.total_sats} sats is below min_reward_sats ${policy.minRewardSats}`);
  return { accepted: reasons.length === 0, reasons };
}

/**
 * Facts from detected signals: `initialCommit` is the hash of the first commit sighting;
 * `finalCommit` the hash of the last one when it differs from the initial, else null. So a single
 * commit seen (or only one hash, seen again and again) earns the initial 0.4 only, and a session
 * that ends on the hash it started from (A, B, A) shows no final commit: no net change.
 */
export function factsFromSignals(signals: TrajectorySignals, extra: { tokenCount: number; toolCalls: number; ended: boolean }): TrajectoryFacts {
  assertCount('tokenCount', extra.tokenCount);
  assertCount('toolCalls', extra.toolCalls);
  const initialCommit = signals.commits[0]?.hash ?? null;
  const last = signals.commits[signals.commits.length - 1]?.hash ?? null;
  return {
    initialCommit,
    finalCommit: last !== null && last !== initialCommit ? last : null,
    ended: extra.ended,
    tokenCount: extra.tokenCount,
    toolCalls: extra.toolCalls,
    ci: signals.ci,
  };
}
