// Every reward exactly once, enforced by the database: an ingest and its entries commit together,
// reconciliation racing an ingest finds nothing missing, a second entry for the same source record
// is a no-op (and refused by the database if written directly), and two ledger services on one
// database (each with its own queue and caches, as two processes would have) never fork the chain.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { LedgerTransaction } from '../../src/ledger/model/chain';
import { ingestText } from '../../src/shared/ingest-text';
import { ledgerTable, LEDGER_ONCE_INDEX } from '../../src/ledger/tables';
import { type ReconcileReport, RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { databaseReason, dbOf } from '../../src/shared/sql';
import { ledgerCounts } from '../helpers/ledger-counts';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

const LABELS = ['fixed', 'rejected_fp', 'ignored', 'accepted', 'reopened'] as const;

describe('ingest racing reconciliation (SELF_IMPROVE_LEDGER_RECONCILE_EVERY=1)', () => {
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1' } });
    ledger = await rewardLedgerOf(agent.runtime);
  });
  afterAll(async () => {
    await agent.close();
  });

  test('a 5,000-row ingest in five calls, each racing a reconciliation (and the automatic ones): one entry per rewarded outcome, nothing missing, ever', async () => {
    const rows = makeRows({ n: 5_000, labels: [...LABELS], keyPrefix: 'race', stepMinutes: 1 });
    const reports: ReconcileReport[] = [];
    let accepted = 0;
    for (let at = 0; at < rows.length; at += 1_000) {
      const text = rows
        .slice(at, at + 1_000)
        .map((r) => JSON.stringify(r))
        .join('\n');
      // The reconciliation's range summaries and the ingest's transactions interleave on the database.
      const [result, report] = await Promise.all([ingestText(agent.service, text), ledger.reconcile('incremental')]);
      expect(result).toMatchObject({ rows: 1_000, rejected: [] });
      accepted += result.accepted;
      reports.push(report);
    }
    reports.push(await ledger.reconcile());
    expect(accepted).toBe(5_000);
    expect(reports.filter((r) => !r.ok)).toEqual([]);
    expect(reports.reduce((n, r) => n + r.appended, 0)).toBe(0);
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 4_000, entries: 4_000, paidTwice: 0, unpaid: 0 });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 4_000 });
    expect((await ledger.auditLog(50)).map((a) => a.kind)).not.toContain('missing_entries');
  }, 120_000);

  test('a second entry for the same source record written straight into the table is refused by the database', async () => {
    const db = dbOf(agent.runtime);
    const [first] = await ledger.history({ limit: 1 });
    const copy = { ...(first as LedgerTransaction), sequence: 999_999, id: 'tx-999999' };
    const error = await db
      .execute(
        sql`INSERT INTO ${ledgerTable} (agent_id, sequence, tx_json, source, source_ref, category)
            VALUES (${agent.runtime.agentId}::uuid, ${copy.sequence}, ${JSON.stringify(copy)}::jsonb, ${copy.source}, ${copy.source_ref}, ${copy.category})`,
      )
      .then(() => null, (e: unknown) => e);
    expect(error).not.toBeNull();
    expect(databaseReason(error)).toContain(LEDGER_ONCE_INDEX);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 4_000 });
  });

  test('re-ingesting everything changes nothing, and an append of an existing claim reports the transaction that holds it', async () => {
    const rows = makeRows({ n: 5_000, labels: [...LABELS], keyPrefix: 'race', stepMinutes: 1 });
    expect(await ingestText(agent.service, rows.map((r) => JSON.stringify(r)).join('\n'))).toMatchObject({ accepted: 0, duplicate: 5_000 });
    const [held] = await ledger.history({ limit: 1 });
    const again = await ledger.append({ ...(held as LedgerTransaction), action: 'again' });
    expect(again).toEqual({ ok: true, status: 'duplicate', transaction: held as LedgerTransaction });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 4_000, entries: 4_000, paidTwice: 0, unpaid: 0 });
  }, 60_000);
});

describe('two ledger services on one database (each with its own queue and caches, as in two processes)', () => {
  let agent: TestAgent;
  let second: RewardLedgerService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    second = await RewardLedgerService.start(agent.runtime);
  });
  afterAll(async () => {
    await second.stop();
    await agent.close();
  });

  test('interleaved appends and ingests from both serialise: consecutive ids, one chain, each claim paid once', async () => {
    const first = await rewardLedgerOf(agent.runtime);
    for (const l of [first, second]) l.registerSource('test_event', async (refs) => new Set(refs));
    const event = (ref: string) => ({ type: 'reward', category: 'guard_decision', points: 1 + (ref.length % 5), action: `event ${ref}`, source: 'test_event', source_ref: ref });
    const batch = (prefix: string) => Array.from({ length: 30 }, (_, i) => event(`${prefix}-${i}`));
    const sharedStatuses: string[][] = [];
    // Ten rounds: each service appends its own events, both are asked for one shared event, and every
    // third round an ingest credits its outcomes; each round starts from the other service's writes.
    for (let round = 0; round < 10; round++) {
      const [, , a, b] = await Promise.all([
        first.appendMany(batch(`a${round}`)),
        second.appendMany(batch(`b${round}`)),
        first.append(event(`shared-${round}`)),
        second.append(event(`shared-${round}`)),
        round % 3 === 0 ? agent.service.ingest(makeRows({ n: 50, labels: [...LABELS], keyPrefix: `two-${round}` })) : null,
      ]);
      sharedStatuses.push([a, b].map((r) => (r.ok ? r.status : r.code)).sort());
    }
    expect(sharedStatuses).toEqual(Array.from({ length: 10 }, () => ['appended', 'duplicate']));
    const total = 10 * 61 + 4 * 40;
    const verification = await first.verify();
    expect(verification).toMatchObject({ ok: true, count: total });
    expect(await second.verify()).toEqual(verification);
    const txs = await first.history({ limit: 1_000 });
    expect(txs.map((t) => t.sequence).sort((x, y) => x - y)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(txs.map((t) => `${t.source}|${t.source_ref}|${t.category}`)).size).toBe(total);
    expect(await ledgerCounts(agent.runtime)).toMatchObject({ rewarded: 160, entries: 160, paidTwice: 0 });
  }, 60_000);
});
