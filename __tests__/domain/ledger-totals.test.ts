import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type LedgerTransaction, nextTransaction } from '../../src/ledger/model/chain';
import { type LedgerEntryInput } from '../../src/ledger/model/chain';
import { categoryBreakdown, emptyFold, foldFromStore, foldToStore, foldTransactions, history, ledgerMetrics, ledgerTotals, metricsOfFold, totalsOfFold } from '../../src/ledger/model/totals';

function entry(type: 'reward' | 'penalty', category: string, points: number): LedgerEntryInput {
  return { type, category, points, action: `${category} ${points}`, source: 'rule', source_ref: `rule-${category}` };
}

function buildChain(rows: readonly (readonly [LedgerEntryInput, string])[]): LedgerTransaction[] {
  const chain: LedgerTransaction[] = [];
  for (const [e, ts] of rows) chain.push(nextTransaction(chain.at(-1) ?? null, e, ts));
  return chain;
}

// Hand-built ledger; running totals 50, 40, 65, 45, 75.
const LEDGER = buildChain([
  [entry('reward', 'constitutional_compliance', 50), '2026-03-01T09:00:00Z'],
  [entry('penalty', 'file_creation_violation', -10), '2026-03-01T09:30:00Z'],
  [entry('reward', 'zero_duplication', 25), '2026-03-02T10:00:00Z'],
  [entry('penalty', 'validation_failure', -20), '2026-03-02T10:05:00Z'],
  [entry('reward', 'constitutional_compliance', 30), '2026-03-02T10:10:00Z'],
]);
const SESSION_START_MS = Date.parse('2026-03-02T10:00:00Z'); // tx-3 starts the session (inclusive)

const CATEGORIES = ['constitutional_compliance', 'zero_duplication', 'validation_failure', 'mcp_omission'] as const;
const entryArb: fc.Arbitrary<LedgerEntryInput> = fc
  .record({ type: fc.constantFrom('reward' as const, 'penalty' as const), category: fc.constantFrom(...CATEGORIES), magnitude: fc.integer({ min: 1, max: 1000 }) })
  .map(({ type, category, magnitude }) => entry(type, category, type === 'reward' ? magnitude : -magnitude));
const timestampArb = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms).toISOString());
const chainArb = fc.array(fc.tuple(entryArb, timestampArb), { maxLength: 30 }).map(buildChain);
const sessionStartArb = fc.integer({ min: Date.UTC(2019, 0, 1), max: Date.UTC(2031, 0, 1) });

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('ledgerTotals', () => {
  test('golden: the five-transaction ledger', () => {
    expect(ledgerTotals(LEDGER, SESSION_START_MS)).toEqual({
      total_score: 75, // 105 - 30
      session_score: 35, // tx-3..5: 25 - 20 + 30
      lifetime_score: 75, // never truncated: the same set as total
      rewards: {
        total_earned: 105, // 50 + 25 + 30
        session_earned: 55, // 25 + 30
        lifetime_earned: 105,
        by_category: { constitutional_compliance: 80, zero_duplication: 25 }, // 50 + 30; 25
      },
      penalties: {
        total_incurred: -30, // -10 - 20
        session_incurred: -20,
        lifetime_incurred: -30,
        by_category: { file_creation_violation: -10, validation_failure: -20 },
      },
      checksum: { calculated_total: 75, stored_total: 75, is_valid: true }, // 105 + (-30); running_total of tx-5
    });
  });

  // [session start, session_score, session_earned, session_incurred]
  const sessions: [string, number, number, number, number][] = [
    ['before everything', Number.NEGATIVE_INFINITY, 75, 105, -30],
    ['at tx-2 (inclusive)', Date.parse('2026-03-01T09:30:00Z'), 25, 55, -30],
    ['one millisecond after tx-3', SESSION_START_MS + 1, 10, 30, -20],
    ['after everything', Date.parse('2026-03-03T00:00:00Z'), 0, 0, 0],
  ];
  test.each(sessions)('session starting %s', (_name, startMs, score, earned, incurred) => {
    const totals = ledgerTotals(LEDGER, startMs);
    expect([totals.session_score, totals.rewards.session_earned, totals.penalties.session_incurred]).toEqual([score, earned, incurred]);
    expect(totals.total_score).toBe(75);
  });

  test('the session compares instants, not text: a +02:00 timestamp counts by its UTC time', () => {
    const chain = buildChain([[entry('reward', 'zero_duplication', 7), '2026-03-02T11:30:00+02:00']]); // 09:30Z
    expect(ledgerTotals(chain, SESSION_START_MS).session_score).toBe(0);
    expect(ledgerTotals(chain, Date.parse('2026-03-02T09:30:00Z')).session_score).toBe(7);
  });

  test('an empty ledger is all zeros and a valid checksum', () => {
    expect(ledgerTotals([], 0)).toEqual({
      total_score: 0,
      session_score: 0,
      lifetime_score: 0,
      rewards: { total_earned: 0, session_earned: 0, lifetime_earned: 0, by_category: {} },
      penalties: { total_incurred: 0, session_incurred: 0, lifetime_incurred: 0, by_category: {} },
      checksum: { calculated_total: 0, stored_total: 0, is_valid: true },
    });
  });

  test('a stored running_total that disagrees with the points fails the checksum', () => {
    const edited = LEDGER.map((tx, i) => (i === 4 ? { ...tx, running_total: 999 } : tx));
    expect(ledgerTotals(edited, SESSION_START_MS).checksum).toEqual({ calculated_total: 75, stored_total: 999, is_valid: false });
  });

  test('by_category keys are sorted', () => {
    expect(Object.keys(ledgerTotals([...LEDGER].reverse(), 0).rewards.by_category)).toEqual(['constitutional_compliance', 'zero_duplication']);
  });

  test('throws on a NaN session start and on an unparseable timestamp, naming the transaction', () => {
    expect(() => ledgerTotals(LEDGER, Number.NaN)).toThrow(/sessionStartMs/);
    const broken = LEDGER.map((tx, i) => (i === 1 ? { ...tx, timestamp: 'yesterday' } : tx));
    expect(() => ledgerTotals(broken, 0)).toThrow('tx-2: timestamp "yesterday"');
  });

  test('property: scores add up, checksum holds, signs and session bounds respected', () => {
    fc.assert(
      fc.property(chainArb, sessionStartArb, (chain, startMs) => {
        const t = ledgerTotals(chain, startMs);
        const points = sum(chain.map((tx) => tx.points));
        expect(t.checksum).toEqual({ calculated_total: points, stored_total: chain.at(-1)?.running_total ?? 0, is_valid: true });
        expect(t.total_score).toBe(t.rewards.total_earned + t.penalties.total_incurred);
        expect(t.session_score).toBe(t.rewards.session_earned + t.penalties.session_incurred);
        expect([t.lifetime_score, t.rewards.lifetime_earned, t.penalties.lifetime_incurred]).toEqual([t.total_score, t.rewards.total_earned, t.penalties.total_incurred]);
        expect(sum(Object.values(t.rewards.by_category))).toBe(t.rewards.total_earned);
        expect(sum(Object.values(t.penalties.by_category))).toBe(t.penalties.total_incurred);
        expect(t.rewards.session_earned).toBeGreaterThanOrEqual(0);
        expect(t.rewards.session_earned).toBeLessThanOrEqual(t.rewards.total_earned);
        expect(t.penalties.session_incurred).toBeLessThanOrEqual(0);
        expect(t.penalties.session_incurred).toBeGreaterThanOrEqual(t.penalties.total_incurred);
      }),
    );
  });
});

describe('ledgerMetrics', () => {
  test('golden: 3 rewards, 2 penalties', () => {
    expect(ledgerMetrics(LEDGER)).toEqual({
      actions_total: 5,
      actions_successful: 3,
      actions_failed: 2,
      success_rate: 60, // 3 / 5
      learning_efficiency: 77.8, // 105 / (105 + 30) = 77.78
    });
  });

  test('reproduces the seed: 33 rewards earning 450 and 12 penalties costing 165 give 73.3 and 73.2', () => {
    const rows: [LedgerEntryInput, string][] = [
      ...Array.from({ length: 30 }, () => entry('reward', 'zero_duplication', 14)), // 420
      ...Array.from({ length: 3 }, () => entry('reward', 'constitutional_compliance', 10)), // 30
      ...Array.from({ length: 11 }, () => entry('penalty', 'validation_failure', -14)), // -154
      entry('penalty', 'mcp_omission', -11), // -11
    ].map((e) => [e, '2025-10-13T12:24:00+05:30']);
    expect(ledgerMetrics(buildChain(rows))).toEqual({
      actions_total: 45,
      actions_successful: 33,
      actions_failed: 12,
      success_rate: 73.3, // 33 / 45 = 73.33
      learning_efficiency: 73.2, // 450 / 615 = 73.17
    });
  });

  // [name, ledger, success_rate, learning_efficiency]
  const edges: [string, LedgerTransaction[], number, number][] = [
    ['no actions', [], 0, 0],
    ['only rewards', buildChain([[entry('reward', 'zero_duplication', 5), '2026-01-01T00:00:00Z']]), 100, 100],
    ['only penalties', buildChain([[entry('penalty', 'mcp_omission', -5), '2026-01-01T00:00:00Z']]), 0, 0],
  ];
  test.each(edges)('%s', (_name, ledger, successRate, efficiency) => {
    expect(ledgerMetrics(ledger)).toMatchObject({ success_rate: successRate, learning_efficiency: efficiency });
  });

  test('property: counts add up and both percentages are in [0, 100] with one decimal', () => {
    fc.assert(
      fc.property(chainArb, (chain) => {
        const m = ledgerMetrics(chain);
        expect(m.actions_successful + m.actions_failed).toBe(chain.length);
        expect(m.actions_total).toBe(chain.length);
        for (const pct of [m.success_rate, m.learning_efficiency]) {
          expect(pct).toBeGreaterThanOrEqual(0);
          expect(pct).toBeLessThanOrEqual(100);
          expect(Math.round(pct * 10) / 10).toBe(pct);
        }
      }),
    );
  });
});

describe('categoryBreakdown', () => {
  test('equals the by_category objects of the totals', () => {
    const totals = ledgerTotals(LEDGER, 0);
    expect(categoryBreakdown(LEDGER)).toEqual({ rewards: totals.rewards.by_category, penalties: totals.penalties.by_category });
    expect(categoryBreakdown(LEDGER)).toEqual({
      rewards: { constitutional_compliance: 80, zero_duplication: 25 },
      penalties: { file_creation_violation: -10, validation_failure: -20 },
    });
  });
});

describe('history', () => {
  // [query, ids returned]
  const table: [Parameters<typeof history>[1], string[]][] = [
    [{ limit: 2 }, ['tx-5', 'tx-4']],
    [{ limit: 10 }, ['tx-5', 'tx-4', 'tx-3', 'tx-2', 'tx-1']],
    [{ limit: 0 }, []],
    [{ limit: 10, category: 'constitutional_compliance' }, ['tx-5', 'tx-1']],
    [{ limit: 1, category: 'constitutional_compliance' }, ['tx-5']],
    [{ limit: 10, category: 'unknown' }, []],
  ];
  test.each(table)('%o', (query, ids) => {
    expect(history(LEDGER, query).map((tx) => tx.id)).toEqual(ids);
  });

  test('newest first by sequence, whatever the stored order, without touching the input', () => {
    const reversed = [...LEDGER].reverse();
    expect(history(reversed, { limit: 3 }).map((tx) => tx.id)).toEqual(['tx-5', 'tx-4', 'tx-3']);
    expect(reversed.map((tx) => tx.id)).toEqual(['tx-5', 'tx-4', 'tx-3', 'tx-2', 'tx-1']);
  });

  test.each([-1, 1.5, Number.NaN])('throws on limit %p', (limit) => {
    expect(() => history(LEDGER, { limit })).toThrow(/limit must be a non-negative integer/);
  });

  test('property: the newest min(limit, matching) rows of the category, newest first', () => {
    fc.assert(
      fc.property(chainArb, fc.integer({ min: 0, max: 40 }), fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }), (chain, limit, category) => {
        const rows = history(chain, { limit, category });
        const matching = chain.filter((tx) => category === undefined || tx.category === category);
        expect(rows.length).toBe(Math.min(limit, matching.length));
        expect(rows.every((tx) => category === undefined || tx.category === category)).toBe(true);
        expect(rows).toEqual([...matching].reverse().slice(0, limit)); // the chain is in sequence order
      }),
    );
  });
});

describe('foldTransactions', () => {
  test('property: folding a ledger chunk by chunk gives the totals and metrics of the whole, and leaves earlier folds unchanged', () => {
    fc.assert(
      fc.property(chainArb, sessionStartArb, fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 5 }), (chain, sessionStartMs, cuts) => {
        const bounds = [...new Set([0, ...cuts.map((c) => Math.min(c, chain.length)), chain.length])].sort((a, b) => a - b);
        let fold = emptyFold(sessionStartMs);
        const folds = [fold];
        for (let i = 1; i < bounds.length; i++) {
          fold = foldTransactions(fold, chain.slice(bounds[i - 1], bounds[i]));
          folds.push(fold);
        }
        expect(totalsOfFold(fold)).toEqual(ledgerTotals(chain, sessionStartMs));
        expect(metricsOfFold(fold)).toEqual(ledgerMetrics(chain));
        expect([fold.count, fold.lastSequence, fold.lastHash]).toEqual([chain.length, chain.at(-1)?.sequence ?? 0, chain.at(-1)?.hash ?? null]);
        // Each fold still describes its own prefix.
        for (const [i, f] of folds.entries()) expect(totalsOfFold(f)).toEqual(ledgerTotals(chain.slice(0, bounds[i] ?? chain.length), sessionStartMs));
      }),
    );
  });
});

describe('a fold stored between processes', () => {
  test('property: stored after a prefix, read back by a later session and folded on, it gives the totals and metrics of the whole', () => {
    fc.assert(
      fc.property(chainArb, fc.integer({ min: 1, max: 30 }), (chain, cut) => {
        if (chain.length === 0) return;
        const prefix = chain.slice(0, Math.min(cut, chain.length));
        const latest = Math.max(...chain.map((t) => Date.parse(t.timestamp)));
        const stored = foldToStore(foldTransactions(emptyFold(0), prefix));
        const read = foldFromStore(JSON.parse(JSON.stringify(stored)), latest + 1);
        expect(read).not.toBeNull();
        const whole = foldTransactions(read as NonNullable<typeof read>, chain.slice(prefix.length));
        expect(totalsOfFold(whole)).toEqual(ledgerTotals(chain, latest + 1));
        expect(metricsOfFold(whole)).toEqual(ledgerMetrics(chain));
      }),
    );
  });

  test('refused: nothing folded yet, malformed, or holding a transaction of the reading session', () => {
    expect(foldToStore(emptyFold(0))).toBeNull();
    for (const bad of [null, 'x', {}, { count: 'many' }]) expect(foldFromStore(bad, 0)).toBeNull();
    const stored = { count: 1, rewards: 1, lastSequence: 1, lastHash: 'h', storedTotal: 5, earned: 5, incurred: 0, latestMs: 1_000, rewardByCategory: { a: 5 }, penaltyByCategory: {} };
    expect(foldFromStore(stored, 1_001)).not.toBeNull();
    expect(foldFromStore(stored, 1_000)).toBeNull();
    expect(foldFromStore({ ...stored, rewardByCategory: { a: 'five' } }, 1_001)).toBeNull();
  });
});
