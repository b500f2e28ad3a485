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

function sumPoints(txs: readonly LedgerTransaction[], type: LedgerTransaction['type']): number {
  let sum = 0;
  for (const tx of txs) if (tx.type === type) sum += tx.points;
  return sum;
}

function byCategory(txs: readonly LedgerTransaction[], type: LedgerTransaction['type']): Record<string, number> {
  const sums = new Map<string, number>();
  for (const tx of txs) if (tx.type === type) sums.set(tx.category, (sums.get(tx.category) ?? 0) + tx.points);
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
 * Throws a RangeError when `sessionStartMs` is NaN or a timestamp does not parse.
 */
export function ledgerTotals(txs: readonly LedgerTransaction[], sessionStartMs: number): LedgerTotals {
  if (Number.isNaN(sessionStartMs)) throw new RangeError('sessionStartMs must be a number of epoch milliseconds, got NaN');
  const session = txs.filter((tx) => {
    const ms = Date.parse(tx.timestamp);
    if (Number.isNaN(ms)) throw new RangeError(`${tx.id}: timestamp ${JSON.stringify(tx.timestamp)} is not an ISO-8601 date-time`);
    return ms >= sessionStartMs;
  });
  const earned = sumPoints(txs, 'reward');
  const incurred = sumPoints(txs, 'penalty');
  const sessionEarned = sumPoints(session, 'reward');
  const sessionIncurred = sumPoints(session, 'penalty');
  const calculated = earned + incurred;
  const stored = txs.at(-1)?.running_total ?? 0;
  return {
    total_score: calculated,
    session_score: sessionEarned + sessionIncurred,
    lifetime_score: calculated,
    rewards: { total_earned: earned, session_earned: sessionEarned, lifetime_earned: earned, by_category: byCategory(txs, 'reward') },
    penalties: { total_incurred: incurred, session_incurred: sessionIncurred, lifetime_incurred: incurred, by_category: byCategory(txs, 'penalty') },
    checksum: { calculated_total: calculated, stored_total: stored, is_valid: calculated === stored },
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
export function ledgerMetrics(txs: readonly LedgerTransaction[]): LedgerMetrics {
  const successful = txs.filter((tx) => tx.type === 'reward').length;
  const failed = txs.length - successful;
  const earned = sumPoints(txs, 'reward');
  const moved = earned - sumPoints(txs, 'penalty');
  return {
    actions_total: txs.length,
    actions_successful: successful,
    actions_failed: failed,
    success_rate: txs.length === 0 ? 0 : roundTo1((100 * successful) / txs.length),
    learning_efficiency: moved === 0 ? 0 : roundTo1((100 * earned) / moved),
  };
}

/** Seed 000's `get_category_breakdown`: `ledgerTotals(...).rewards.by_category` and `.penalties.by_category`. */
export function categoryBreakdown(txs: readonly LedgerTransaction[]): CategoryBreakdown {
  return { rewards: byCategory(txs, 'reward'), penalties: byCategory(txs, 'penalty') };
}

/**
 * Seed 000's `get_transactions(limit, category)`: the `limit` newest transactions (highest
 * sequence first), of `category` only when it is given. Throws a RangeError when `limit` is not a
 * non-negative integer.
 */
export function history(txs: readonly LedgerTransaction[], query: HistoryQuery): LedgerTransaction[] {
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) {
    throw new RangeError(`limit must be a non-negative integer, got ${query.limit}`);
  }
  const { category } = query;
  const matching = category === undefined ? [...txs] : txs.filter((tx) => tx.category === category);
  return matching.sort((a, b) => b.sequence - a.sequence).slice(0, query.limit);
}
