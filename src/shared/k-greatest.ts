/**
 * The `k` greatest of the numbers offered, in a min-heap on one typed array: `least()` is the k-th
 * greatest once `k` have been offered. Finding a threshold this way costs a comparison per number
 * for most of them and allocates nothing per number, where sorting every number to read one
 * position took 23–83 ms for a week of 200,000 findings (one synchronous step).
 */
export class KGreatest {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    this.heap = new Float64Array(k);
  }

  get full(): boolean {
    return this.size === this.k;
  }

  /** The least of those kept (the k-th greatest once full); undefined before any was offered. */
  least(): number | undefined {
    return this.size === 0 ? undefined : this.heap[0];
  }

  offer(value: number): void {
    const heap = this.heap;
    if (this.size < this.k) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        heap[at] = heap[parent] as number;
        at = parent;
      }
      heap[at] = value;
      return;
    }
    if (value <= (heap[0] as number)) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.k) break;
      const right = left + 1;
      const child = right < this.k && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= value) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = value;
  }
}
