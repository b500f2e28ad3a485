import { describe, expect, test } from 'bun:test';
import { checkEntry } from '../../src/ledger/model/chain';
import { claimKeyOf } from '../../src/ledger/model/claims';
import { LEDGER_CATEGORY_BY_LABEL, outcomeLedgerEntry, ruleIdOfVerdictRef, ruleLedgerEntry, ruleVerdictRef, trajectoryLedgerEntry } from '../../src/ledger/model/entries';
import { OUTCOME_LABELS } from '../../src/scan/model/outcome';
import { weightedReward } from '../../src/scan/model/reward';
import { DEFAULT_LEDGER_CATEGORIES } from '../../src/ledger/reward-ledger-service';

const outcome = (label: (typeof OUTCOME_LABELS)[number], confidence?: number) => ({ id: 'o-1', label, reward: weightedReward(label, confidence), findingKey: 'F-1' });

describe('ledger entries from outcomes and trajectories', () => {
  test.each([
    ['fixed', undefined, 'reward', 'finding_fixed', 100],
    ['accepted', undefined, 'reward', 'finding_accepted', 50],
    ['rejected_fp', undefined, 'penalty', 'false_positive', -70],
    ['reopened', undefined, 'penalty', 'finding_reopened', -100],
    ['rejected_fp', 1, 'penalty', 'false_positive', -70],
    ['fixed', 0, 'reward', 'finding_fixed', 50],
    ['rejected_fp', 0.2, 'penalty', 'false_positive', -42], // -0.7 × 0.6 = -0.42
  ] as const)('%s (confidence %p) => %s %s %d', (label, confidence, type, category, points) => {
    expect(outcomeLedgerEntry(outcome(label, confidence))).toEqual({ type, category, points, action: `finding F-1 labelled ${label}`, source: 'scan_outcome', source_ref: 'o-1' });
  });

  test('ignored earns nothing and is not recorded; neither is a reward that rounds to 0', () => {
    expect(outcomeLedgerEntry(outcome('ignored'))).toBeNull();
    expect(outcomeLedgerEntry({ id: 'o-2', label: 'fixed', reward: 0.004, findingKey: 'F-2' })).toBeNull();
  });

  test('every entry an outcome can make passes the ledger checks with the default categories', () => {
    const registry = new Set<string>(DEFAULT_LEDGER_CATEGORIES);
    for (const label of OUTCOME_LABELS) {
      const entry = outcomeLedgerEntry(outcome(label));
      if (LEDGER_CATEGORY_BY_LABEL[label] === null) expect(entry).toBeNull();
      else expect(checkEntry(entry, registry).ok).toBe(true);
    }
    expect(checkEntry(trajectoryLedgerEntry({ id: 't-1', accepted: true, totalSats: 410, quality: 0.8 }), registry).ok).toBe(true);
  });

  test('an accepted trajectory is a reward of its sats; a refused one is not recorded', () => {
    expect(trajectoryLedgerEntry({ id: 't-1', accepted: true, totalSats: 410, quality: 0.8 })).toEqual({
      type: 'reward',
      category: 'trajectory_accepted',
      points: 410,
      action: 'trajectory accepted with quality 0.80',
      source: 'trajectory',
      source_ref: 't-1',
    });
    expect(trajectoryLedgerEntry({ id: 't-2', accepted: false, totalSats: 410, quality: 0.4 })).toBeNull();
  });

  test('a rule verdict is its own source record: the n-th validation or violation of the rule', () => {
    expect(ruleLedgerEntry({ ruleId: 'R-007', verdict: 'validated', occurrence: 3, context: 'guard G-1' })).toEqual({
      type: 'reward',
      category: 'rule_validated',
      points: 10,
      action: 'rule R-007 validated (guard G-1)',
      source: 'rule',
      source_ref: 'R-007#3',
    });
    expect(ruleLedgerEntry({ ruleId: 'R-007', verdict: 'violated', occurrence: 1, context: 'reported' })).toMatchObject({ type: 'penalty', category: 'rule_violated', points: -20, source_ref: 'R-007#1' });
    const [second, third] = [2, 3].map((n) => ruleLedgerEntry({ ruleId: 'R-007', verdict: 'validated', occurrence: n, context: 'x' }));
    expect(claimKeyOf(second as NonNullable<typeof second>)).not.toBe(claimKeyOf(third as NonNullable<typeof third>));
  });

  test.each([
    ['R-007', 2, 'R-007'],
    ['rule#with#hashes', 5, 'rule#with#hashes'],
  ])('ruleIdOfVerdictRef(ruleVerdictRef(%p, %p)) = %p; a bare id names itself', (id, n, back) => {
    expect(ruleIdOfVerdictRef(ruleVerdictRef(id, n))).toBe(back);
    expect(ruleIdOfVerdictRef('R-001')).toBe('R-001');
  });

  test('claim keys tell apart texts that a separator would confuse', () => {
    expect(claimKeyOf({ source: 'a', source_ref: 'b","c', category: 'x' })).not.toBe(claimKeyOf({ source: 'a","b', source_ref: 'c', category: 'x' }));
  });
});
