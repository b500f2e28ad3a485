import { grown } from './typed-arrays';

/** Slots of a new table: a power of two. */
const INITIAL_SLOTS = 1 << 10;

/**
 * Numbers strings 0, 1, 2, … in the order they are first seen, for state kept in arrays by
 * number. A JS `Map` of a few hundred thousand string keys, grown while other work allocates,
 * makes Bun's young-generation collections slow: a week's 200,000 findings folded into a `Map`
 * stalled an agent process on the 1M bench database 122–145 ms at a time (49–73 ms with this),
 * and 300,000 keys added a page at a time between turns gave a worst gap of 13–26 ms with a `Map`
 * (of objects or of numbers alike), 4–8 ms with this. Here the keys sit in one array and the
 * table is typed arrays (open addressing, linear probing, at most half full). The hash
 * (FNV-1a over UTF-16 code units) starts from a per-table random basis, so a set of keys that
 * collide under one table's hash need not collide under the next; a hit is confirmed by
 * comparing the strings.
 */
export class StringNumbers {
  private readonly strings: string[] = [];
  /** By slot: the string's number + 1; 0 is an empty slot. */
  private slots = new Int32Array(INITIAL_SLOTS);
  /** By number: the string's hash, to place it again when the table grows. */
  private hashes: Uint32Array = new Uint32Array(INITIAL_SLOTS / 2);
  private readonly basis = (Math.random() * 0x1_0000_0000) >>> 0;

  get size(): number {
    return this.strings.length;
  }

  /** The string numbered `n`. */
  at(n: number): string {
    const s = this.strings[n];
    if (s === undefined) throw new RangeError(`no string numbered ${n} (${this.strings.length} held)`);
    return s;
  }

  /** The number of `s`, given it now when it is new (the next number: `size` before the call). */
  numberOf(s: string): number {
    const hash = this.hash(s);
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let held = this.slots[slot] as number; held !== 0; held = this.slots[slot] as number) {
      if (this.hashes[held - 1] === hash && this.strings[held - 1] === s) return held - 1;
      slot = (slot + 1) & mask;
    }
    const n = this.strings.length;
    this.strings.push(s);
    if (n >= this.hashes.length) this.hashes = grown(this.hashes, n + 1);
    this.hashes[n] = hash;
    this.slots[slot] = n + 1;
    if (2 * this.strings.length > this.slots.length) this.growSlots();
    return n;
  }

  private hash(s: string): number {
    let h = this.basis;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return h >>> 0;
  }

  private growSlots(): void {
    this.slots = new Int32Array(2 * this.slots.length);
    const mask = this.slots.length - 1;
    for (let n = 0; n < this.strings.length; n++) {
      let slot = (this.hashes[n] as number) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = n + 1;
    }
  }
}
