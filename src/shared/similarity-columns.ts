import { type Neighbour, type SparseQuery, unitVector } from './similarity';
import { grown } from './typed-arrays';

/**
 * Unit vectors stored column by column: one Float32Array per dimension, one slot per item. The
 * cosine of a sparse query with every item then reads only the query's non-zero columns, each
 * sequentially — a few dozen streams for a lexical query instead of a scattered read of every
 * item's whole vector. Used to score all lessons for the prompt.
 *
 * A column where few slots are non-zero (a word that few lessons have, with the built-in lexical
 * vectors) also keeps the list of those slots, and a query reads only them: at 10,000 lexical
 * lessons about 350 of the 384 columns are listed, and a cosine pass costs about 20 µs instead of
 * 50. A column holds a list while its non-zero slots are at most `listLimit` (a quarter of the
 * slots, or 64), loses it when it grows past that (an embedding model's vectors, non-zero
 * everywhere, lose every list by the 65th item) or when a query reads it after removals left it
 * past that, and gets it back, built when a query reads the column, once it is down to half the
 * limit.
 */
export class SimilarityColumns {
  private columns: Float32Array[] = [];
  /** Per column, the slots where it is non-zero (unordered; the first `listLengths[d]`), or null while the column is too full to list. */
  private lists: (Int32Array | null)[] = [];
  private listLengths = new Int32Array(0);
  /** Per column, how many slots are non-zero. */
  private nonZero = new Int32Array(0);
  private capacity = 0;
  private used = 0;
  private scratch = new Float32Array(0);
  /** The query's places (`k`) whose columns are read whole, reused between calls. */
  private unlisted = new Int32Array(0);

  get size(): number {
    return this.used;
  }

  /** Appends a slot and returns its number. */
  add(vector: ArrayLike<number>): number {
    if (this.columns.length > 0) this.checkDimensions(vector);
    const slot = this.used++;
    this.ensureCapacity(this.used, vector.length);
    this.set(slot, vector);
    return slot;
  }

  set(slot: number, vector: ArrayLike<number>): void {
    this.checkDimensions(vector);
    if (slot < 0 || slot >= this.used) throw new RangeError(`no slot ${slot}`);
    const unit = unitVector(vector);
    for (let d = 0; d < unit.length; d++) {
      const column = this.columns[d] as Float32Array;
      const was = column[slot] !== 0;
      const is = unit[d] !== 0;
      column[slot] = unit[d] as number;
      if (was === is) continue;
      if (is) {
        this.nonZero[d] = (this.nonZero[d] as number) + 1;
        this.listSlot(d, slot);
      } else {
        this.nonZero[d] = (this.nonZero[d] as number) - 1;
        this.unlistSlot(d, slot);
      }
    }
  }

  /** How many columns keep the list of their non-zero slots. */
  get listedColumns(): number {
    return this.lists.filter((list) => list !== null).length;
  }

  /**
   * Drops `slot`: the last slot's vector moves into it and the columns shrink by one. Returns the
   * number the moved slot had (now `slot`), or null when `slot` was the last.
   */
  removeSwap(slot: number): number | null {
    const last = this.used - 1;
    if (slot < 0 || slot > last) throw new RangeError(`no slot ${slot}`);
    for (let d = 0; d < this.columns.length; d++) {
      const column = this.columns[d] as Float32Array;
      const removed = column[slot] !== 0;
      const moved = slot !== last && column[last] !== 0;
      // The list loses `slot` when it was non-zero, then names the moved vector's new slot.
      if (removed) {
        this.nonZero[d] = (this.nonZero[d] as number) - 1;
        this.unlistSlot(d, moved ? last : slot);
      } else if (moved) this.renameSlot(d, last, slot);
      column[slot] = column[last] as number;
      // Slots past the end stay zero: the next `add` writes into a clean slot.
      column[last] = 0;
    }
    this.used--;
    return slot === last ? null : last;
  }

  /** The most non-zero slots a column may have and keep its list. */
  private listLimit(): number {
    return Math.max(64, this.used >> 2);
  }

  private listSlot(d: number, slot: number): void {
    const list = this.lists[d];
    if (!list) return;
    if (this.nonZero[d] as number > this.listLimit()) {
      this.lists[d] = null;
      return;
    }
    const length = this.listLengths[d] as number;
    const room = length < list.length ? list : grown(list, Math.max(8, length + 1));
    room[length] = slot;
    this.lists[d] = room;
    this.listLengths[d] = length + 1;
  }

  private unlistSlot(d: number, slot: number): void {
    const list = this.lists[d];
    if (!list) return;
    const last = (this.listLengths[d] as number) - 1;
    list[this.placeInList(d, list, slot)] = list[last] as number;
    this.listLengths[d] = last;
  }

  private renameSlot(d: number, from: number, to: number): void {
    const list = this.lists[d];
    if (!list) return;
    list[this.placeInList(d, list, from)] = to;
  }

  /** Where column `d`'s list names `slot`; a slot it should list and does not is a broken index. */
  private placeInList(d: number, list: Int32Array, slot: number): number {
    const at = list.subarray(0, this.listLengths[d]).indexOf(slot);
    if (at < 0) throw new Error(`column ${d} does not list slot ${slot}`);
    return at;
  }

  private checkDimensions(vector: ArrayLike<number>): void {
    if (vector.length !== this.columns.length) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.columns.length}`);
  }

  /** Builds column `d`'s list again, from the column itself. */
  private relist(d: number): Int32Array {
    const column = this.columns[d] as Float32Array;
    const list = new Int32Array(Math.max(8, this.nonZero[d] as number));
    let length = 0;
    for (let s = 0; s < this.used; s++) if (column[s] !== 0) list[length++] = s;
    this.lists[d] = list;
    this.listLengths[d] = length;
    return list;
  }

  /**
   * Cosine of the query with every slot, in slot order. The array is reused: it holds this call's
   * answer until the next call (no 40 KB allocation per prompt at 10k lessons).
   */
  cosines(query: SparseQuery): Float32Array {
    if (this.scratch.length < this.used) this.scratch = new Float32Array(this.capacity);
    const scores = this.scratch.subarray(0, this.used);
    scores.fill(0);
    const { indices, values } = query;
    if (this.unlisted.length < indices.length) this.unlisted = new Int32Array(indices.length);
    const unlisted = this.unlisted;
    let unlistedCount = 0;
    // Listed columns first, each slot it lists; a dimension the index does not have adds nothing.
    for (let k = 0; k < indices.length; k++) {
      const d = indices[k] as number;
      const column = this.columns[d];
      if (column === undefined) continue;
      let list = this.lists[d] as Int32Array | null;
      const nonZero = this.nonZero[d] as number;
      // Removals shrink the limit: a list now past it is dropped here, as an add past it would drop it.
      if (list !== null && nonZero > this.listLimit()) list = this.lists[d] = null;
      else if (list === null && nonZero <= this.listLimit() >> 1) list = this.relist(d);
      if (list === null) {
        unlisted[unlistedCount++] = k;
        continue;
      }
      const weight = values[k] as number;
      const length = this.listLengths[d] as number;
      for (let i = 0; i < length; i++) {
        const s = list[i] as number;
        scores[s] = (scores[s] as number) + weight * (column[s] as number);
      }
    }
    // The other columns whole, four a pass: a dense query (an embedding model's, every dimension)
    // reads and writes the scores a quarter as often.
    const used = this.used;
    let u = 0;
    for (; u + 4 <= unlistedCount; u += 4) {
      const ka = unlisted[u] as number;
      const kb = unlisted[u + 1] as number;
      const kc = unlisted[u + 2] as number;
      const kd = unlisted[u + 3] as number;
      const a = this.columns[indices[ka] as number] as Float32Array;
      const b = this.columns[indices[kb] as number] as Float32Array;
      const c = this.columns[indices[kc] as number] as Float32Array;
      const d = this.columns[indices[kd] as number] as Float32Array;
      const wa = values[ka] as number;
      const wb = values[kb] as number;
      const wc = values[kc] as number;
      const wd = values[kd] as number;
      for (let s = 0; s < used; s++) scores[s] = (scores[s] as number) + wa * (a[s] as number) + wb * (b[s] as number) + wc * (c[s] as number) + wd * (d[s] as number);
    }
    for (; u < unlistedCount; u++) {
      const k = unlisted[u] as number;
      const column = this.columns[indices[k] as number] as Float32Array;
      const weight = values[k] as number;
      for (let s = 0; s < used; s++) scores[s] = (scores[s] as number) + weight * (column[s] as number);
    }
    return scores;
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
        this.checkDimensions(query);
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
    if (this.columns.length === 0) {
      this.columns = Array.from({ length: dimensions }, () => new Float32Array(0));
      this.lists = Array.from({ length: dimensions }, () => new Int32Array(0));
      this.listLengths = new Int32Array(dimensions);
      this.nonZero = new Int32Array(dimensions);
    }
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, this.capacity * 2, 64);
    this.columns = this.columns.map((old) => grown(old, capacity));
    this.capacity = capacity;
  }
}
