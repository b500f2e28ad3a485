import { type Neighbour, type SparseQuery, unitVector } from './similarity';
import { grown } from './typed-arrays';

/**
 * Unit vectors stored column by column: one Float32Array per dimension, one slot per item. The
 * cosine of a sparse query with every item then reads only the query's non-zero columns, each
 * sequentially — a few dozen streams for a lexical query instead of a scattered read of every
 * item's whole vector. Used to score all lessons for the prompt.
 */
export class SimilarityColumns {
  private columns: Float32Array[] = [];
  private capacity = 0;
  private used = 0;
  private scratch = new Float32Array(0);
  private zeroColumn = new Float32Array(0);

  get size(): number {
    return this.used;
  }

  /** Appends a slot and returns its number. */
  add(vector: ArrayLike<number>): number {
    const slot = this.used++;
    this.ensureCapacity(this.used, vector.length);
    this.set(slot, vector);
    return slot;
  }

  set(slot: number, vector: ArrayLike<number>): void {
    if (vector.length !== this.columns.length) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.columns.length}`);
    const unit = unitVector(vector);
    for (let d = 0; d < unit.length; d++) (this.columns[d] as Float32Array)[slot] = unit[d] as number;
  }

  /**
   * Drops `slot`: the last slot's vector moves into it and the columns shrink by one. Returns the
   * number the moved slot had (now `slot`), or null when `slot` was the last.
   */
  removeSwap(slot: number): number | null {
    const last = this.used - 1;
    if (slot < 0 || slot > last) throw new RangeError(`no slot ${slot}`);
    if (slot !== last) for (const column of this.columns) column[slot] = column[last] as number;
    this.used--;
    return slot === last ? null : last;
  }

  /**
   * Cosine of the query with every slot, in slot order. The array is reused: it holds this call's
   * answer until the next call (no 40 KB allocation per prompt at 10k lessons).
   */
  cosines(query: SparseQuery): Float32Array {
    if (this.scratch.length < this.used) this.scratch = new Float32Array(this.capacity);
    const scores = this.scratch.subarray(0, this.used);
    scores.fill(0);
    // Four columns a pass: a dense query (an embedding model's, every dimension) reads and writes
    // the scores a quarter as often.
    const { indices, values } = query;
    const used = this.used;
    let k = 0;
    for (; k + 4 <= indices.length; k += 4) {
      const a = this.column(indices[k]);
      const b = this.column(indices[k + 1]);
      const c = this.column(indices[k + 2]);
      const d = this.column(indices[k + 3]);
      const wa = values[k] as number;
      const wb = values[k + 1] as number;
      const wc = values[k + 2] as number;
      const wd = values[k + 3] as number;
      for (let s = 0; s < used; s++) scores[s] = (scores[s] as number) + wa * (a[s] as number) + wb * (b[s] as number) + wc * (c[s] as number) + wd * (d[s] as number);
    }
    for (; k < indices.length; k++) {
      const column = this.column(indices[k]);
      const weight = values[k] as number;
      for (let s = 0; s < used; s++) scores[s] = (scores[s] as number) + weight * (column[s] as number);
    }
    return scores;
  }

  /** A dimension's column; a dimension the index does not have reads as zeros. */
  private column(dimension: number | undefined): Float32Array {
    return this.columns[dimension as number] ?? this.zeros();
  }

  private zeros(): Float32Array {
    if (this.zeroColumn.length < this.used) this.zeroColumn = new Float32Array(this.capacity);
    return this.zeroColumn;
  }

  /**
   * The most similar of `candidates` (each an item and its slot) to `query` by cosine (the first
   * wins a tie), or null when there are none. The inner product of the unit query with each slot's
   * unit vector, summed dimension by dimension: what dedupe compares with its threshold.
   */
  nearest<T>(query: ArrayLike<number>, candidates: Iterable<{ item: T; slot: number }>): Neighbour<T> | null {
    let unit: Float32Array | null = null;
    let best: Neighbour<T> | null = null;
    for (const { item, slot } of candidates) {
      if (slot < 0 || slot >= this.used) throw new RangeError(`no slot ${slot}`);
      if (unit === null) {
        if (query.length !== this.columns.length) throw new RangeError(`vector has ${query.length} dimensions, the index ${this.columns.length}`);
        unit = unitVector(query);
      }
      let s = 0;
      for (let d = 0; d < unit.length; d++) s += (unit[d] as number) * ((this.columns[d] as Float32Array)[slot] as number);
      if (best === null || s > best.similarity) best = { item, similarity: s };
    }
    return best;
  }

  /** A copy of `slot`'s unit vector. */
  vectorAt(slot: number): Float32Array {
    if (slot < 0 || slot >= this.used) throw new RangeError(`no slot ${slot}`);
    return Float32Array.from(this.columns, (column) => column[slot] as number);
  }

  private ensureCapacity(needed: number, dimensions: number): void {
    if (this.columns.length === 0) this.columns = Array.from({ length: dimensions }, () => new Float32Array(0));
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, this.capacity * 2, 64);
    this.columns = this.columns.map((old) => grown(old, capacity));
    this.capacity = capacity;
  }
}
