// Reconciliation compares each reconciled source with the ledger a range of record ids at a time
// (count, points, record-id checksum) and reads rows only where they differ: a clean ledger reads
// none; an outcome relabelled, re-weighted or left without its entry behind the ledger's back
// (the chain itself still verifying) is found in its range, even by an incremental reconciliation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { ledgerHead, ledgerTable } from '../../src/ledger/tables';
import { outcomesTable } from '../../src/scan/tables';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { dbOf } from '../../src/shared/sql';
import { ledgerCounts } from '../helpers/ledger-counts';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

describe('reconciliation by ranges of record ids', () => {
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  const agentIs = () => sql`agent_id = ${agent.runtime.agentId}::uuid`;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    ledger = await rewardLedgerOf(agent.runtime);
    await agent.service.ingest(makeRows({ n: 300, labels: ['fixed', 'rejected_fp', 'accepted'], keyPrefix: 'rng' }));
  });
  afterAll(async () => {
    await agent.close();
  });

  test('a clean ledger: every range compared by its summary, none read row by row', async () => {
    for (const mode of ['full', 'incremental'] as const) {
      expect(await ledger.reconcile(mode)).toMatchObject({ ok: true, ranges_compared: 16, ranges_read: 0, appended: 0, unexpected: 0, mismatched: 0 });
    }
  });

  test('the last entry cut away with the head moved back (the chain verifies): the incremental reconciliation finds its range and appends it', async () => {
    const db = dbOf(agent.runtime);
    const [last] = await ledger.history({ limit: 2 });
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE ${agentIs()} AND sequence = ${last?.sequence}`);
    const [before] = await ledger.history({ limit: 1 });
    await db.execute(sql`UPDATE ${ledgerHead} SET count = ${before?.sequence}, last_hash = ${before?.hash} WHERE ${agentIs()}`);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 299 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: false, chain_problem: null, appended: 1, ranges_read: 1 });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 300, entries: 300, paidTwice: 0, unpaid: 0 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_read: 0 });
  });

  test('an outcome relabelled to one that pays nothing: its entry is flagged as unexpected, in its range only', async () => {
    const db = dbOf(agent.runtime);
    const [one] = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()} AND label = 'accepted' LIMIT 1`)).rows as { id: string }[];
    await db.execute(sql`UPDATE ${outcomesTable} SET label = 'ignored' WHERE id = ${one?.id}::uuid`);
    const report = await ledger.reconcile('incremental');
    expect(report).toMatchObject({ ok: false, unexpected: 1, mismatched: 0, appended: 0, ranges_read: 1 });
    const review = (await ledger.auditLog(2)).find((a) => a.kind === 'needs_review');
    expect((review?.details.unexpected as { source_ref: string }[])[0]?.source_ref).toBe(one?.id as string);
  });

  test('an outcome whose reward was changed: its entry is flagged as mismatched with the points it calls for', async () => {
    const db = dbOf(agent.runtime);
    const [one] = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()} AND label = 'fixed' LIMIT 1`)).rows as { id: string }[];
    await db.execute(sql`UPDATE ${outcomesTable} SET reward = 0.5 WHERE id = ${one?.id}::uuid`);
    const report = await ledger.reconcile('incremental');
    expect(report).toMatchObject({ ok: false, unexpected: 1, mismatched: 1, ranges_read: 2 });
    const review = (await ledger.auditLog(2)).find((a) => a.kind === 'needs_review');
    expect(review?.details.mismatched).toEqual([expect.objectContaining({ source_ref: one?.id, points: 100, expected_points: 50 })]);
  });

  test('an edited row behind the last verified one: missed by the incremental chain check, caught by its range, and named by a full one', async () => {
    const db = dbOf(agent.runtime);
    // a +100 entry whose outcome still calls for +100 (not the one re-weighted above)
    const [row] = (
      await db.execute(
        sql`SELECT l.sequence FROM ${ledgerTable} l JOIN ${outcomesTable} o ON o.id::text = l.source_ref
            WHERE l.agent_id = ${agent.runtime.agentId}::uuid AND (l.tx_json->>'points')::int = 100 AND o.reward = 1 ORDER BY l.sequence LIMIT 1`,
      )
    ).rows as { sequence: number }[];
    const sequence = Number(row?.sequence);
    expect(sequence).toBeLessThan(100);
    await db.execute(sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', '99') WHERE ${agentIs()} AND sequence = ${sequence}`);
    const incremental = await ledger.reconcile('incremental');
    expect(incremental).toMatchObject({ chain_problem: null, mismatched: 2 });
    const full = await ledger.reconcile('full');
    expect(full).toMatchObject({ ok: false, chain_problem: { sequence, code: 'bad_hash' } });
  });
});
