import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { brierScore, type Forecast, logLoss, rocAuc } from '../../src/scan/model/forecast-scores';

const f = (pairs: [number, 0 | 1][]): Forecast[] => pairs.map(([p, y]) => ({ p, y }));

describe('forecast scores', () => {
  test('golden Brier and log loss', () => {
    const forecasts = f([
      [0.8, 1],
      [0.3, 0],
    ]);
    // ((0.2)² + (0.3)²) / 2
    expect(brierScore(forecasts)).toBeCloseTo(0.065, 12);
    // -(ln 0.8 + ln 0.7) / 2
    expect(logLoss(forecasts)).toBeCloseTo(0.2899092476, 9);
    expect(brierScore(f([[0.5, 1]]))).toBe(0.25);
  });

  test('empty input gives null, not NaN', () => {
    expect(brierScore([])).toBeNull();
    expect(logLoss([])).toBeNull();
    expect(rocAuc([])).toBeNull();
  });

  test('log loss of a certain miss is large but finite', () => {
    const loss = logLoss(f([[0, 1]])) as number;
    expect(Number.isFinite(loss)).toBe(true);
    expect(loss).toBeCloseTo(-Math.log(1e-15), 6);
  });

  test('golden AUC, with ties counting one half', () => {
    // positives 0.9 and 0.7, negatives 0.8 and 0.1: 0.9 beats both, 0.7 beats one => 3/4
    expect(rocAuc(f([[0.9, 1], [0.8, 0], [0.7, 1], [0.1, 0]]))).toBeCloseTo(0.75, 12);
    expect(rocAuc(f([[0.5, 1], [0.5, 0]]))).toBeCloseTo(0.5, 12);
    expect(rocAuc(f([[0.2, 1], [0.9, 0]]))).toBe(0);
    expect(rocAuc(f([[0.2, 1], [0.9, 1]]))).toBeNull();
  });

  test('property: AUC equals the pairwise count', () => {
    const arb = fc.array(fc.tuple(fc.constantFrom(0, 0.1, 0.25, 0.5, 0.9, 1), fc.constantFrom<0 | 1>(0, 1)), { maxLength: 40 });
    fc.assert(
      fc.property(arb, (pairs) => {
        const forecasts = f(pairs);
        const pos = forecasts.filter((x) => x.y === 1);
        const neg = forecasts.filter((x) => x.y === 0);
        const auc = rocAuc(forecasts);
        if (pos.length === 0 || neg.length === 0) {
          expect(auc).toBeNull();
          return;
        }
        let wins = 0;
        for (const a of pos) for (const b of neg) wins += a.p > b.p ? 1 : a.p === b.p ? 0.5 : 0;
        expect(auc as number).toBeCloseTo(wins / (pos.length * neg.length), 12);
      }),
    );
  });

  test('property: Brier in [0,1], log loss non-negative', () => {
    const arb = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom<0 | 1>(0, 1)), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(arb, (pairs) => {
        const b = brierScore(f(pairs)) as number;
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThanOrEqual(1);
        expect(logLoss(f(pairs)) as number).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
