import { ELO_TIERS, type EloTier, tierOf } from './tiers';

/** A rated item as the statistics need it (the book's `EloRow` fits). `elo` is the rating now. */
export interface RatedItem {
  kind: string;
  id: string;
  elo: number;
  updates: number;
  title?: string;
}

/** One histogram bar: the items with `from <= elo < to`. */
export interface HistogramBucket {
  from: number;
  to: number;
  count: number;
}

export interface Distribution {
  count: number;
  /** Items per tier now (`tierOf`), every tier listed. */
  tiers: Record<EloTier, number>;
  /** Non-empty buckets only, by `from` ascending: a bucket not listed holds no item. */
  histogram: HistogramBucket[];
}

export interface TopItem {
  id: string;
  /** The rating now, rounded to 0.1 for display; `tier` is of the unrounded rating. */
  elo: number;
  tier: EloTier;
  updates: number;
  title?: string;
}

/** `round(x · 10^decimals) / 10^decimals`: display rounding of report figures. */
export function roundTo(x: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(x * scale) / scale;
}

function zeroTiers(): Record<EloTier, number> {
  return Object.fromEntries(ELO_TIERS.map((t) => [t, 0])) as Record<EloTier, number>;
}

/** `floor(elo / w) · w`, stepped by one bucket where float rounding put `elo` outside `[from, from + w)`. */
export function bucketFrom(elo: number, w: number): number {
  const from = Math.floor(elo / w) * w;
  if (elo < from) return from - w;
  return elo >= from + w ? from + w : from;
}

/**
 * Items per tier and a histogram of `bucketWidthPoints`-wide buckets. Bucket `b` holds the ratings
 * with `from = floor(elo / w) · w <= elo < from + w`. Only non-empty buckets are listed: ratings
 * have no ceiling (rank boosts are flat), so one outlier would otherwise add thousands of empty
 * buckets; the list is never longer than the number of items.
 */
export function distributionOf(items: readonly Pick<RatedItem, 'elo'>[], bucketWidthPoints: number): Distribution {
  if (!(Number.isFinite(bucketWidthPoints) && bucketWidthPoints > 0)) throw new RangeError(`bucketWidth must be a finite number > 0, got ${bucketWidthPoints}`);
  const tiers = zeroTiers();
  const buckets = new Map<number, number>();
  for (const { elo } of items) {
    tiers[tierOf(elo)]++;
    const from = bucketFrom(elo, bucketWidthPoints);
    buckets.set(from, (buckets.get(from) ?? 0) + 1);
  }
  const histogram = [...buckets].sort(([a], [b]) => a - b).map(([from, n]) => ({ from, to: from + bucketWidthPoints, count: n }));
  return { count: items.length, tiers, histogram };
}

/**
 * The same figures from counts of items per `countedWidth`-wide bucket (`from` a multiple of it):
 * each count goes to the `bucketWidthPoints`-wide bucket holding its `from`, and its tier is the
 * tier of `from` (tier floors are multiples of the counted width, so every rating of a counted
 * bucket is in one tier). `bucketWidthPoints` must be a multiple of `countedWidth`.
 */
export function distributionFromCounts(counts: readonly { bucket: number; count: number }[], bucketWidthPoints: number, countedWidth: number): Distribution {
  if (!(Number.isSafeInteger(bucketWidthPoints / countedWidth) && bucketWidthPoints > 0)) throw new RangeError(`bucketWidth must be a multiple of ${countedWidth}, got ${bucketWidthPoints}`);
  const tiers = zeroTiers();
  const buckets = new Map<number, number>();
  let total = 0;
  for (const { bucket, count } of counts) {
    tiers[tierOf(bucket)] += count;
    const from = bucketFrom(bucket, bucketWidthPoints);
    buckets.set(from, (buckets.get(from) ?? 0) + count);
    total += count;
  }
  const histogram = [...buckets].sort(([a], [b]) => a - b).map(([from, n]) => ({ from, to: from + bucketWidthPoints, count: n }));
  return { count: total, tiers, histogram };
}

/** Items grouped by kind, kinds in code-point order. */
export function byKind<T extends { kind: string }>(items: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.kind);
    if (group) group.push(item);
    else groups.set(item.kind, [item]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The `k` highest-rated items, rating descending, ties by id in code-point order. */
export function topItems(items: readonly RatedItem[], k: number): TopItem[] {
  if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`k must be an integer >= 1, got ${k}`);
  return [...items]
    .sort((a, b) => b.elo - a.elo || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, k)
    .map((i) => ({ id: i.id, elo: roundTo(i.elo, 1), tier: tierOf(i.elo), updates: i.updates, ...(i.title === undefined ? {} : { title: i.title }) }));
}
