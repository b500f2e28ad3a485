import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { GroupKey } from '../../src/scan/model/grouping';
import { OUTCOME_LABELS, type OutcomeLabel } from '../../src/scan/model/outcome';
import { REWARD_BY_LABEL } from '../../src/scan/model/reward';
import { TriagePrior, triageLevelIds } from '../../src/scan/model/triage-prior';

const key = (over: Partial<GroupKey> = {}): GroupKey => ({
  project: 'payments',
  scanner: 'semgrep',
  model_provider: 'openai',
  model_name: 'gpt-4o',
  category: 'sql-injection',
  ...over,
});

function addMany(prior: TriagePrior, k: GroupKey, label: OutcomeLabel, times: number): void {
  for (let i = 0; i < times; i++) prior.add(k, label);
}

describe('TriagePrior', () => {
  test('with no evidence every label is equally likely and the expected reward is the mean base reward', () => {
    const estimate = new TriagePrior(10).estimate(key());
    for (const label of OUTCOME_LABELS) expect(estimate.label_probabilities[label]).toBeCloseTo(0.2, 12);
    expect(estimate.p_false_positive).toBeCloseTo(0.2, 12);
    // (1 + 0.5 + 0 - 0.7 - 1) / 5
    expect(estimate.expected_reward).toBeCloseTo(-0.04, 12);
    expect(estimate.evidence_n).toBe(0);
    expect(estimate.evidence.map((e) => e.level)).toEqual(['group', 'scanner_category', 'scanner', 'global']);
  });

  test('golden: shrinkage from the root down', () => {
    const prior = new TriagePrior(10);
    addMany(prior, key(), 'rejected_fp', 5);
    addMany(prior, key(), 'fixed', 5);
    // global (5 + 10·0.2)/20 = 0.35; scanner (5 + 3.5)/20 = 0.425; scanner+category (5 + 4.25)/20 = 0.4625;
    // group (5 + 4.625)/20 = 0.48125
    const estimate = prior.estimate(key());
    expect(estimate.p_false_positive).toBeCloseTo(0.48125, 12);
    expect(estimate.evidence.map((e) => [e.n, e.false_positives, e.weight])).toEqual([
      [10, 5, 0.5],
      [10, 5, 0.5],
      [10, 5, 0.5],
      [10, 5, 0.5],
    ]);
    // fixed: global (5 + 2)/20 = 0.35, then 0.425, 0.4625, 0.48125; the other three labels share the rest.
    expect(estimate.label_probabilities.fixed).toBeCloseTo(0.48125, 12);
    const rest = (1 - 2 * 0.48125) / 3;
    expect(estimate.label_probabilities.accepted).toBeCloseTo(rest, 12);
    expect(estimate.expected_reward).toBeCloseTo(0.48125 * (1 - 0.7) + rest * (0.5 + 0 - 1), 12);
  });

  test('a new project starts from what the scanner showed elsewhere', () => {
    const prior = new TriagePrior(10);
    addMany(prior, key({ project: 'billing' }), 'rejected_fp', 90);
    addMany(prior, key({ project: 'billing' }), 'fixed', 10);
    const fresh = prior.estimate(key({ project: 'brand-new' }));
    expect(fresh.evidence_n).toBe(0);
    const parent = prior.estimate(key({ project: 'billing', model_name: 'another' }));
    // no evidence in the group: exactly the scanner+category level, the same for any unseen group below it
    expect(fresh.p_false_positive).toBeCloseTo(parent.p_false_positive, 12);
    expect(fresh.p_false_positive).toBeGreaterThan(0.8);
  });

  test('lots of evidence: the group rate wins over a very different parent', () => {
    const prior = new TriagePrior(10);
    addMany(prior, key({ project: 'other' }), 'fixed', 5000);
    addMany(prior, key(), 'rejected_fp', 900);
    addMany(prior, key(), 'fixed', 100);
    expect(prior.estimate(key()).p_false_positive).toBeGreaterThan(0.89);
    expect(prior.estimate(key()).p_false_positive).toBeLessThan(0.9);
    expect(prior.estimate(key({ project: 'other' })).p_false_positive).toBeLessThan(0.01);
  });

  test('the finding confidence weights the expected reward', () => {
    const prior = new TriagePrior(10);
    addMany(prior, key(), 'fixed', 50);
    const low = prior.estimate(key(), 0).expected_reward;
    const high = prior.estimate(key(), 1).expected_reward;
    const p = prior.estimate(key()).label_probabilities;
    const base = OUTCOME_LABELS.reduce((s, l) => s + p[l] * REWARD_BY_LABEL[l], 0);
    expect(high).toBeCloseTo(base, 12);
    expect(low).toBeCloseTo(base / 2, 12);
  });

  test('a category-less group has its own scanner+category level', () => {
    const ids = triageLevelIds(key({ category: null }));
    expect(ids.scanner_category).toBe('["scanner_category","semgrep",null]');
    expect(ids.group).toBe('["payments","semgrep","openai","gpt-4o",null]');
    expect(new Set(Object.values(triageLevelIds(key()))).size).toBe(4);
  });

  test('strength must be positive', () => {
    expect(() => new TriagePrior(0)).toThrow(/strength/);
    expect(() => new TriagePrior(Number.NaN)).toThrow(/strength/);
  });

  test('globalFalsePositiveRate is the root level alone', () => {
    const prior = new TriagePrior(10);
    expect(prior.globalFalsePositiveRate()).toBeCloseTo(0.2, 12);
    addMany(prior, key(), 'rejected_fp', 30);
    addMany(prior, key({ scanner: 'codeql' }), 'fixed', 60);
    // (30 + 2) / (90 + 10)
    expect(prior.globalFalsePositiveRate()).toBeCloseTo(0.32, 12);
    expect(prior.estimate(key({ scanner: 'unseen' })).evidence[3]?.n).toBe(90);
  });

  const labelArb = fc.constantFrom(...OUTCOME_LABELS);
  const keyArb = fc.record({
    project: fc.constantFrom('a', 'b'),
    scanner: fc.constantFrom('s1', 's2'),
    model_provider: fc.constant('p'),
    model_name: fc.constantFrom('m1', 'm2'),
    category: fc.constantFrom('c1', null),
  });
  const historyArb = fc.array(fc.tuple(keyArb, labelArb), { maxLength: 80 });

  test('property: probabilities are finite, in [0,1] and sum to 1', () => {
    fc.assert(
      fc.property(historyArb, keyArb, fc.double({ min: 0.5, max: 100, noNaN: true }), fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }), (history, k, strength, confidence) => {
        const prior = new TriagePrior(strength);
        for (const [hk, label] of history) prior.add(hk, label);
        const e = prior.estimate(k, confidence);
        const values = Object.values(e.label_probabilities);
        for (const v of values) {
          expect(Number.isFinite(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
        expect(Number.isFinite(e.expected_reward)).toBe(true);
      }),
    );
  });

  test('property: a false positive never lowers the estimate, any other label never raises it', () => {
    fc.assert(
      fc.property(historyArb, keyArb, labelArb, (history, k, label) => {
        const prior = new TriagePrior(10);
        for (const [hk, l] of history) prior.add(hk, l);
        const before = prior.estimate(k).p_false_positive;
        prior.add(k, label);
        const after = prior.estimate(k).p_false_positive;
        if (label === 'rejected_fp') expect(after).toBeGreaterThanOrEqual(before - 1e-12);
        else expect(after).toBeLessThanOrEqual(before + 1e-12);
      }),
    );
  });

  test('property: monotone in evidence — more of the same group rate moves the estimate toward it', () => {
    fc.assert(
      fc.property(historyArb, fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 20 }), (history, size, fpRaw) => {
        const fps = Math.min(fpRaw, size);
        const prior = new TriagePrior(10);
        for (const [hk, l] of history) prior.add({ ...hk, project: `other-${hk.project}` }, l);
        const rate = fps / size;
        let distance = Math.abs(prior.estimate(key()).p_false_positive - rate);
        for (let round = 0; round < 5; round++) {
          addMany(prior, key(), 'rejected_fp', fps);
          addMany(prior, key(), 'fixed', size - fps);
          const next = Math.abs(prior.estimate(key()).p_false_positive - rate);
          expect(next).toBeLessThanOrEqual(distance + 1e-12);
          distance = next;
        }
      }),
    );
  });
});
