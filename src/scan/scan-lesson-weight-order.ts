import { DAY_MS } from './model/grouping';

/** Buckets the slots are sorted into: enough that the heaviest few hundred of 10,000 lessons sit in a few of them. */
const BUCKETS = 256;
/** Decayed weights more than 2^64 times lighter than the heaviest all go into the last bucket (a far outlier cannot squeeze the rest into one). */
const KEY_SPAN = 64;
/** A ceiling is raised by this factor so that rounding in its exponent can never put it under a score it bounds. */
const ROUNDING_SLACK = 1 + 1e-9;
/**
 * Below 2^-1022 doubles are subnormal, spaced `Number.MIN_VALUE` apart, and a relative slack rounds
 * away there: a weight of 1.73e-322 decayed to 9e-323 against a ceiling of 8.4e-323 (one step
 * apart). A ceiling is so also raised by a few of those steps, nothing at any normal size.
 */
const SUBNORMAL_SLACK = 4 * Number.MIN_VALUE;

/** What the order is built from, by slot: each lesson's weight (`confidence × |avg_reward|`) and `last_seen` in epoch ms. */
export interface WeighedSlots {
  weight: ArrayLike<number>;
  lastSeenMs: ArrayLike<number>;
}

/**
 * The lessons' slots sorted by decayed weight, heaviest first, in buckets of equal range, with
 * what bounds the buckets. A lesson's score is its relevance times its weight times its freshness
 * at the message's time, and freshness is at most 1 and at most 2^((last_seen − now) / half-life).
 * So weight × freshness ≤ 2^(key − now / half-life), where key = log2(weight) + last_seen /
 * half-life does not depend on the message's time: the slots are sorted by that key once (and
 * again after the lessons change). Once the greatest relevance a message allows times a bucket's
 * ceiling (`ceiling`) is below the score a lesson needs to get into the top, no lesson in that
 * bucket or after it can get in: the ranking stops there. Sorted by weight alone, a year of lessons
 * whose old ones decayed to nothing was visited nearly whole (8,600 of 10,000 lessons a message
 * in bench/scan-lessons-scale.ts); the old weights kept every bucket's ceiling high.
 *
 * Built by counting (no comparison sort: O(slots + buckets)). An infinite weight goes into the
 * first bucket; NaN, a negative weight or an unreadable `last_seen` (none of which ever gets in)
 * into the last. A half-life that is not a positive finite number sorts by weight alone.
 */
export class WeightOrder {
  /** Slots, bucket by bucket, heaviest bucket first; within a bucket the newest (highest) slot first. */
  readonly slots: Uint32Array;
  /** Where each bucket starts in `slots`; `starts[b + 1]` is where it ends. */
  readonly starts: Uint32Array;
  /** The half-life the keys were made with, in days (what the order must be built again for when it changes). */
  readonly halfLifeDays: number;
  private readonly halfLifeMs: number;
  /** Per bucket, the greatest key in it or in any bucket after it (−∞ when none). */
  private readonly keyCeilings: Float64Array;
  /** Per bucket, the greatest weight in it or in any bucket after it (0 when none). */
  private readonly weightCeilings: Float64Array;

  constructor(facts: WeighedSlots, count: number, halfLifeDays: number, buckets = BUCKETS) {
    this.halfLifeDays = halfLifeDays;
    this.halfLifeMs = halfLifeDays > 0 && Number.isFinite(halfLifeDays) ? halfLifeDays * DAY_MS : Number.POSITIVE_INFINITY;
    const keys = new Float64Array(count);
    let max = Number.NEGATIVE_INFINITY;
    let min = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < count; slot++) {
      const key = this.keyOf(facts.weight[slot] as number, facts.lastSeenMs[slot] as number);
      keys[slot] = key;
      if (Number.isFinite(key)) {
        if (key > max) max = key;
        if (key < min) min = key;
      }
    }
    // The buckets share the range of finite keys, at most KEY_SPAN of it (0: one key or none).
    const width = Number.isFinite(max) ? Math.min(max - min, KEY_SPAN) / buckets : 0;
    const bucketOf = new Uint16Array(count);
    const sizes = new Uint32Array(buckets);
    const keyCeilings = new Float64Array(buckets).fill(Number.NEGATIVE_INFINITY);
    const weightCeilings = new Float64Array(buckets);
    for (let slot = 0; slot < count; slot++) {
      const key = keys[slot] as number;
      const w = facts.weight[slot] as number;
      // Heaviest first: bucket 0 holds the keys nearest `max`.
      const b = key === Number.POSITIVE_INFINITY ? 0 : Number.isFinite(key) && width > 0 ? Math.min(buckets - 1, Math.floor((max - key) / width)) : buckets - 1;
      bucketOf[slot] = b;
      sizes[b] = (sizes[b] as number) + 1;
      if (key > (keyCeilings[b] as number)) keyCeilings[b] = key;
      if (w > (weightCeilings[b] as number)) weightCeilings[b] = w;
    }
    // A ceiling bounds its bucket and every bucket after it: the ranking stops at the first one too low.
    for (let b = buckets - 2; b >= 0; b--) {
      keyCeilings[b] = Math.max(keyCeilings[b] as number, keyCeilings[b + 1] as number);
      weightCeilings[b] = Math.max(weightCeilings[b] as number, weightCeilings[b + 1] as number);
    }
    this.keyCeilings = keyCeilings;
    this.weightCeilings = weightCeilings;
    this.starts = new Uint32Array(buckets + 1);
    for (let b = 0; b < buckets; b++) this.starts[b + 1] = (this.starts[b] as number) + (sizes[b] as number);
    const next = this.starts.slice(0, buckets);
    this.slots = new Uint32Array(count);
    for (let slot = count - 1; slot >= 0; slot--) {
      const b = bucketOf[slot] as number;
      this.slots[next[b] as number] = slot;
      next[b] = (next[b] as number) + 1;
    }
  }

  get buckets(): number {
    return this.keyCeilings.length;
  }

  /** The greatest weight × freshness at `nowMs` any lesson of bucket `b` or after it can have (0 when they are all empty). */
  ceiling(b: number, nowMs: number): number {
    const byWeight = this.weightCeilings[b] as number;
    const key = this.keyCeilings[b] as number;
    if (this.halfLifeMs === Number.POSITIVE_INFINITY || key === Number.POSITIVE_INFINITY) return byWeight;
    return Math.min(byWeight, 2 ** (key - nowMs / this.halfLifeMs) * ROUNDING_SLACK + SUBNORMAL_SLACK);
  }

  /** log2(weight) + last_seen / half-life: −∞ for a weight of 0, NaN for one that never gets in. */
  private keyOf(weight: number, lastSeenMs: number): number {
    if (!(weight >= 0) || Number.isNaN(lastSeenMs)) return Number.NaN;
    if (weight === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    return Math.log2(weight) + (this.halfLifeMs === Number.POSITIVE_INFINITY ? 0 : lastSeenMs / this.halfLifeMs);
  }
}
