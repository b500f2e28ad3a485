/**
 * The similarity floor above which a stored item counts as related to a message on meaning alone,
 * calibrated for the vector source in use instead of a fixed cosine: real embedding models give a
 * positive cosine for almost any two texts, hashed word vectors a small one from collisions.
 *
 * Calibration: embed a fixed set of everyday sentences (`EVERYDAY_SENTENCES`) with the same vector
 * source as the items; for each sentence take the highest similarity it reaches against any stored
 * item, `m_s = max_i sim(s, i)`; the floor is the `percentile`-th of the `m_s` (nearest rank):
 * `floor = m_(⌈p · n⌉)` over the n sentences sorted ascending. An item is related to a message when
 * `sim(message, item) > floor`, so about `1 − p` of everyday messages reach any item on meaning.
 * With no sentences (or no items) the floor is +∞: nothing is related on meaning alone.
 */
export const DEFAULT_FLOOR_PERCENTILE = 0.99;

export function relevanceFloor(maxSimilarities: readonly number[], percentile = DEFAULT_FLOOR_PERCENTILE): number {
  if (!(percentile > 0 && percentile <= 1)) throw new RangeError(`percentile must be in (0, 1], got ${percentile}`);
  const finite = maxSimilarities.filter((s) => Number.isFinite(s));
  if (finite.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...finite].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(percentile * sorted.length)));
  return sorted[rank - 1] as number;
}

/**
 * For each query, the highest of its similarities to the items: `m_q = max_i sims(q)[i]`, or −∞
 * for a query when there are no items. `similarities(q)` gives one query's similarity to every item.
 */
export function maxPerQuery<Q>(queries: readonly Q[], similarities: (query: Q) => ArrayLike<number>): number[] {
  return queries.map((q) => {
    const sims = similarities(q);
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < sims.length; i++) if ((sims[i] as number) > best) best = sims[i] as number;
    return best;
  });
}
