/**
 * Seed 002: an ELO rating for each thing the agent knows (vector, file, symbol, record). Use
 * raises it, being passed over lowers it, disuse lets it drift back to where it started, and
 * retrieval ranks by similarity blended with it. Pure: time comes in as `elapsedDays`.
 */
export { ELO_TIERS, type EloTier, INITIAL_ELO_BY_TIER, TIER_FLOOR_ELO, tierOf } from './tiers';

/** Seed 002's logistic scale: the expectation's argument moves by one per `ELO_SCALE` points. */
export const ELO_SCALE = 400;

/**
 * The rating an item is expected against when no opponent is given: the MEDIUM start. The seed's
 * literal `sigmoid(ELO_old / 400)` compares with 0, which puts every rating from 800 up at an
 * expectation of 0.88 or more, so a miss would cost nearly K and a use earn almost nothing, and
 * every item not used nearly always would sink below 800. Against 1200 the equilibrium rating of
 * an item used with probability p is `1200 + 400·ln(p / (1 - p))`: p = 0.5 holds at 1200 (MEDIUM),
 * p ≈ 0.73 at 1600 (HIGH), p ≈ 0.27 at 800 (LOW), so the seed's tiers are bands of use rate.
 */
export const REFERENCE_ELO = 1200;

export type EloStage = 'new' | 'established';

/** Seed 002's learning rate K: 16 while an item is new, 8 once it is established. */
export const K_BY_STAGE: Record<EloStage, number> = { new: 16, established: 8 };

/** Updates after which an item is established (the seed leaves it open; FIDE's new-player span). */
export const DEFAULT_ESTABLISHED_AFTER_UPDATES = 30;

/** A stored rating and how many outcome updates have shaped it. */
export interface EloState {
  elo: number;
  updates: number;
}

export interface EloUpdateOptions {
  /** Default `DEFAULT_ESTABLISHED_AFTER_UPDATES`. */
  establishedAfterUpdates?: number;
  /** The rating (fixed reference or opponent) the outcome is expected against. Default `REFERENCE_ELO`. */
  referenceElo?: number;
}

export interface EloUpdate extends EloState {
  /** `k * (outcome - expected)`, the change in rating. */
  delta: number;
  expected: number;
  k: number;
}

function requireFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`);
}

function requireCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

/**
 * Seed 002's expectation, the probability that the item is used:
 * `expected = sigmoid((elo - referenceElo) / ELO_SCALE) = 1 / (1 + e^(-(elo - referenceElo) / 400))`.
 * It is the seed's natural-log sigmoid, not chess's base-10 curve (`1 / (1 + 10^(-Δ/400))`), so a
 * 400-point gap means odds of e ≈ 2.72 rather than 10. Symmetric: `expectedScore(a, b) +
 * expectedScore(b, a) = 1`. Strictly inside (0, 1) while `|elo - referenceElo| < 14 000`.
 */
export function expectedScore(elo: number, referenceElo = REFERENCE_ELO): number {
  requireFinite('elo', elo);
  requireFinite('referenceElo', referenceElo);
  return 1 / (1 + Math.exp(-(elo - referenceElo) / ELO_SCALE));
}

/** New while `updates < establishedAfterUpdates`, established from then on. */
export function eloStage(updates: number, establishedAfterUpdates = DEFAULT_ESTABLISHED_AFTER_UPDATES): EloStage {
  requireCount('updates', updates);
  requireCount('establishedAfterUpdates', establishedAfterUpdates);
  return updates < establishedAfterUpdates ? 'new' : 'established';
}

/** K for an item with `updates` prior updates: 16 below `establishedAfterUpdates`, 8 at and after it. */
export function kFactor(updates: number, establishedAfterUpdates = DEFAULT_ESTABLISHED_AFTER_UPDATES): number {
  return K_BY_STAGE[eloStage(updates, establishedAfterUpdates)];
}

/**
 * Seed 002's update `ELO_new = ELO_old + K * (outcome - expected)`, with `outcome` in [0, 1]
 * (1 used, 0 passed over, between for partial credit), `expected = expectedScore(elo,
 * referenceElo)` and `K = kFactor(updates, establishedAfterUpdates)`. Counts one more update.
 * A use never lowers a rating and a miss never raises one.
 */
export function updateElo(state: EloState, outcome: number, options: EloUpdateOptions = {}): EloUpdate {
  if (!(outcome >= 0 && outcome <= 1)) throw new RangeError(`outcome must be in [0,1], got ${outcome}`);
  const expected = expectedScore(state.elo, options.referenceElo);
  const k = kFactor(state.updates, options.establishedAfterUpdates);
  const delta = k * (outcome - expected);
  return { elo: state.elo + delta, updates: state.updates + 1, delta, expected, k };
}

export type RankBand = 'first' | 'top5' | 'top10' | 'beyond';

/** Seed 002's retrieval boost by rank band: +16 rank 1, +8 ranks 2-5, +4 ranks 6-10, none below. */
export const RANK_BOOST_BY_BAND: Record<RankBand, number> = { first: 16, top5: 8, top10: 4, beyond: 0 };

/** The band of a 1-based result rank. */
export function rankBand(rank: number): RankBand {
  if (!Number.isSafeInteger(rank) || rank < 1) throw new RangeError(`rank must be an integer >= 1, got ${rank}`);
  if (rank === 1) return 'first';
  if (rank <= 5) return 'top5';
  if (rank <= 10) return 'top10';
  return 'beyond';
}

/** The ELO points a retrieval at 1-based `rank` earns. */
export function rankBoost(rank: number): number {
  return RANK_BOOST_BY_BAND[rankBand(rank)];
}

/**
 * `elo + rankBoost(rank)`. A flat boost, not an outcome: it has no expectation, does not count
 * toward `updates` (which only sets K), and does not shrink as the rating grows; misses and
 * `driftTowardStart` are what pull a much-retrieved item back.
 */
export function applyRankBoost(elo: number, rank: number): { elo: number; delta: number } {
  requireFinite('elo', elo);
  const delta = rankBoost(rank);
  return { elo: elo + delta, delta };
}

/**
 * An unused item's rating after `elapsedDays` of disuse, drifting back toward `startElo` by
 * `ratePerDay` of the remaining gap each day, compounded:
 * `drifted = startElo + (elo - startElo) * (1 - ratePerDay)^elapsedDays`, for `ratePerDay` in
 * [0, 1] and fractional days (half-life `ln 2 / -ln(1 - ratePerDay)` days; 0.01/day ≈ 69 days).
 * The gap only shrinks, so the result lies between `elo` and `startElo` (clamped there so rounding
 * cannot carry it past), and drifting `a` then `b` days equals drifting `a + b` days.
 */
export function driftTowardStart(elo: number, startElo: number, elapsedDays: number, ratePerDay: number): number {
  requireFinite('elo', elo);
  requireFinite('startElo', startElo);
  if (!(Number.isFinite(elapsedDays) && elapsedDays >= 0)) throw new RangeError(`elapsedDays must be a finite number >= 0, got ${elapsedDays}`);
  if (!(ratePerDay >= 0 && ratePerDay <= 1)) throw new RangeError(`ratePerDay must be in [0,1], got ${ratePerDay}`);
  const drifted = startElo + (elo - startElo) * (1 - ratePerDay) ** elapsedDays;
  return Math.min(Math.max(drifted, Math.min(elo, startElo)), Math.max(elo, startElo));
}

export interface BlendWeights {
  similarity: number;
  elo: number;
  /** The rating that counts as full marks: `elo / eloFullMarks` is clamped to [0, 1]. */
  eloFullMarks: number;
}

/** Seed 002 phase 4: `similarity * 0.7 + (elo / 2000) * 0.3`. */
export const DEFAULT_BLEND_WEIGHTS: Readonly<BlendWeights> = { similarity: 0.7, elo: 0.3, eloFullMarks: 2000 };

/**
 * Seed 002's retrieval score `final = similarity * w.similarity + clamp(elo / w.eloFullMarks, 0, 1)
 * * w.elo`. The clamp is ours: ratings have no ceiling (rank boosts are flat), and without it an
 * item at 5000 would outscore any similarity. Non-decreasing in both inputs for non-negative weights.
 */
export function blendedScore(similarity: number, elo: number, weights: Readonly<BlendWeights> = DEFAULT_BLEND_WEIGHTS): number {
  requireFinite('similarity', similarity);
  requireFinite('elo', elo);
  if (!(weights.similarity >= 0 && Number.isFinite(weights.similarity))) throw new RangeError(`weights.similarity must be a finite number >= 0, got ${weights.similarity}`);
  if (!(weights.elo >= 0 && Number.isFinite(weights.elo))) throw new RangeError(`weights.elo must be a finite number >= 0, got ${weights.elo}`);
  if (!(weights.eloFullMarks > 0 && Number.isFinite(weights.eloFullMarks))) throw new RangeError(`weights.eloFullMarks must be a finite number > 0, got ${weights.eloFullMarks}`);
  const eloTerm = Math.min(1, Math.max(0, elo / weights.eloFullMarks));
  return similarity * weights.similarity + eloTerm * weights.elo;
}
