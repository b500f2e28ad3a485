import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { KGreatest } from '../../src/shared/k-greatest';

describe('KGreatest', () => {
  test('least() is the k-th greatest of the numbers offered once k were offered, the least of them before', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 300 }), fc.integer({ min: 1, max: 50 }), (values, k) => {
        const greatest = new KGreatest(k);
        for (const v of values) greatest.offer(v);
        const descending = [...values].sort((a, b) => b - a);
        expect(greatest.full).toBe(values.length >= k);
        expect(greatest.least()).toBe(values.length === 0 ? undefined : descending[Math.min(k, values.length) - 1]);
      }),
      { numRuns: 500 },
    );
  });

  test('k must be a positive integer', () => {
    for (const k of [0, -1, 1.5, Number.NaN]) expect(() => new KGreatest(k)).toThrow(RangeError);
  });
});
