import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { ScanLessonSlots } from '../../src/scan/scan-lesson-slots';

const FIELDS = 3;
const facts = fc.record({
  weight: fc.double({ min: 0, max: 2, noNaN: true }),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  lastSeenMs: fc.integer({ min: 0, max: 2 ** 40 }),
  context: fc.array(fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: null }), { minLength: FIELDS, maxLength: FIELDS }),
});

describe('ScanLessonSlots.gather: the facts of the slots an order lists, in that order', () => {
  test('property: entry k (and its context codes) are the facts of slot order[k], after sets and moves', () => {
    fc.assert(
      fc.property(fc.array(facts, { minLength: 1, maxLength: 80 }), fc.array(fc.nat(), { maxLength: 20 }), fc.nat(), (all, moves, seed) => {
        const slots = new ScanLessonSlots(FIELDS);
        for (const [slot, f] of all.entries()) slots.set(slot, f);
        // What a removal does: the last slot moves into the freed one.
        const expected = all.map((f) => ({ ...f, context: f.context.map((v) => slots.codeOf(v)) }));
        for (const m of moves) {
          if (expected.length < 2) break;
          const to = m % (expected.length - 1);
          slots.move(expected.length - 1, to);
          expected[to] = expected.pop() as (typeof expected)[number];
        }
        const order = Uint32Array.from(expected.keys()).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101) || a - b);
        const gathered = slots.gather(order);
        expect(gathered.weight).toHaveLength(order.length);
        for (const [k, slot] of order.entries()) {
          const want = expected[slot] as (typeof expected)[number];
          expect(gathered.weight[k]).toBe(want.weight);
          expect(gathered.confidence[k]).toBe(want.confidence);
          expect(gathered.lastSeenMs[k]).toBe(want.lastSeenMs);
          expect([...gathered.context.subarray(k * FIELDS, (k + 1) * FIELDS)]).toEqual(want.context);
        }
      }),
    );
  });
});
