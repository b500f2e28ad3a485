import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  applyRankBoost,
  blendedScore,
  DEFAULT_BLEND_WEIGHTS,
  DEFAULT_ESTABLISHED_AFTER_UPDATES,
  driftTowardStart,
  ELO_TIERS,
  type EloTier,
  expectedScore,
  INITIAL_ELO_BY_TIER,
  K_BY_STAGE,
  kFactor,
  RANK_BOOST_BY_BAND,
  rankBand,
  rankBoost,
  REFERENCE_ELO,
  tierOf,
  updateElo,
} from '../../src/elo/model/elo';

/** σ(x) = 1 / (1 + e^-x) at the points the goldens use. */
const SIGMOID_1 = 0.7310585786300049;
const SIGMOID_2 = 0.8807970779778823;

/** Ratings where the expectation is strictly inside (0, 1) in doubles. */
const rating = fc.double({ min: -5000, max: 8000, noNaN: true });
const updateCount = fc.integer({ min: 0, max: 1000 });

describe('expectedScore', () => {
  const table: [number, number, number][] = [
    [1200, REFERENCE_ELO, 0.5], // σ(0)
    [1600, REFERENCE_ELO, SIGMOID_1], // σ(400/400)
    [800, REFERENCE_ELO, 1 - SIGMOID_1], // σ(-1)
    [2000, REFERENCE_ELO, SIGMOID_2], // σ(2)
    [400, REFERENCE_ELO, 1 - SIGMOID_2], // σ(-2)
    [1200 + 400 * Math.log(3), REFERENCE_ELO, 0.75], // σ(ln 3) = 3/4
    [1200, 1600, 1 - SIGMOID_1], // an opponent 400 above
    [1200, 0, 0.9525741268224334], // the seed's literal σ(1200/400) = σ(3)
  ];
  test.each(table)('elo %d against %d => %d', (elo, reference, expected) => {
    expect(expectedScore(elo, reference)).toBeCloseTo(expected, 12);
  });

  test('the default reference is the MEDIUM start, 1200', () => {
    expect(REFERENCE_ELO).toBe(INITIAL_ELO_BY_TIER.MEDIUM);
    expect(expectedScore(1200)).toBe(0.5);
  });

  test.each([Number.NaN, Number.POSITIVE_INFINITY])('throws a RangeError naming elo or referenceElo for %d', (bad) => {
    expect(() => expectedScore(bad)).toThrow(/elo/);
    expect(() => expectedScore(1200, bad)).toThrow(/referenceElo/);
    expect(() => expectedScore(bad)).toThrow(RangeError);
  });

  test('property: the expectation is strictly inside (0, 1)', () => {
    fc.assert(
      fc.property(rating, rating, (elo, reference) => {
        const e = expectedScore(elo, reference);
        expect(e).toBeGreaterThan(0);
        expect(e).toBeLessThan(1);
      }),
    );
  });

  test('property: symmetric, expectedScore(a, b) + expectedScore(b, a) = 1', () => {
    fc.assert(
      fc.property(rating, rating, (a, b) => {
        expect(expectedScore(a, b) + expectedScore(b, a)).toBeCloseTo(1, 12);
      }),
    );
  });

  test('property: a higher rating is never expected less', () => {
    fc.assert(
      fc.property(rating, rating, (a, b) => {
        expect(expectedScore(Math.max(a, b))).toBeGreaterThanOrEqual(expectedScore(Math.min(a, b)));
      }),
    );
  });
});

describe('kFactor', () => {
  const table: [number, number, number][] = [
    [0, 30, 16],
    [29, 30, 16],
    [30, 30, 8],
    [1000, 30, 8],
    [0, 1, 16],
    [1, 1, 8],
    [0, 0, 8], // a threshold of 0: established from the start
  ];
  test.each(table)('%d updates, established after %d => K %d', (updates, after, k) => {
    expect(kFactor(updates, after)).toBe(k);
  });

  test('the default threshold is 30 updates', () => {
    expect(DEFAULT_ESTABLISHED_AFTER_UPDATES).toBe(30);
    expect(kFactor(29)).toBe(16);
    expect(kFactor(30)).toBe(8);
  });

  test.each([-1, 1.5, Number.NaN])('throws a RangeError naming the argument for %d', (bad) => {
    expect(() => kFactor(bad, 30)).toThrow(/updates must be/);
    expect(() => kFactor(0, bad)).toThrow(/establishedAfterUpdates must be/);
    expect(() => kFactor(bad, 30)).toThrow(RangeError);
  });

  test('property: K switches from new to established exactly at the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 100_000 }), (after, extra) => {
        expect(kFactor(after - 1, after)).toBe(K_BY_STAGE.new);
        expect(kFactor(after, after)).toBe(K_BY_STAGE.established);
        expect(kFactor(after + extra, after)).toBe(K_BY_STAGE.established);
        expect(kFactor(Math.max(0, after - 1 - extra), after)).toBe(K_BY_STAGE.new);
      }),
    );
  });
});

describe('updateElo', () => {
  // ELO_new = ELO_old + K * (outcome - expected), expected = σ((elo - reference) / 400).
  const table: [string, number, number, number, number | undefined, number, number, number][] = [
    // name, elo, updates, outcome, reference, k, delta, elo_new
    ['new MEDIUM used', 1200, 0, 1, undefined, 16, 8, 1208], // 16 * (1 - 0.5)
    ['new MEDIUM missed', 1200, 0, 0, undefined, 16, -8, 1192], // 16 * (0 - 0.5)
    ['new MEDIUM half credit', 1200, 0, 0.5, undefined, 16, 0, 1200], // 16 * (0.5 - 0.5)
    ['new HIGH used', 1600, 0, 1, undefined, 16, 16 * (1 - SIGMOID_1), 1604.30306274192], // 16 * 0.26894
    ['new HIGH missed', 1600, 0, 0, undefined, 16, -16 * SIGMOID_1, 1588.30306274192], // 16 * -0.73106
    ['new LOW used', 800, 0, 1, undefined, 16, 16 * SIGMOID_1, 811.6969372580801], // 16 * (1 - 0.26894)
    ['last new update', 1200, 29, 1, undefined, 16, 8, 1208], // 29 < 30: K 16
    ['first established update', 1200, 30, 1, undefined, 8, 4, 1204], // 8 * (1 - 0.5)
    ['established at 2000 missed', 2000, 50, 0, undefined, 8, -8 * SIGMOID_2, 1992.953623376177], // 8 * -0.88080
    ['against an opponent 400 above', 1200, 0, 1, 1600, 16, 16 * SIGMOID_1, 1211.69693725808], // 16 * (1 - 0.26894)
  ];
  test.each(table)('%s', (_name, elo, updates, outcome, referenceElo, k, delta, eloNew) => {
    const result = updateElo({ elo, updates }, outcome, { referenceElo });
    expect(result.k).toBe(k);
    expect(result.delta).toBeCloseTo(delta, 10);
    expect(result.elo).toBeCloseTo(eloNew, 10);
    expect(result.updates).toBe(updates + 1);
    expect(result.expected).toBeCloseTo(expectedScore(elo, referenceElo), 15);
  });

  test('the threshold is an option', () => {
    expect(updateElo({ elo: 1200, updates: 4 }, 1, { establishedAfterUpdates: 5 }).k).toBe(16);
    expect(updateElo({ elo: 1200, updates: 5 }, 1, { establishedAfterUpdates: 5 }).k).toBe(8);
  });

  test.each([-0.1, 1.1, Number.NaN])('throws a RangeError naming outcome for %d', (bad) => {
    expect(() => updateElo({ elo: 1200, updates: 0 }, bad)).toThrow(/outcome must be in \[0,1\]/);
    expect(() => updateElo({ elo: 1200, updates: 0 }, bad)).toThrow(RangeError);
  });

  test('throws a RangeError for a bad stored state', () => {
    expect(() => updateElo({ elo: Number.NaN, updates: 0 }, 1)).toThrow(/elo must be/);
    expect(() => updateElo({ elo: 1200, updates: -1 }, 1)).toThrow(/updates must be/);
  });

  test('property: a use (outcome 1) never lowers a rating, a miss (outcome 0) never raises one', () => {
    fc.assert(
      fc.property(rating, updateCount, fc.integer({ min: 0, max: 100 }), rating, (elo, updates, after, referenceElo) => {
        const options = { establishedAfterUpdates: after, referenceElo };
        expect(updateElo({ elo, updates }, 1, options).elo).toBeGreaterThanOrEqual(elo);
        expect(updateElo({ elo, updates }, 0, options).elo).toBeLessThanOrEqual(elo);
      }),
    );
  });

  test('property: |delta| < K, and delta has the sign of outcome - expected', () => {
    fc.assert(
      fc.property(rating, updateCount, fc.double({ min: 0, max: 1, noNaN: true }), (elo, updates, outcome) => {
        const r = updateElo({ elo, updates }, outcome);
        expect(Math.abs(r.delta)).toBeLessThan(r.k);
        expect(Math.sign(r.delta)).toBe(Math.sign(outcome - r.expected));
      }),
    );
  });

  test('property: zero-sum when two items are rated against each other at the same K', () => {
    fc.assert(
      fc.property(rating, rating, updateCount, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, updates, outcome) => {
        const da = updateElo({ elo: a, updates }, outcome, { referenceElo: b }).delta;
        const db = updateElo({ elo: b, updates }, 1 - outcome, { referenceElo: a }).delta;
        expect(da + db).toBeCloseTo(0, 9);
      }),
    );
  });

  test.each([
    [0.5, 1200],
    [SIGMOID_1, 1600],
    [1 - SIGMOID_1, 800],
    [0.75, 1200 + 400 * Math.log(3)],
  ])('a steady outcome of %d settles at 1200 + 400·ln(p/(1-p)) = %d', (p, equilibrium) => {
    let state = { elo: 1200, updates: 0 };
    for (let i = 0; i < 5000; i++) state = updateElo(state, p);
    expect(state.elo).toBeCloseTo(equilibrium, 3);
  });
});

describe('rank boosts', () => {
  const table: [number, string, number][] = [
    [1, 'first', 16],
    [2, 'top5', 8],
    [5, 'top5', 8],
    [6, 'top10', 4],
    [10, 'top10', 4],
    [11, 'beyond', 0],
    [1000, 'beyond', 0],
  ];
  test.each(table)('rank %d is band %s, +%d', (rank, band, boost) => {
    expect(rankBand(rank)).toBe(band as ReturnType<typeof rankBand>);
    expect(rankBoost(rank)).toBe(boost);
    expect(applyRankBoost(1200, rank)).toEqual({ elo: 1200 + boost, delta: boost });
  });

  test('the table is the seed: +16, +8, +4, nothing', () => {
    expect(RANK_BOOST_BY_BAND).toEqual({ first: 16, top5: 8, top10: 4, beyond: 0 });
  });

  test.each([0, -1, 1.5, Number.NaN])('throws a RangeError naming rank for %d', (bad) => {
    expect(() => rankBoost(bad)).toThrow(/rank must be an integer >= 1/);
    expect(() => rankBoost(bad)).toThrow(RangeError);
  });

  test('applyRankBoost throws a RangeError naming elo for a non-finite rating', () => {
    expect(() => applyRankBoost(Number.NaN, 1)).toThrow(/elo must be/);
  });

  test('property: a better rank never earns a smaller boost', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 50 }), (a, b) => {
        expect(rankBoost(Math.min(a, b))).toBeGreaterThanOrEqual(rankBoost(Math.max(a, b)));
      }),
    );
  });
});

describe('driftTowardStart', () => {
  const halfLifeDays = Math.log(2) / -Math.log(0.99); // ≈ 68.97 days at 1%/day
  // start + (elo - start) * (1 - rate)^days
  const table: [number, number, number, number, number][] = [
    [1600, 1200, 0, 0.1, 1600], // no time, no drift
    [1600, 1200, 1, 0.1, 1560], // 1200 + 400 * 0.9
    [1600, 1200, 2, 0.1, 1524], // 1200 + 400 * 0.81
    [800, 1200, 1, 0.5, 1000], // 1200 - 400 * 0.5: from below, upward
    [1300, 1200, 0.5, 0.19, 1290], // 1200 + 100 * 0.81^0.5 = 1200 + 100 * 0.9
    [1400, 1200, halfLifeDays, 0.01, 1300], // half the gap after one half-life
    [1600, 1200, 10, 1, 1200], // rate 1: all the way at once
    [1600, 1200, 100, 0, 1600], // rate 0: never
    [1200, 1200, 30, 0.1, 1200], // already at the start
  ];
  test.each(table)('%d toward %d after %d days at %d/day => %d', (elo, start, days, rate, drifted) => {
    expect(driftTowardStart(elo, start, days, rate)).toBeCloseTo(drifted, 9);
  });

  test.each([
    [Number.NaN, 1200, 1, 0.1, /elo must be/],
    [1600, Number.NaN, 1, 0.1, /startElo must be/],
    [1600, 1200, -1, 0.1, /elapsedDays must be/],
    [1600, 1200, Number.POSITIVE_INFINITY, 0.1, /elapsedDays must be/],
    [1600, 1200, 1, -0.1, /ratePerDay must be in \[0,1\]/],
    [1600, 1200, 1, 1.1, /ratePerDay must be in \[0,1\]/],
    [1600, 1200, 1, Number.NaN, /ratePerDay must be in \[0,1\]/],
  ])('driftTowardStart(%d, %d, %d, %d) throws a RangeError matching %p', (elo, start, days, rate, message) => {
    expect(() => driftTowardStart(elo, start, days, rate)).toThrow(message);
    expect(() => driftTowardStart(elo, start, days, rate)).toThrow(RangeError);
  });

  const gap = fc.double({ min: 0, max: 5000, noNaN: true });
  const days = fc.double({ min: 0, max: 3650, noNaN: true });
  const rate = fc.double({ min: 0, max: 1, noNaN: true });

  test('property: from above, drift stays in [start, elo]', () => {
    fc.assert(
      fc.property(rating, gap, days, rate, (start, g, d, r) => {
        const elo = start + g;
        const drifted = driftTowardStart(elo, start, d, r);
        expect(drifted).toBeGreaterThanOrEqual(start);
        expect(drifted).toBeLessThanOrEqual(elo);
      }),
    );
  });

  test('property: from below, drift stays in [elo, start]', () => {
    fc.assert(
      fc.property(rating, gap, days, rate, (start, g, d, r) => {
        const elo = start - g;
        const drifted = driftTowardStart(elo, start, d, r);
        expect(drifted).toBeLessThanOrEqual(start);
        expect(drifted).toBeGreaterThanOrEqual(elo);
      }),
    );
  });

  test('property: more elapsed days never leave a rating further from its start', () => {
    fc.assert(
      fc.property(rating, rating, days, days, rate, (elo, start, a, b, r) => {
        const near = driftTowardStart(elo, start, Math.max(a, b), r);
        const far = driftTowardStart(elo, start, Math.min(a, b), r);
        expect(Math.abs(near - start)).toBeLessThanOrEqual(Math.abs(far - start));
      }),
    );
  });

  test('property: drifting a days then b days is drifting a + b days', () => {
    fc.assert(
      fc.property(rating, rating, days, days, rate, (elo, start, a, b, r) => {
        const twoSteps = driftTowardStart(driftTowardStart(elo, start, a, r), start, b, r);
        expect(twoSteps).toBeCloseTo(driftTowardStart(elo, start, a + b, r), 6);
      }),
    );
  });
});

describe('tiers', () => {
  const table: [number, EloTier][] = [
    [5000, 'HIGH'],
    [1600, 'HIGH'],
    [1599.999, 'MEDIUM'],
    [1200, 'MEDIUM'],
    [1199.999, 'LOW'],
    [800, 'LOW'],
    [799.999, 'VERY_LOW'],
    [0, 'VERY_LOW'],
    [-100, 'VERY_LOW'],
  ];
  test.each(table)('elo %d is %s', (elo, tier) => {
    expect(tierOf(elo)).toBe(tier);
  });

  test('initial ratings are the seed\'s, and VERY_LOW starts at 400', () => {
    expect(INITIAL_ELO_BY_TIER).toEqual({ HIGH: 1600, MEDIUM: 1200, LOW: 800, VERY_LOW: 400 });
  });

  test.each([...ELO_TIERS])('a new %s item starts in its own tier', (tier) => {
    expect(tierOf(INITIAL_ELO_BY_TIER[tier])).toBe(tier);
  });

  test.each([Number.NaN, Number.NEGATIVE_INFINITY])('tierOf(%d) throws a RangeError naming elo', (bad) => {
    expect(() => tierOf(bad)).toThrow(/elo must be a finite number/);
  });

  test('property: tiers are monotone in ELO', () => {
    fc.assert(
      fc.property(rating, rating, (a, b) => {
        const rankOf = (elo: number) => ELO_TIERS.indexOf(tierOf(elo));
        expect(rankOf(Math.max(a, b))).toBeLessThanOrEqual(rankOf(Math.min(a, b)));
      }),
    );
  });
});

describe('blendedScore', () => {
  // similarity * 0.7 + clamp(elo / 2000, 0, 1) * 0.3
  const table: [number, number, number][] = [
    [0.85, 1200, 0.775], // 0.595 + 0.6 * 0.3
    [0.5, 1600, 0.59], // 0.35 + 0.8 * 0.3
    [1, 2000, 1], // 0.7 + 0.3
    [0, 0, 0],
    [0.5, 3000, 0.65], // 0.35 + min(1, 1.5) * 0.3
    [0.5, -400, 0.35], // 0.35 + max(0, -0.2) * 0.3
  ];
  test.each(table)('similarity %d, elo %d => %d', (similarity, elo, score) => {
    expect(blendedScore(similarity, elo)).toBeCloseTo(score, 12);
  });

  test('weights are a parameter', () => {
    expect(DEFAULT_BLEND_WEIGHTS).toEqual({ similarity: 0.7, elo: 0.3, eloFullMarks: 2000 });
    expect(blendedScore(0.6, 500, { similarity: 0.5, elo: 0.5, eloFullMarks: 1000 })).toBeCloseTo(0.55, 12); // 0.3 + 0.5 * 0.5
  });

  test.each([
    ['similarity', { similarity: -0.1, elo: 0.3, eloFullMarks: 2000 }, /weights.similarity must be/],
    ['elo', { similarity: 0.7, elo: Number.NaN, eloFullMarks: 2000 }, /weights.elo must be/],
    ['eloFullMarks', { similarity: 0.7, elo: 0.3, eloFullMarks: 0 }, /weights.eloFullMarks must be/],
  ])('throws a RangeError naming the bad weight %s', (_name, weights, message) => {
    expect(() => blendedScore(0.5, 1200, weights)).toThrow(message);
    expect(() => blendedScore(0.5, 1200, weights)).toThrow(RangeError);
  });

  test('throws a RangeError naming a non-finite input', () => {
    expect(() => blendedScore(Number.NaN, 1200)).toThrow(/similarity must be/);
    expect(() => blendedScore(0.5, Number.POSITIVE_INFINITY)).toThrow(/elo must be/);
  });

  const similarity = fc.double({ min: -1, max: 1, noNaN: true });
  const weights = fc.record({
    similarity: fc.double({ min: 0, max: 1, noNaN: true }),
    elo: fc.double({ min: 0, max: 1, noNaN: true }),
    eloFullMarks: fc.double({ min: 1, max: 10_000, noNaN: true }),
  });

  test('property: monotone in similarity', () => {
    fc.assert(
      fc.property(similarity, similarity, rating, weights, (a, b, elo, w) => {
        expect(blendedScore(Math.max(a, b), elo, w)).toBeGreaterThanOrEqual(blendedScore(Math.min(a, b), elo, w));
      }),
    );
  });

  test('property: monotone in ELO', () => {
    fc.assert(
      fc.property(similarity, rating, rating, weights, (s, a, b, w) => {
        expect(blendedScore(s, Math.max(a, b), w)).toBeGreaterThanOrEqual(blendedScore(s, Math.min(a, b), w));
      }),
    );
  });
});
