// The ledger's totals and metrics are kept as a fold of the transactions read so far and extended
// by the ones appended since, by this service or another on the same database; a ledger cut back
// is folded again. Verification reads the ledger a page at a time. Each figure is checked against
// the same figure computed from every row at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { ledgerMetrics, ledgerTotals } from '../../src/ledger/model/totals';
import { RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { LedgerStore } from '../../src/ledger/ledger-store';
import { ledgerFold, ledgerHead, ledgerTable } from '../../src/ledger/tables';
import { dbOf } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { testEvent } from '../helpers/test-events';

let agent: TestAgent;
let first: RewardLedgerService;
let second: RewardLedgerService;

const event = testEvent;

async function fromEveryRow() {
  const txs = await new LedgerStore(dbOf(agent.runtime), agent.runtime.agentId).after(0, Number.MAX_SAFE_INTEGER);
  return { totals: ledgerTotals(txs, 0), metrics: ledgerMetrics(txs) };
}

beforeAll(async () => {
  agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
  first = await rewardLedgerOf(agent.runtime);
  second = await RewardLedgerService.start(agent.runtime);
  for (const l of [first, second]) l.registerSource('test_event', async (refs) => new Set(refs));
});
afterAll(async () => {
  await second.stop();
  await agent.close();
});

describe('ledger totals, folded as the ledger grows', () => {
  test("appends by another service on the same database show in this one's totals and metrics", async () => {
    await first.appendMany(Array.from({ length: 40 }, (_, i) => event(`a-${i}`, i % 4 === 0 ? -3 : 5)));
    const before = await first.totals();
    expect(before.total_score).toBe(10 * -3 + 30 * 5);
    await second.appendMany(Array.from({ length: 25 }, (_, i) => event(`b-${i}`, i % 5 === 0 ? -7 : 2)));
    const expected = await fromEveryRow();
    expect(await first.totals()).toEqual(expected.totals);
    expect(await first.metrics()).toEqual(expected.metrics);
    expect((await first.metrics()).actions_total).toBe(65);
  });

  test('a ledger cut back behind the cached fold is folded again from the start', async () => {
    const db = dbOf(agent.runtime);
    await first.totals();
    // Remove the newest five rows and point the head at the new tip, as a recovery that cuts back would.
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE agent_id = ${agent.runtime.agentId}::uuid AND sequence > 60`);
    const tip = (await first.history({ limit: 1 }))[0];
    await db.execute(sql`UPDATE ${ledgerHead} SET count = 60, last_hash = ${tip?.hash ?? ''} WHERE agent_id = ${agent.runtime.agentId}::uuid`);
    const expected = await fromEveryRow();
    expect((await first.metrics()).actions_total).toBe(60);
    expect(await first.metrics()).toEqual(expected.metrics);
    expect((await first.totals()).total_score).toBe(expected.totals.total_score);
  });

  test('history comes newest first from the database, of one category when asked', async () => {
    const newest = await first.history({ limit: 3 });
    expect(newest.map((t) => t.sequence)).toEqual([60, 59, 58]);
    const penalties = await first.history({ limit: 1_000, category: 'rule_violated' });
    // 10 penalties among the first 40, and 4 of the other service's (sequences 41, 46, 51, 56) left after the cut.
    expect(penalties.length).toBe(10 + 4);
    expect(penalties.every((t) => t.category === 'rule_violated')).toBe(true);
    expect(penalties.map((t) => t.sequence)).toEqual([...penalties.map((t) => t.sequence)].sort((a, b) => b - a));
  });
});

describe('verification a page at a time', () => {
  test('12,000 transactions (three pages) verify; an edited row on the third page is named', async () => {
    await first.appendMany(Array.from({ length: 11_940 }, (_, i) => event(`c-${i}`, 1 + (i % 3))));
    expect(await first.verify()).toMatchObject({ ok: true, count: 12_000 });
    const db = dbOf(agent.runtime);
    await db.execute(sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', '99') WHERE agent_id = ${agent.runtime.agentId}::uuid AND sequence = 11000`);
    const verification = await first.verify();
    expect(verification.ok).toBe(false);
    expect(verification.ok ? null : [verification.first.sequence, verification.first.code, verification.checked]).toEqual([11_000, 'bad_hash', 10_999]);
  }, 120_000);
});

describe('the fold kept in the database', () => {
  test('a new service (as a new process would) starts from the stored fold; a stored fold the ledger no longer continues is ignored', async () => {
    const db = dbOf(agent.runtime);
    const agentId = sql`${agent.runtime.agentId}::uuid`;
    // The second service folds the first's appends in the background and stores its fold as it
    // goes: stopped (its folding done) so that no store of its lands between the marker below and
    // the new service's read of it. (afterAll's stop of it is then a no-op.)
    await second.stop();
    await first.totals();
    const expected = await fromEveryRow();
    // A marker in the stored fold shows that a new service read it rather than every row.
    await db.execute(sql`UPDATE ${ledgerFold} SET fold = jsonb_set(fold, '{earned}', to_jsonb((fold->>'earned')::bigint + 1000000)) WHERE agent_id = ${agentId}`);
    const [stored] = (await db.execute(sql`SELECT fold FROM ${ledgerFold} WHERE agent_id = ${agentId}`)).rows as { fold: { lastSequence: number; earned: number } }[];
    // (the fold was stored as the rows were appended, before the row edited above: the rows after it are read as they are now)
    const after = ledgerTotals(await new LedgerStore(db, agent.runtime.agentId).after(stored?.fold.lastSequence ?? 0, Number.MAX_SAFE_INTEGER), 0);
    const fresh = await RewardLedgerService.start(agent.runtime);
    try {
      expect((await fresh.totals()).rewards.total_earned).toBe((stored?.fold.earned ?? Number.NaN) + after.rewards.total_earned);
      expect(stored?.fold.earned).toBeGreaterThan(1_000_000);
    } finally {
      await fresh.stop();
    }
    // The same marker, but the fold now names a hash its last row does not have: folded from the start.
    await db.execute(sql`UPDATE ${ledgerFold} SET fold = jsonb_set(fold, '{lastHash}', '"0000"') WHERE agent_id = ${agentId}`);
    const again = await RewardLedgerService.start(agent.runtime);
    try {
      // (its session began after every row, so its session figures are 0: compared apart from them)
      const { rewards, penalties } = expected.totals;
      expect(await again.totals()).toMatchObject({
        total_score: expected.totals.total_score,
        rewards: { total_earned: rewards.total_earned, session_earned: 0, by_category: rewards.by_category },
        penalties: { total_incurred: penalties.total_incurred, session_incurred: 0, by_category: penalties.by_category },
      });
      expect(await again.metrics()).toEqual(expected.metrics);
    } finally {
      await again.stop();
    }
  }, 120_000);
});
