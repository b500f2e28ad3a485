import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { emptyLabelCounts, type ScoredOutcome, statisticalSupport, summarizeOutcomes, wilsonInterval, Z_95 } from '../../src/shared/stats';

describe('wilsonInterval', () => {
  // Goldens checked independently as the roots of (p̂ - p)² = z²·p(1-p)/n, z = 1.95996.
  const table: [number, number, number, number][] = [
    [0, 0, 0, 1],
    [7, 20, 0.1812, 0.5671],
    [30, 40, 0.5981, 0.8581],
    [0, 10, 0, 0.2775], // high = z²/(n+z²)
    [10, 10, 0.7225, 1], // low = n/(n+z²)
    [1, 1, 0.2065, 1],
    [2, 4, 0.15, 0.85],
    [50, 100, 0.4038, 0.5962],
  ];
  test.each(table)('%d of %d => [%d, %d]', (successes, trials, low, high) => {
    const ci = wilsonInterval(successes, trials);
    expect(ci.low).toBeCloseTo(low, 4);
    expect(ci.high).toBeCloseTo(high, 4);
  });

  test('Z_95 is the two-sided 95% normal quantile', () => {
    expect(Z_95).toBeCloseTo(1.959964, 6);
  });

  test('a custom z widens or narrows the interval', () => {
    // z = 1: 5 of 10 => (0.5 + 0.05 ± sqrt(0.025 + 0.0025)) / 1.1 = [0.3492, 0.6508]
    const ci = wilsonInterval(5, 10, 1);
    expect(ci.low).toBeCloseTo(0.3492, 4);
    expect(ci.high).toBeCloseTo(0.6508, 4);
  });

  test('property: 0 <= low <= p̂ <= high <= 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const s = Math.round(f * n);
        const { low, high } = wilsonInterval(s, n);
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(1);
        expect(low).toBeLessThanOrEqual(s / n + 1e-12);
        expect(high).toBeGreaterThanOrEqual(s / n - 1e-12);
      }),
    );
  });
});

describe('statisticalSupport', () => {
  const table: [number, number, number][] = [
    [0, 0, 0],
    [7, 20, 0.614],
    [10, 20, 0.5986],
    [50, 100, 0.8077],
    [200, 400, 0.9025],
    [30, 40, 0.7399],
    [0, 10, 0.7225],
  ];
  test.each(table)('%d of %d => %d', (successes, trials, support) => {
    expect(statisticalSupport(successes, trials)).toBeCloseTo(support, 4);
  });

  test('property: support is in [0,1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const support = statisticalSupport(Math.round(f * n), n);
        expect(support).toBeGreaterThanOrEqual(0);
        expect(support).toBeLessThanOrEqual(1);
      }),
    );
  });

  test('property: at a fixed rate, more trials give strictly more support', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        ([s, n], a, b) => {
          fc.pre(a !== b);
          const [small, big] = a < b ? [a, b] : [b, a];
          expect(statisticalSupport(s * big, n * big)).toBeGreaterThan(statisticalSupport(s * small, n * small));
        },
      ),
    );
  });
});

describe('summarizeOutcomes', () => {
  test('golden: counts, average reward, false-positive rate and interval, first and last ts', () => {
    const outcomes: ScoredOutcome[] = [
      { label: 'fixed', reward: 1.0, tsMs: 3000 },
      { label: 'rejected_fp', reward: -0.7, tsMs: 1000 },
      { label: 'rejected_fp', reward: -0.35, tsMs: 5000 },
      { label: 'ignored', reward: 0, tsMs: 2000 },
    ];
    const stats = summarizeOutcomes(outcomes);
    expect(stats.n).toBe(4);
    expect(stats.labelCounts).toEqual({ fixed: 1, accepted: 0, ignored: 1, rejected_fp: 2, reopened: 0 });
    expect(stats.avgReward).toBeCloseTo(-0.0125, 12); // (1 - 0.7 - 0.35 + 0) / 4
    expect(stats.falsePositiveRate).toBe(0.5);
    expect(stats.falsePositiveInterval.low).toBeCloseTo(0.15, 4);
    expect(stats.falsePositiveInterval.high).toBeCloseTo(0.85, 4);
    expect(stats.firstTsMs).toBe(1000);
    expect(stats.lastTsMs).toBe(5000);
  });

  test('a single outcome is its own first and last', () => {
    const stats = summarizeOutcomes([{ label: 'reopened', reward: -1, tsMs: 42 }]);
    expect(stats).toMatchObject({ n: 1, avgReward: -1, falsePositiveRate: 0, firstTsMs: 42, lastTsMs: 42 });
  });

  test('throws a RangeError on an empty group', () => {
    expect(() => summarizeOutcomes([])).toThrow(RangeError);
  });

  test('emptyLabelCounts is all five labels at zero, a fresh object each time', () => {
    const a = emptyLabelCounts();
    expect(a).toEqual({ fixed: 0, accepted: 0, ignored: 0, rejected_fp: 0, reopened: 0 });
    a.fixed = 3;
    expect(emptyLabelCounts().fixed).toBe(0);
  });
});
