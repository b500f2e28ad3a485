import type { LedgerTransaction } from './chain';

/** Points summed per category: rewards (each ≥ 0) and penalties (each ≤ 0), keys sorted. */
export interface CategoryBreakdown {
  rewards: Record<string, number>;
  penalties: Record<string, number>;
}

/** The `reinforcement_learning_ledger` totals of seed 000's progress.json, by its field names. */
export interface LedgerTotals {
  total_score: number;
  session_score: number;
  lifetime_score: number;
  rewards: { total_earned: number; session_earned: number; lifetime_earned: number; by_category: Record<string, number> };
  penalties: { total_incurred: number; session_incurred: number; lifetime_incurred: number; by_category: Record<string, number> };
  /** `last_validated` is the caller's clock and is added by the caller. */
  checksum: { calculated_total: number; stored_total: number; is_valid: boolean };
}

/** Seed 000's `metrics`, less `autonomy_level`, which the ledger holds nothing to compute from. */
export interface LedgerMetrics {
  actions_total: number;
  actions_successful: number;
  actions_failed: number;
  success_rate: number;
  learning_efficiency: number;
}

export interface HistoryQuery {
  /** How many transactions at most: a non-negative integer. */
  limit: number;
  /** Only this category, when given. */
  category?: string;
}

/**
 * What the totals and metrics need of a run of transactions, folded one transaction at a time, so
 * a reader that has folded the first n transactions folds only the ones appended since
 * (`foldTransactions`) instead of reading the whole ledger again. Sums are of integer points, so
 * folding in chunks gives exactly what folding all at once gives.
 */
export interface LedgerFold {
  readonly sessionStartMs: number;
  count: number;
  rewards: number;
  /** Sequence and hash of the last transaction folded (0 and null before the first). */
  lastSequence: number;
  lastHash: string | null;
  storedTotal: number;
  earned: number;
  incurred: number;
  sessionEarned: number;
  sessionIncurred: number;
  rewardByCategory: Map<string, number>;
  penaltyByCategory: Map<string, number>;
  /** The latest timestamp folded (epoch ms; -Infinity before the first). */
  latestMs: number;
}

/** The fold of no transactions. Throws a RangeError when `sessionStartMs` is NaN. */
export function emptyFold(sessionStartMs: number): LedgerFold {
  if (Number.isNaN(sessionStartMs)) throw new RangeError('sessionStartMs must be a number of epoch milliseconds, got NaN');
  return { sessionStartMs, count: 0, rewards: 0, lastSequence: 0, lastHash: null, storedTotal: 0, earned: 0, incurred: 0, sessionEarned: 0, sessionIncurred: 0, rewardByCategory: new Map(), penaltyByCategory: new Map(), latestMs: Number.NEGATIVE_INFINITY };
}

/**
 * `fold` with `txs` (the transactions after the ones it holds, in sequence order) added; `fold`
 * itself is left as it was. Throws a RangeError when a timestamp does not parse.
 */
export function foldTransactions(fold: LedgerFold, txs: readonly LedgerTransaction[]): LedgerFold {
  const next: LedgerFold = { ...fold, rewardByCategory: new Map(fold.rewardByCategory), penaltyByCategory: new Map(fold.penaltyByCategory) };
  for (const tx of txs) {
    const ms = Date.parse(tx.timestamp);
    if (Number.isNaN(ms)) throw new RangeError(`${tx.id}: timestamp ${JSON.stringify(tx.timestamp)} is not an ISO-8601 date-time`);
    const inSession = ms >= fold.sessionStartMs;
    const byCategory = tx.type === 'reward' ? next.rewardByCategory : next.penaltyByCategory;
    byCategory.set(tx.category, (byCategory.get(tx.category) ?? 0) + tx.points);
    if (tx.type === 'reward') {
      next.rewards++;
      next.earned += tx.points;
      if (inSession) next.sessionEarned += tx.points;
    } else {
      next.incurred += tx.points;
      if (inSession) next.sessionIncurred += tx.points;
    }
    next.count++;
    next.latestMs = Math.max(next.latestMs, ms);
    next.lastSequence = tx.sequence;
    next.lastHash = tx.hash;
    next.storedTotal = tx.running_total;
  }
  return next;
}

/** A fold as stored between processes (`storedFold` reads it back): everything but the session figures. */
export type StoredFold = Omit<LedgerFold, 'sessionStartMs' | 'sessionEarned' | 'sessionIncurred' | 'lastHash' | 'rewardByCategory' | 'penaltyByCategory'> & {
  lastHash: string;
  rewardByCategory: Record<string, number>;
  penaltyByCategory: Record<string, number>;
};

/** What to store of a fold that has folded at least one transaction. */
export function foldToStore(fold: LedgerFold): StoredFold | null {
  if (fold.lastHash === null) return null;
  const { count, rewards, lastSequence, lastHash, storedTotal, earned, incurred, latestMs } = fold;
  return { count, rewards, lastSequence, lastHash, storedTotal, earned, incurred, latestMs, rewardByCategory: Object.fromEntries(fold.rewardByCategory), penaltyByCategory: Object.fromEntries(fold.penaltyByCategory) };
}

/**
 * A stored fold as the fold of a session starting at `sessionStartMs`, or null when it cannot be
 * one: malformed, or holding a transaction stamped at or after the session's start (its session
 * figures would be unknown).
 */
export function foldFromStore(value: unknown, sessionStartMs: number): LedgerFold | null {
  const v = value as Partial<StoredFold> | null;
  const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  const sums = (x: unknown): x is Record<string, number> => typeof x === 'object' && x !== null && Object.values(x).every(finite);
  if (v === null || typeof v !== 'object') return null;
  if (![v.count, v.rewards, v.lastSequence, v.storedTotal, v.earned, v.incurred, v.latestMs].every(finite) || typeof v.lastHash !== 'string') return null;
  if (!sums(v.rewardByCategory) || !sums(v.penaltyByCategory)) return null;
  if ((v.latestMs as number) >= sessionStartMs) return null;
  return {
    ...emptyFold(sessionStartMs),
    count: v.count as number,
    rewards: v.rewards as number,
    lastSequence: v.lastSequence as number,
    lastHash: v.lastHash,
    storedTotal: v.storedTotal as number,
    earned: v.earned as number,
    incurred: v.incurred as number,
    latestMs: v.latestMs as number,
    rewardByCategory: new Map(Object.entries(v.rewardByCategory)),
    penaltyByCategory: new Map(Object.entries(v.penaltyByCategory)),
  };
}

function sortedRecord(sums: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `round(x · 10) / 10`: the one-decimal percentages of the seed. */
function roundTo1(x: number): number {
  return Math.round(x * 10) / 10;
}

/**
 * The ledger's totals. With `earned(S) = Σ points of the rewards in S` (≥ 0) and
 * `incurred(S) = Σ points of the penalties in S` (≤ 0, penalties are stored negative):
 * - total_* over the whole ledger: `total_score = earned + incurred`.
 * - lifetime_* equal total_*: this ledger is append-only and never truncated, so "the ledger" and
 *   "all time" are the same set (the seed's larger lifetime figures come from a log capped at 1000
 *   rows; the fields stay for its progress.json contract).
 * - session_* over the transactions whose timestamp is at or after `sessionStartMs`.
 * - by_category over the whole ledger, keys sorted.
 * - checksum: `calculated_total = earned + incurred` from the points (the seed's
 *   `sum(rewards) - sum(penalties)` with penalties as magnitudes), `stored_total` = the last
 *   running_total (0 when empty), `is_valid = calculated_total === stored_total`. Points are
 *   integers, so the comparison is exact.
 */
export function totalsOfFold(f: LedgerFold): LedgerTotals {
  const calculated = f.earned + f.incurred;
  return {
    total_score: calculated,
    session_score: f.sessionEarned + f.sessionIncurred,
    lifetime_score: calculated,
    rewards: { total_earned: f.earned, session_earned: f.sessionEarned, lifetime_earned: f.earned, by_category: sortedRecord(f.rewardByCategory) },
    penalties: { total_incurred: f.incurred, session_incurred: f.sessionIncurred, lifetime_incurred: f.incurred, by_category: sortedRecord(f.penaltyByCategory) },
    checksum: { calculated_total: calculated, stored_total: f.storedTotal, is_valid: calculated === f.storedTotal },
  };
}

/**
 * Seed 000's metrics. A reward records a successful action, a penalty a failed one:
 * - `actions_total = rewards + penalties` (count of transactions), `actions_successful = rewards`,
 *   `actions_failed = penalties`;
 * - `success_rate = round1(100 · actions_successful / actions_total)`, 0 with no actions;
 * - `learning_efficiency = round1(100 · earned / (earned + |incurred|))`: the share of all points
 *   moved that were earned, 0 with no points. (The seed's 450 earned and −165 incurred give
 *   73.2, its printed value; its 33 of 45 actions give 73.3, also as printed.)
 */
export function metricsOfFold(f: LedgerFold): LedgerMetrics {
  const moved = f.earned - f.incurred;
  return {
    actions_total: f.count,
    actions_successful: f.rewards,
    actions_failed: f.count - f.rewards,
    success_rate: f.count === 0 ? 0 : roundTo1((100 * f.rewards) / f.count),
    learning_efficiency: moved === 0 ? 0 : roundTo1((100 * f.earned) / moved),
  };
}

/** `totalsOfFold` of these transactions. Throws a RangeError when `sessionStartMs` is NaN or a timestamp does not parse. */
export function ledgerTotals(txs: readonly LedgerTransaction[], sessionStartMs: number): LedgerTotals {
  return totalsOfFold(foldTransactions(emptyFold(sessionStartMs), txs));
}

/** `metricsOfFold` of these transactions. */
export function ledgerMetrics(txs: readonly LedgerTransaction[]): LedgerMetrics {
  return metricsOfFold(foldTransactions(emptyFold(0), txs));
}

/** Seed 000's `get_category_breakdown`: `ledgerTotals(...).rewards.by_category` and `.penalties.by_category`. */
export function categoryBreakdown(txs: readonly LedgerTransaction[]): CategoryBreakdown {
  const totals = ledgerTotals(txs, 0);
  return { rewards: totals.rewards.by_category, penalties: totals.penalties.by_category };
}

/**
 * Seed 000's `get_transactions(limit, category)`: the `limit` newest transactions (highest
 * sequence first), of `category` only when it is given. Throws a RangeError when `limit` is not a
 * non-negative integer.
 */
export function history(txs: readonly LedgerTransaction[], query: HistoryQuery): LedgerTransaction[] {
  checkHistoryQuery(query);
  const { category } = query;
  const matching = category === undefined ? [...txs] : txs.filter((tx) => tx.category === category);
  return matching.sort((a, b) => b.sequence - a.sequence).slice(0, query.limit);
}

/** Throws a RangeError when `query.limit` is not a non-negative integer. */
export function checkHistoryQuery(query: HistoryQuery): void {
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) {
    throw new RangeError(`limit must be a non-negative integer, got ${query.limit}`);
  }
}
