import { grown } from '../shared/typed-arrays';

/**
 * What ranking reads of each lesson besides its vector, by slot, in typed arrays: weight,
 * confidence, `last_seen` and a number for each context value. The ranking loop visits many
 * lessons per message, so it reads numbers (`gather`ed in its visit order) rather than following
 * each lesson's objects (which cost it about 0.4 µs a lesson at 10k lessons, more than everything else).
 */
/** Slot facts as `ScanLessonSlots` holds them: entry k of each array (and `fields` context codes from k × fields) belong together. */
export interface SlotFacts {
  weight: Float64Array;
  confidence: Float64Array;
  lastSeenMs: Float64Array;
  context: Int32Array;
}

export class ScanLessonSlots implements SlotFacts {
  weight = new Float64Array(0);
  confidence = new Float64Array(0);
  lastSeenMs = new Float64Array(0);
  /** `fields` numbers per slot: the code of each context value (0: none). */
  context = new Int32Array(0);
  private readonly codes = new Map<string, number>();

  constructor(readonly fields: number) {}

  /** The number of a context value (0 for none); a value never seen has the code −1, which no slot holds. */
  codeOf(value: string | null, assign = false): number {
    if (value === null) return 0;
    const known = this.codes.get(value);
    if (known !== undefined) return known;
    if (!assign) return -1;
    const code = this.codes.size + 1;
    this.codes.set(value, code);
    return code;
  }

  set(slot: number, facts: { weight: number; confidence: number; lastSeenMs: number; context: readonly (string | null)[] }): void {
    this.ensure(slot + 1);
    this.weight[slot] = facts.weight;
    this.confidence[slot] = facts.confidence;
    this.lastSeenMs[slot] = facts.lastSeenMs;
    for (let f = 0; f < this.fields; f++) this.context[slot * this.fields + f] = this.codeOf(facts.context[f] ?? null, true);
  }

  /** The codes of `slot`'s context values, one per field: a view, read before the slot is written again. */
  contextOf(slot: number): Int32Array {
    return this.context.subarray(slot * this.fields, (slot + 1) * this.fields);
  }

  /**
   * The facts of the slots `order` lists, in that order: the ranking visits lessons by weight,
   * and reading each slot's facts where it lies is a scattered read of four arrays per lesson
   * (about 55 ns a lesson at 10,000 lessons, against a few ns read in a row).
   */
  gather(order: Uint32Array): SlotFacts {
    const n = order.length;
    const fields = this.fields;
    const out: SlotFacts = { weight: new Float64Array(n), confidence: new Float64Array(n), lastSeenMs: new Float64Array(n), context: new Int32Array(n * fields) };
    for (let k = 0; k < n; k++) {
      const slot = order[k] as number;
      out.weight[k] = this.weight[slot] as number;
      out.confidence[k] = this.confidence[slot] as number;
      out.lastSeenMs[k] = this.lastSeenMs[slot] as number;
      out.context.set(this.contextOf(slot), k * fields);
    }
    return out;
  }

  /** Copies slot `from` into slot `to` (when the last slot moves into a freed one). */
  move(from: number, to: number): void {
    this.weight[to] = this.weight[from] as number;
    this.confidence[to] = this.confidence[from] as number;
    this.lastSeenMs[to] = this.lastSeenMs[from] as number;
    this.context.copyWithin(to * this.fields, from * this.fields, (from + 1) * this.fields);
  }

  private ensure(slots: number): void {
    if (slots <= this.weight.length) return;
    const capacity = Math.max(slots, this.weight.length * 2, 64);
    this.weight = grown(this.weight, capacity);
    this.confidence = grown(this.confidence, capacity);
    this.lastSeenMs = grown(this.lastSeenMs, capacity);
    this.context = grown(this.context, capacity * this.fields);
  }
}
