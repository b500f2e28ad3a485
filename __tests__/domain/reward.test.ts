import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { OUTCOME_LABELS, type OutcomeLabel } from '../../src/scan/model/outcome';
import { REWARD_BY_LABEL, weightedReward } from '../../src/scan/model/reward';

describe('REWARD_BY_LABEL (seed 001 §3.1)', () => {
  const table: [OutcomeLabel, number][] = [
    ['fixed', 1.0],
    ['accepted', 0.5],
    ['ignored', 0.0],
    ['rejected_fp', -0.7],
    ['reopened', -1.0],
  ];

  test.each(table)('%s => %d', (label, reward) => {
    expect(REWARD_BY_LABEL[label]).toBe(reward);
  });

  test('covers exactly the five labels', () => {
    expect(Object.keys(REWARD_BY_LABEL).sort()).toEqual([...OUTCOME_LABELS].sort());
  });
});

describe('weightedReward (seed 001 §3.2)', () => {
  // [label, confidence, expected]; expected = base * (0.5 + 0.5 * confidence), worked by hand.
  const table: [OutcomeLabel, number | undefined, number][] = [
    ['fixed', undefined, 1.0],
    ['fixed', 0, 0.5],
    ['fixed', 0.5, 0.75],
    ['fixed', 1, 1.0],
    ['accepted', undefined, 0.5],
    ['accepted', 0, 0.25],
    ['accepted', 0.5, 0.375],
    ['accepted', 1, 0.5],
    ['ignored', undefined, 0],
    ['ignored', 0, 0],
    ['ignored', 0.5, 0],
    ['ignored', 1, 0],
    ['rejected_fp', undefined, -0.7],
    ['rejected_fp', 0, -0.35],
    ['rejected_fp', 0.5, -0.525],
    ['rejected_fp', 0.8, -0.63],
    ['rejected_fp', 1, -0.7],
    ['reopened', undefined, -1.0],
    ['reopened', 0, -0.5],
    ['reopened', 0.5, -0.75],
    ['reopened', 1, -1.0],
  ];

  test.each(table)('%s at confidence %p => %d', (label, confidence, expected) => {
    expect(weightedReward(label, confidence)).toBeCloseTo(expected, 12);
  });

  const bad: number[] = [1.5, -0.1, 1.0000001, -Number.MIN_VALUE, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  test.each(bad)('confidence %p throws a RangeError naming [0,1]', (confidence) => {
    expect(() => weightedReward('fixed', confidence)).toThrow(RangeError);
    expect(() => weightedReward('fixed', confidence)).toThrow('[0,1]');
  });

  test('property: half of base <= |weighted| <= |base|, with the sign of base', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OUTCOME_LABELS), fc.double({ min: 0, max: 1, noNaN: true }), (label, confidence) => {
        const base = REWARD_BY_LABEL[label];
        const weighted = weightedReward(label, confidence);
        expect(Math.abs(weighted)).toBeLessThanOrEqual(Math.abs(base) + 1e-12);
        expect(Math.abs(weighted)).toBeGreaterThanOrEqual(Math.abs(base) / 2 - 1e-12);
        expect(Math.sign(weighted)).toBe(Math.sign(base));
      }),
    );
  });

  test('property: more confidence moves the reward away from zero, never towards it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OUTCOME_LABELS),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (label, a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(Math.abs(weightedReward(label, hi))).toBeGreaterThanOrEqual(Math.abs(weightedReward(label, lo)));
        },
      ),
    );
  });
});
