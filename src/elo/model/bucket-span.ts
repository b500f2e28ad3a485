import { bucketFrom } from './distribution';
import { driftTowardStart } from './elo';

export const DAY_MS = 86_400_000;
/** The width of the buckets the database counts items in: the report's default; tier floors are multiples of it. */
export const COUNTED_BUCKET_WIDTH = 100;

/** What an item's rating at any time follows from: its stored rating, its start and its last use. */
export interface StoredRating {
  elo: number;
  startElo: number;
  lastUsedMs: number;
}

/**
 * The item's rating at `nowMs`: its stored rating drifted toward its start for the days since its
 * last use (`driftTowardStart`), or the stored rating when no time has passed or drift is off.
 */
export function ratingAt(item: StoredRating, nowMs: number, driftPerDay: number): number {
  const days = Math.max(0, nowMs - item.lastUsedMs) / DAY_MS;
  return days === 0 || driftPerDay === 0 ? item.elo : driftTowardStart(item.elo, item.startElo, days, driftPerDay);
}

/** The bucket an item's rating is in at a time, and a time before which it surely stays there. */
export interface BucketSpan {
  /** `bucketFrom(ratingAt(item, atMs), COUNTED_BUCKET_WIDTH)`. */
  bucket: number;
  /** +∞ when the rating never leaves the bucket; may be at or before `atMs` (then nothing is promised). */
  untilMs: number;
}

/** Relative and absolute margins taken off the computed time a rating leaves its bucket: the span promised is never too long. */
const RELATIVE_MARGIN = 1e-6;
const ABSOLUTE_MARGIN_MS = 1_000;

/** The spacing of doubles at `x` (an upper bound: rounding `log2` up only makes it larger). */
function ulp(x: number): number {
  const a = Math.abs(x);
  return a === 0 ? Number.MIN_VALUE : 2 ** (Math.floor(Math.log2(a)) - 52);
}

/**
 * The bucket of the item's rating at `atMs` and how long it stays there. Drift moves a rating
 * monotonically toward its start, `r(t) = s + (e − s)·(1 − rate)^days`, so it leaves bucket
 * `[b, b + w)` only through the edge facing the start: through `b` when `s < b` (once the remaining
 * share of the gap `(1 − rate)^days` falls below `p = (b − s) / (e − s)`), through `b + w` when
 * `s > b + w` (below `p = (s − b − w) / (s − e)`), never when the start is in the bucket. When the
 * start is the upper edge itself the rating only gets there by rounding (once the gap left is under
 * half a double's spacing at `s`); `p = ulp(s) / (s − e)` comes before that. The time is
 * `lastUse + ln p / ln(1 − rate)` days, shortened by a millionth and a second so that float error
 * never makes it late: at `untilMs` and after, the rating must be computed again.
 */
export function bucketSpan(item: StoredRating, atMs: number, driftPerDay: number): BucketSpan {
  const w = COUNTED_BUCKET_WIDTH;
  const rating = ratingAt(item, atMs, driftPerDay);
  const bucket = bucketFrom(rating, w);
  const { elo: e, startElo: s } = item;
  // At its start a rating stays there: the gap only shrinks, and the clamp keeps it from crossing.
  if (driftPerDay === 0 || e === s || rating === s) return { bucket, untilMs: Number.POSITIVE_INFINITY };
  let p: number;
  if (s < e) {
    if (s >= bucket) return { bucket, untilMs: Number.POSITIVE_INFINITY };
    p = (bucket - s) / (e - s);
  } else {
    if (s < bucket + w) return { bucket, untilMs: Number.POSITIVE_INFINITY };
    p = s === bucket + w ? ulp(s) / (s - e) : (s - bucket - w) / (s - e);
  }
  const days = p >= 1 ? 0 : Math.log(p) / Math.log(1 - driftPerDay);
  if (!(days > 0) || !Number.isFinite(days)) return { bucket, untilMs: days > 0 ? Number.POSITIVE_INFINITY : item.lastUsedMs };
  return { bucket, untilMs: Math.floor(item.lastUsedMs + days * DAY_MS * (1 - RELATIVE_MARGIN) - ABSOLUTE_MARGIN_MS) };
}

/**
 * A key that orders the items of one start by their rating at any time at or after their last
 * use, the same order at every such time. Drift keeps the gap to the start as
 * `gap(t) = (e − s)·b^((t − lastUse)/day)` with `b = 1 − rate`, so `ln|gap(t)| = K + (t/day)·ln b`
 * with `K = ln|e − s| − (lastUse/day)·ln b`: the time term is the same for every item. Items above
 * their start (`above`) rate higher the larger K is; items at or below it rate higher the smaller
 * K is, so their key is −K (+∞ for an item at its start). Order by `above` then `key`, both
 * descending, and the ratings descend (up to float rounding, which callers allow for).
 */
export function driftOrder(item: StoredRating, driftPerDay: number): { above: boolean; key: number } {
  const above = item.elo > item.startElo;
  const k = Math.log(Math.abs(item.elo - item.startElo)) - (item.lastUsedMs / DAY_MS) * Math.log(1 - driftPerDay);
  // A drift rate of 1 leaves every rating at its start after any time: no order is needed, any key serves.
  if (Number.isNaN(k)) return { above, key: 0 };
  return { above, key: above ? k : -k };
}

/** A counted bucket's stored span: counted from `sinceMs` until before `untilMs`; empty when they are equal. */
export interface StoredSpan {
  sinceMs: number;
  untilMs: number;
}

/**
 * The span stored for a bucket computed at `sinceMs` that holds until `untilMs` (`bucketSpan`),
 * given `floorMs`, the time no stored span may end before (the book's `swept_until`; −∞ when
 * none). A span that ends before it starts is stored empty at its start; one that would end before
 * the floor is stored empty at the floor. Both mean the same as the span computed: a report at any
 * time computes the rating of an item whose span does not hold then, and the next move of buckets
 * takes the item (its `until` is at or after the floor, and at or before that move's time).
 */
export function storedSpan(sinceMs: number, untilMs: number, floorMs: number): StoredSpan {
  const until = Math.max(untilMs, sinceMs);
  return until >= floorMs ? { sinceMs, untilMs: until } : { sinceMs: floorMs, untilMs: floorMs };
}
