/**
 * The items (lessons) holding each context value, per field, and each pair of values of two
 * fields: which lessons a message matches on one named value, or on two, read without visiting
 * the others. Values are numbers (`ScanLessonSlots.codeOf`; 0 is no value and is not kept).
 * `ScanLessonIndex.rankScored` scores these lessons first when there are few of them, so its
 * visit by weight can bound the lessons left by fewer context matches.
 *
 * An item held alone is kept as itself, more in an array (an item found by a search when it goes:
 * linear in its set, done when a lesson leaves memory): at 10,000 lessons held, with the scale
 * bench's lessons (about 7,000 values and 25,000 pairs, most held by one or two lessons), `Set`s
 * took 15.6 MB, arrays 6.9 MB, this with numeric keys 4.8 MB. Items are not arrays.
 */
export class ContextSets<T extends object> {
  /** By field value (`keyOf`). */
  private readonly singles = new Map<number, T | T[]>();
  /** By the keys of two values (`pairKey`). */
  private readonly pairs = new Map<number | string, T | T[]>();

  constructor(private readonly fields: number) {}

  /** Keeps `item` under each of its values (`codes`, one per field) and each pair of them. */
  add(item: T, codes: ArrayLike<number>): void {
    this.each(codes, (within, key) => {
      const held = within.get(key);
      if (held === undefined) within.set(key, item);
      else if (Array.isArray(held)) held.push(item);
      else within.set(key, [held, item]);
    });
  }

  /** Lets go of `item`, kept under `codes` (the codes it was added with). */
  delete(item: T, codes: ArrayLike<number>): void {
    this.each(codes, (within, key) => {
      const held = within.get(key);
      const at = held === undefined ? -1 : Array.isArray(held) ? held.indexOf(item) : held === item ? 0 : -1;
      if (at < 0) throw new Error(`an item is not kept under ${key}`);
      if (!Array.isArray(held)) {
        within.delete(key);
        return;
      }
      held[at] = held[held.length - 1] as T;
      held.pop();
      if (held.length === 1) within.set(key, held[0] as T);
    });
  }

  /** The items whose `field` holds `code`. */
  single(field: number, code: number): readonly T[] | undefined {
    return asArray(this.singles.get(this.keyOf(field, code)));
  }

  /** The items whose field `a` holds `codeA` and field `b` holds `codeB` (`a` < `b`). */
  pair(a: number, codeA: number, b: number, codeB: number): readonly T[] | undefined {
    return asArray(this.pairs.get(pairKey(this.keyOf(a, codeA), this.keyOf(b, codeB))));
  }

  private keyOf(field: number, code: number): number {
    return code * this.fields + field;
  }

  /** Calls `visit` with the map and key of each value of `codes`, and of each pair of them. */
  private each<K extends number | string>(codes: ArrayLike<number>, visit: (within: Map<K, T | T[]>, key: K) => void): void {
    for (let a = 0; a < this.fields; a++) {
      const codeA = codes[a] as number;
      if (codeA <= 0) continue;
      const keyA = this.keyOf(a, codeA);
      visit(this.singles as Map<K, T | T[]>, keyA as K);
      for (let b = a + 1; b < this.fields; b++) {
        const codeB = codes[b] as number;
        if (codeB > 0) visit(this.pairs as Map<K, T | T[]>, pairKey(keyA, this.keyOf(b, codeB)) as K);
      }
    }
  }
}

function asArray<T extends object>(held: T | T[] | undefined): readonly T[] | undefined {
  return held === undefined || Array.isArray(held) ? held : [held];
}

/** Keys of single values below this make a pair's key one number (under 2^52); past it (16 million values), a string. */
const PAIR_SPAN = 2 ** 26;

/** The key of two values' keys, the lower field's first. */
function pairKey(first: number, second: number): number | string {
  return first < PAIR_SPAN && second < PAIR_SPAN ? first * PAIR_SPAN + second : `${first},${second}`;
}
