import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { ledgerReconciled, ledgerTable } from '../../src/ledger/tables';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { LedgerReconciler } from '../../src/ledger/ledger-reconciler';
import { dbOf } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

describe('reward ledger reconciliation on a real runtime', () => {
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    ledger = await rewardLedgerOf(agent.runtime);
    // 6 outcomes: 3 fixed (+100), 3 rejected_fp (-70)
    await agent.service.ingest(makeRows({ n: 6, labels: ['fixed', 'rejected_fp'], keyPrefix: 'rec' }));
  });
  afterAll(async () => {
    await agent.close();
  });

  test('a ledger that matches its sources reconciles clean', async () => {
    expect(await ledger.reconcile()).toMatchObject({ ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0 });
  });

  test('a deleted middle row: scoring halts, the chain is cut back, missing entries are re-appended, scoring resumes', async () => {
    const where = sql`agent_id = ${agent.runtime.agentId}::uuid AND sequence = 3`;
    await dbOf(agent.runtime).execute(sql`DELETE FROM ${ledgerTable} WHERE ${where}`);
    expect((await ledger.verify()).ok).toBe(false);
    // an append asked for while reconciliation runs waits for it, and lands after the recovery
    // (another category for an outcome already paid: a claim of its own, which reconciliation will flag)
    const lateEntry = { type: 'reward', category: 'finding_accepted', points: 5, action: 'late', source: 'scan_outcome', source_ref: (await ledger.history({ limit: 1 }))[0]?.source_ref };
    const [report, late] = await Promise.all([ledger.reconcile(), ledger.append(lateEntry)]);
    expect(report).toMatchObject({ ok: false, chain_problem: { sequence: 4, code: 'sequence_gap' }, quarantined: 3, appended: 4 });
    expect(late).toMatchObject({ ok: true, status: 'appended', transaction: { id: 'tx-7' } });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 7, total: 3 * 100 - 3 * 70 + 5 });
    const kinds = (await ledger.auditLog(10)).map((a) => a.kind);
    expect(kinds).toEqual(['recovered', 'missing_entries', 'quarantine', 'chain_broken']);
    const quarantine = (await ledger.auditLog(10)).find((a) => a.kind === 'quarantine');
    expect((quarantine?.details.rows as unknown[]).length).toBe(3);
  });

  test('an entry no record accounts for is flagged for review and kept', async () => {
    const report = await ledger.reconcile();
    // the late +5 entry is a second entry (another category) for an outcome that calls for one
    expect(report).toMatchObject({ ok: false, unexpected: 1, mismatched: 0, appended: 0, quarantined: 0 });
    expect((await ledger.auditLog(2)).map((a) => a.kind)).toEqual(['recovered', 'needs_review']);
    expect((await ledger.verify()).ok).toBe(true);
  });

  test('reconciliation also runs by itself every N transactions', async () => {
    const other = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '3' } });
    try {
      const otherLedger = await rewardLedgerOf(other.runtime);
      expect(otherLedger.lastReconciliation).toBeNull();
      await other.service.ingest(makeRows({ n: 4, labels: ['fixed'], keyPrefix: 'auto' }));
      await otherLedger.verify();
      expect(otherLedger.lastReconciliation).toMatchObject({ ok: true });
    } finally {
      await other.close();
    }
  });

  test('reconciliations asked for while one waits its turn are that one: five ingests at once, each past N, reconcile once or twice, not five times', async () => {
    const other = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1' } });
    const prototype = LedgerReconciler.prototype as unknown as { reconcileNow: (mode: string) => Promise<unknown> };
    const original = prototype.reconcileNow;
    let runs = 0;
    prototype.reconcileNow = function (this: unknown, mode: string) {
      runs++;
      return original.call(this, mode);
    };
    try {
      const otherLedger = await rewardLedgerOf(other.runtime);
      await Promise.all(Array.from({ length: 5 }, (_, i) => other.service.ingest(makeRows({ n: 2, labels: ['fixed'], keyPrefix: `burst-${i}` }))));
      await new Promise((resolve) => setTimeout(resolve, 0));
      await otherLedger.verify();
      expect(runs).toBeGreaterThanOrEqual(1);
      expect(runs).toBeLessThanOrEqual(2);
      expect(otherLedger.lastReconciliation).toMatchObject({ ok: true });
      expect(await otherLedger.verify()).toMatchObject({ ok: true, count: 10 });
    } finally {
      prototype.reconcileNow = original;
      await other.close();
    }
  });

  test('a reconciliation that runs by itself is full when none was in the last day, else incremental', async () => {
    const other = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '3' } });
    try {
      const otherLedger = await rewardLedgerOf(other.runtime);
      const ingestThree = async (keyPrefix: string) => {
        await other.service.ingest(makeRows({ n: 3, labels: ['fixed'], keyPrefix }));
        await otherLedger.verify();
        return otherLedger.lastReconciliation;
      };
      expect(await ingestThree('day-1')).toMatchObject({ ok: true, ranges_compared: 16, records_compared: 0 });
      expect(await ingestThree('day-1b')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 6 });
      // the last full one a day and a minute ago
      await dbOf(other.runtime).execute(sql`UPDATE ${ledgerReconciled} SET full_at = now() - interval '1441 minutes' WHERE agent_id = ${other.runtime.agentId}::uuid`);
      expect(await ingestThree('day-2')).toMatchObject({ ok: true, ranges_compared: 16, records_compared: 0 });
      expect(await ingestThree('day-2b')).toMatchObject({ ok: true, ranges_compared: 0, records_compared: 6 });
    } finally {
      await other.close();
    }
  });

  test('a checksum mismatch right after an append starts a reconciliation that recovers', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'self-improve-checksum-'));
    let other = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    try {
      await other.service.ingest(makeRows({ n: 4, labels: ['fixed'], keyPrefix: 'sum' }));
      await dbOf(other.runtime).execute(sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', '1') WHERE agent_id = ${other.runtime.agentId}::uuid AND sequence = 2`);
      await other.close();
      other = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
      const otherLedger = await rewardLedgerOf(other.runtime);
      // the sum of points (301) no longer matches the last running total (400) once this lands
      await other.service.ingest(makeRows({ n: 1, labels: ['fixed'], keyPrefix: 'sum-late' }));
      await new Promise((resolve) => setTimeout(resolve, 0));
      await otherLedger.verify();
      expect(otherLedger.lastReconciliation).toMatchObject({ ok: false, chain_problem: { sequence: 2, code: 'bad_hash' }, quarantined: 4, appended: 4 });
      expect(await otherLedger.verify()).toMatchObject({ ok: true, count: 5, total: 500 });
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
