import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  ruleConfidenceAt,
  DEFAULT_DECAY_POLICY,
  ruleAfterDecay,
  injectableRuleConfidence,
  isInjectable,
  ruleAfterViolation,
  REVIEW_THRESHOLD,
  RULE_START_CONFIDENCE,
  ruleAfterValidation,
} from '../../src/rules/model/rule-confidence';
import { DAY, makeRule, T0 } from '../helpers/rule-fixtures';

const days = fc.double({ min: 0, max: 3650, noNaN: true });
const policy = fc.record({ graceDays: fc.double({ min: 0, max: 60, noNaN: true }), halfLifeDays: fc.double({ min: 0.5, max: 365, noNaN: true }) });

describe('ruleConfidenceAt', () => {
  // 0.9 × 0.5^((days − 7) / 30)
  const table: [number, number][] = [
    [-5, 0.9], // validated "in the future": no decay
    [0, 0.9],
    [7, 0.9], // last day of grace
    [8, 0.9 * 0.5 ** (1 / 30)],
    [37, 0.45], // one half-life after grace
    [67, 0.225],
    [7 + 30 * Math.log2(0.9 / 0.5), 0.5], // where it reaches the review threshold, ≈ 32.44 days
    [97, 0.1125],
  ];
  test.each(table)('%d days after validation => %d', (elapsedDays, expected) => {
    expect(ruleConfidenceAt(T0, T0 + elapsedDays * DAY)).toBeCloseTo(expected, 12);
  });

  test('where the power underflows, the floor is the smallest positive double, not 0', () => {
    expect(ruleConfidenceAt(T0, T0 + 1e9 * DAY)).toBe(Number.MIN_VALUE);
  });

  test('defaults: 7 days of grace, 30-day half-life, start 0.9, review below 0.5', () => {
    expect(DEFAULT_DECAY_POLICY).toEqual({ graceDays: 7, halfLifeDays: 30 });
    expect([RULE_START_CONFIDENCE, REVIEW_THRESHOLD]).toEqual([0.9, 0.5]);
  });

  test.each([
    [{ graceDays: -1, halfLifeDays: 30 }, /graceDays/],
    [{ graceDays: 7, halfLifeDays: 0 }, /halfLifeDays/],
    [{ graceDays: Number.NaN, halfLifeDays: 30 }, /graceDays/],
  ])('a bad policy %p throws naming the field', (bad, message) => {
    expect(() => ruleConfidenceAt(T0, T0, bad)).toThrow(message);
  });

  test('property: bounded in (0, 0.9] and non-increasing in time', () => {
    fc.assert(
      fc.property(days, days, policy, (a, b, p) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        const cEarly = ruleConfidenceAt(T0, T0 + early * DAY, p);
        const cLate = ruleConfidenceAt(T0, T0 + late * DAY, p);
        expect(cLate).toBeGreaterThan(0);
        expect(cEarly).toBeLessThanOrEqual(0.9);
        expect(cLate).toBeLessThanOrEqual(cEarly);
      }),
    );
  });
});

describe('ruleAfterDecay', () => {
  test('sets the score and flags below the review threshold', () => {
    const rule = makeRule({ id: 'R-001' });
    expect(ruleAfterDecay(rule, T0 + 20 * DAY)).toMatchObject({ confidenceScore: expect.closeTo(0.9 * 0.5 ** (13 / 30), 12), reviewFlagged: false });
    expect(ruleAfterDecay(rule, T0 + 33 * DAY)).toMatchObject({ reviewFlagged: true });
  });

  test('a review flag stays until validation', () => {
    const flagged = makeRule({ id: 'R-001', reviewFlagged: true });
    expect(ruleAfterDecay(flagged, T0).reviewFlagged).toBe(true);
    expect(ruleAfterValidation(flagged, T0).reviewFlagged).toBe(false);
  });

  test('property: a skipped run changes nothing (day a then day b equals day b)', () => {
    fc.assert(
      fc.property(days, days, policy, (a, b, p) => {
        const [first, second] = a <= b ? [a, b] : [b, a];
        const rule = makeRule({ id: 'R-001' });
        expect(ruleAfterDecay(ruleAfterDecay(rule, T0 + first * DAY, p), T0 + second * DAY, p)).toEqual(ruleAfterDecay(rule, T0 + second * DAY, p));
      }),
    );
  });

  test('property: validation resets to 0.9 and restarts the clock', () => {
    fc.assert(
      fc.property(days, days, (before, after) => {
        const decayed = ruleAfterDecay(makeRule({ id: 'R-001', validationCount: 2 }), T0 + before * DAY);
        const validated = ruleAfterValidation(decayed, T0 + before * DAY);
        expect(validated).toMatchObject({ confidenceScore: 0.9, validationCount: 3, lastValidatedMs: T0 + before * DAY, lastCheckedMs: T0 + before * DAY, reviewFlagged: false });
        expect(ruleAfterDecay(validated, T0 + (before + after) * DAY).confidenceScore).toBeCloseTo(ruleConfidenceAt(T0, T0 + after * DAY), 12);
      }),
    );
  });
});

test('ruleAfterViolation counts and touches last checked only', () => {
  const rule = makeRule({ id: 'R-001', violations: 2 });
  expect(ruleAfterViolation(rule, T0 + DAY)).toEqual({ ...rule, violations: 3, lastCheckedMs: T0 + DAY });
});

describe('isInjectable', () => {
  const table: [string, Parameters<typeof makeRule>[0], number, boolean][] = [
    ['fresh', { id: 'R-1' }, 0, true],
    ['retired', { id: 'R-1', status: 'retired' }, 0, false],
    ['flagged', { id: 'R-1', reviewFlagged: true }, 0, false],
    ['in a conflict', { id: 'R-1', conflictsWith: ['R-2'] }, 0, false],
    ['decayed to just above 0.5', { id: 'R-1' }, 32, true],
    ['decayed below 0.5 though its stored score is stale', { id: 'R-1', confidenceScore: 0.9 }, 33, false],
  ];
  test.each(table)('%s', (_name, patch, elapsedDays, expected) => {
    const rule = makeRule(patch);
    expect(isInjectable(rule, T0 + elapsedDays * DAY)).toBe(expected);
    expect(injectableRuleConfidence(rule, T0 + elapsedDays * DAY) !== null).toBe(expected);
  });
});
