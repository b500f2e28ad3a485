// A full reconciliation compares each reconciled source with the ledger a range of record ids at a
// time (count, points, record-id checksum) and reads rows only where they differ; an incremental
// one compares only what is new since the last reconciliation (entries appended, outcomes added),
// from a mark kept in the database, and reads again only the records that disagree. An outcome
// relabelled, re-weighted or left without its entry behind the ledger's back (the chain itself
// still verifying) is found in its range by a full one; one added since the last reconciliation,
// by an incremental one too.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { ledgerHead, ledgerReconciled, ledgerTable } from '../../src/ledger/tables';
import { outcomesTable } from '../../src/scan/tables';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { outcomeLedgerSource } from '../../src/ledger/ledger-sources';
import { RANDOM_KEYS_PER_STATEMENT } from '../../src/ledger/ledger-store';
import { dbOf } from '../../src/shared/sql';
import { ledgerCounts } from '../helpers/ledger-counts';
import { turnCounter } from '../helpers/turn-counter';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

const SETTINGS = { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' };

describe('reconciliation by ranges of record ids, and of what is new', () => {
  let dir: string;
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  const agentIs = () => sql`agent_id = ${agent.runtime.agentId}::uuid`;
  const length = async () => (await ledger.history({ limit: 1 }))[0]?.sequence ?? 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-reconcile-'));
    agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    ledger = await rewardLedgerOf(agent.runtime);
    await agent.service.ingest(makeRows({ n: 300, labels: ['fixed', 'rejected_fp', 'accepted'], keyPrefix: 'rng' }));
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("the entries outcomes call for are read a batch of ids per statement, with a turn of the event loop after each (an incremental reconciliation runs beside an ingest)", async () => {
    const db = dbOf(agent.runtime);
    const ids = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()}`)).rows.map((r) => String((r as { id: string }).id));
    expect(ids).toHaveLength(300);
    const turns = turnCounter();
    let wanted: ReadonlyMap<string, unknown>;
    try {
      wanted = await outcomeLedgerSource(agent.runtime).entriesFor(db, ids);
    } finally {
      turns.stop();
    }
    // every outcome of these labels and rewards calls for an entry, and the ledger holds one each
    expect(wanted.size).toBe(300);
    expect(await ledgerCounts(agent.runtime)).toMatchObject({ entries: 300, unpaid: 0 });
    expect(turns.turn).toBeGreaterThanOrEqual(300 / RANDOM_KEYS_PER_STATEMENT);
  });

  test('before any reconciliation an incremental one compares every range; after it, only what is new', async () => {
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 16, ranges_read: 0, records_compared: 0, appended: 0, unexpected: 0, mismatched: 0 });
    expect(await ledger.reconcile('full')).toMatchObject({ ok: true, ranges_compared: 16, ranges_read: 0, records_compared: 0 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 0, records_read: 0 });
    const before = await length();
    await agent.service.ingest(makeRows({ n: 10, labels: ['fixed', 'accepted'], keyPrefix: 'rng-new' }));
    const entries = (await length()) - before;
    expect(entries).toBe(10);
    // each new entry against its outcome, each new outcome against the ledger
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 20, records_read: 0, appended: 0 });
  });

  test('where it left off is kept in the database: a new process goes on from it', async () => {
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    ledger = await rewardLedgerOf(agent.runtime);
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 0 });
  });

  test('an outcome stored without its entry after the last reconciliation: the incremental one reads that record again and appends its entry', async () => {
    const db = dbOf(agent.runtime);
    // written behind the ledger's back: no entry appended with it
    await db.execute(
      sql`INSERT INTO ${outcomesTable} (id, agent_id, finding_key, label, ts, group_id, reward, row_json)
          SELECT gen_random_uuid(), agent_id, finding_key || '-unpaid', label, ts, group_id, reward, row_json FROM ${outcomesTable} WHERE ${agentIs()} AND label = 'fixed' LIMIT 1`,
    );
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: false, chain_problem: null, ranges_compared: 0, records_compared: 1, records_read: 1, appended: 1 });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 311, entries: 311, paidTwice: 0, unpaid: 0 });
    // the entry it appended is not compared again
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, records_compared: 0, records_read: 0 });
  });

  test('the last entry cut away with the head moved back (the chain verifies): the ledger is shorter than the mark, so every range is compared, and the entry appended', async () => {
    const db = dbOf(agent.runtime);
    await ledger.reconcile('full');
    const [last] = await ledger.history({ limit: 2 });
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE ${agentIs()} AND sequence = ${last?.sequence}`);
    const [before] = await ledger.history({ limit: 1 });
    await db.execute(sql`UPDATE ${ledgerHead} SET count = ${before?.sequence}, last_hash = ${before?.hash} WHERE ${agentIs()}`);
    expect(await ledger.verify()).toMatchObject({ ok: true });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: false, chain_problem: null, ranges_compared: 16, ranges_read: 1, appended: 1 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 0, records_read: 0 });
  });

  test('the last entry cut away, and the ledger grown again past the mark before the next reconciliation: the transaction the mark ends on changed, so every range is compared', async () => {
    const db = dbOf(agent.runtime);
    const [last] = await ledger.history({ limit: 1 });
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE ${agentIs()} AND sequence = ${last?.sequence}`);
    const [before] = await ledger.history({ limit: 1 });
    await db.execute(sql`UPDATE ${ledgerHead} SET count = ${before?.sequence}, last_hash = ${before?.hash} WHERE ${agentIs()}`);
    await agent.service.ingest(makeRows({ n: 2, labels: ['fixed'], keyPrefix: 'rng-regrown' }));
    expect((await ledger.history({ limit: 1 }))[0]?.sequence).toBeGreaterThanOrEqual(last?.sequence as number);
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: false, chain_problem: null, ranges_compared: 16, ranges_read: 1, appended: 1 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 0 });
  });

  test('a mark this code cannot read (written by hand): every range is compared', async () => {
    await dbOf(agent.runtime).execute(sql`UPDATE ${ledgerReconciled} SET positions = '{"scan_outcome": "far"}'::jsonb WHERE ${agentIs()}`);
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 16, records_compared: 0 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, ranges_compared: 0 });
  });

  test('an outcome relabelled to one that pays nothing: not new, so missed by an incremental reconciliation; flagged as unexpected, in its range only, by a full one', async () => {
    const db = dbOf(agent.runtime);
    const [one] = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()} AND label = 'accepted' LIMIT 1`)).rows as { id: string }[];
    await db.execute(sql`UPDATE ${outcomesTable} SET label = 'ignored' WHERE id = ${one?.id}::uuid`);
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, records_compared: 0 });
    const report = await ledger.reconcile('full');
    expect(report).toMatchObject({ ok: false, unexpected: 1, mismatched: 0, appended: 0, ranges_read: 1 });
    const review = (await ledger.auditLog(2)).find((a) => a.kind === 'needs_review');
    expect((review?.details.unexpected as { source_ref: string }[])[0]?.source_ref).toBe(one?.id as string);
  });

  test('an outcome whose reward was changed: its entry is flagged by a full reconciliation as mismatched with the points it calls for', async () => {
    const db = dbOf(agent.runtime);
    const [one] = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()} AND label = 'fixed' AND reward = 1 LIMIT 1`)).rows as { id: string }[];
    await db.execute(sql`UPDATE ${outcomesTable} SET reward = 0.5 WHERE id = ${one?.id}::uuid`);
    const report = await ledger.reconcile('full');
    expect(report).toMatchObject({ ok: false, unexpected: 1, mismatched: 1, ranges_read: 2 });
    const review = (await ledger.auditLog(2)).find((a) => a.kind === 'needs_review');
    expect(review?.details.mismatched).toEqual([expect.objectContaining({ source_ref: one?.id, points: 100, expected_points: 50 })]);
  });

  test('an edited row behind the last verified one: missed by an incremental reconciliation, named by a full one', async () => {
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
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, chain_problem: null, mismatched: 0 });
    const full = await ledger.reconcile('full');
    expect(full).toMatchObject({ ok: false, chain_problem: { sequence, code: 'bad_hash' } });
  });

  test('an entry appended since whose outcome is gone: flagged as unexpected by the incremental reconciliation', async () => {
    await agent.service.ingest(makeRows({ n: 2, labels: ['fixed'], keyPrefix: 'rng-gone' }));
    const db = dbOf(agent.runtime);
    const [gone] = (await db.execute(sql`SELECT id FROM ${outcomesTable} WHERE ${agentIs()} AND finding_key LIKE 'rng-gone%' ORDER BY seq LIMIT 1`)).rows as { id: string }[];
    await db.execute(sql`DELETE FROM ${outcomesTable} WHERE id = ${gone?.id}::uuid`);
    const report = await ledger.reconcile('incremental');
    expect(report).toMatchObject({ ok: false, ranges_compared: 0, records_compared: 3, records_read: 1, unexpected: 1, mismatched: 0, appended: 0 });
    const review = (await ledger.auditLog(2)).find((a) => a.kind === 'needs_review');
    expect((review?.details.unexpected as { source_ref: string }[])[0]?.source_ref).toBe(gone?.id as string);
  });

  test('new outcomes over several of its statements (100 seqs each): an unpaid one among the last is found, and only it read', async () => {
    await ledger.reconcile('full');
    await agent.service.ingest(makeRows({ n: 600, labels: ['fixed', 'accepted'], keyPrefix: 'rng-many' }));
    const db = dbOf(agent.runtime);
    await db.execute(
      sql`INSERT INTO ${outcomesTable} (id, agent_id, finding_key, label, ts, group_id, reward, row_json)
          SELECT gen_random_uuid(), agent_id, finding_key || '-unpaid', label, ts, group_id, reward, row_json FROM ${outcomesTable} WHERE ${agentIs()} AND finding_key LIKE 'rng-many%' LIMIT 1`,
    );
    // 600 entries against their outcomes, 601 outcomes against the ledger
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: false, chain_problem: null, ranges_compared: 0, records_compared: 1201, records_read: 1, appended: 1, unexpected: 0 });
    expect(await ledger.reconcile('incremental')).toMatchObject({ ok: true, records_compared: 0, records_read: 0 });
  });
});
