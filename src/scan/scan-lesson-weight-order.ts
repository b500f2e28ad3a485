/** Buckets the slots are sorted into: enough that the heaviest few hundred of 10,000 lessons sit in a few of them. */
const BUCKETS = 256;

/**
 * The lessons' slots sorted by weight (`confidence × |avg_reward|`), heaviest first, in buckets of
 * equal weight range, with the greatest weight in each bucket. A lesson's score is its relevance
 * times its weight times a freshness of at most 1, so once the greatest relevance a message allows
 * times a bucket's greatest weight is below the score a lesson needs to get into the top, no
 * lesson in that bucket or after it can get in: the ranking stops there instead of visiting every
 * lesson held. Built by counting (no comparison sort: O(slots + buckets)) and built again after
 * the lessons change. An infinite weight goes into the first bucket, NaN or a negative one (which
 * never gets in) into the last.
 */
export class WeightOrder {
  /** Slots, bucket by bucket, heaviest bucket first; within a bucket the newest (highest) slot first. */
  readonly slots: Uint32Array;
  /** Where each bucket starts in `slots`; `starts[b + 1]` is where it ends. */
  readonly starts: Uint32Array;
  /** The greatest weight in each bucket (0 for an empty one, which has nothing to say about the buckets after it). */
  readonly ceilings: Float64Array;

  constructor(weight: ArrayLike<number>, count: number, buckets = BUCKETS) {
    let max = 0;
    for (let slot = 0; slot < count; slot++) {
      const w = weight[slot] as number;
      if (ordinary(w) && w > max) max = w;
    }
    const bucketOf = new Uint16Array(count);
    const sizes = new Uint32Array(buckets);
    this.ceilings = new Float64Array(buckets);
    for (let slot = 0; slot < count; slot++) {
      const w = weight[slot] as number;
      // Heaviest first: bucket 0 holds the weights nearest `max`.
      const b = w === Number.POSITIVE_INFINITY ? 0 : ordinary(w) && max > 0 ? Math.min(buckets - 1, Math.floor((1 - w / max) * buckets)) : buckets - 1;
      bucketOf[slot] = b;
      sizes[b] = (sizes[b] as number) + 1;
      if (w > (this.ceilings[b] as number)) this.ceilings[b] = w;
    }
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
    return this.ceilings.length;
  }
}

/** A weight the buckets are cut by: a finite number ≥ 0. */
function ordinary(w: number): boolean {
  return w >= 0 && w <= Number.MAX_VALUE;
}
