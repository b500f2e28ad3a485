import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { PROGRESS_JSON_SCHEMA } from '../../src/ledger/model/progress-json';
import { handleLedgerCategories, handleLedgerHistory, handleLedgerMetrics, handleLedgerScore, handleLedgerVerify, handleProgressJson } from '../../src/ledger/surfaces/ledger-routes';
import { ledgerTable } from '../../src/ledger/tables';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { dbOf } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';

describe('RewardLedgerService on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  let outcomeIds: string[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-ledger-'));
    agent = await startAgent({ dataDir: dir });
    ledger = await rewardLedgerOf(agent.runtime);
    const ingested = await agent.service.ingest(makeRows({ n: 3, labels: ['fixed', 'rejected_fp', 'accepted'], keyPrefix: 'ledger' }));
    outcomeIds = ingested.outcomes.map((o) => o.id);
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  const reward = (ref: string, points = 10) => ({ type: 'reward', category: 'finding_fixed', points, action: 'finding fixed', source: 'scan_outcome', source_ref: ref });

  test('ingesting outcomes records their rewards and penalties: fixed +100, rejected_fp −70, accepted +50', async () => {
    const txs = await ledger.history({ limit: 10 });
    expect(txs.map((t) => [t.id, t.type, t.category, t.points, t.source, t.source_ref]).reverse()).toEqual([
      ['tx-1', 'reward', 'finding_fixed', 100, 'scan_outcome', outcomeIds[0] as string],
      ['tx-2', 'penalty', 'false_positive', -70, 'scan_outcome', outcomeIds[1] as string],
      ['tx-3', 'reward', 'finding_accepted', 50, 'scan_outcome', outcomeIds[2] as string],
    ]);
    // re-ingesting the same rows records nothing new
    await agent.service.ingest(makeRows({ n: 3, labels: ['fixed', 'rejected_fp', 'accepted'], keyPrefix: 'ledger' }));
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 3, total: 80, keyed: 0, integrity: 'unkeyed', note: expect.stringContaining('unkeyed: detects accidental corruption only') });
  });

  test('bad entries are refused with the field and what is allowed; nothing is written', async () => {
    const badCategory = await ledger.append({ ...reward(outcomeIds[0] as string), category: 'made_up' });
    expect(badCategory).toMatchObject({ ok: false, code: 'unregistered_category', field: 'category' });
    expect((badCategory as { message: string }).message).toContain('finding_fixed');
    expect(await ledger.append({ ...reward(outcomeIds[0] as string), points: -5 })).toMatchObject({ ok: false, code: 'sign_mismatch', field: 'points' });
    expect(await ledger.append({ ...reward(outcomeIds[0] as string), source: 'rumour' })).toMatchObject({ ok: false, code: 'unknown_source', field: 'source' });
    expect(await ledger.append(reward('00000000-0000-0000-0000-000000000000'))).toMatchObject({ ok: false, code: 'source_not_found', field: 'source_ref' });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 3, total: 80 });
  });

  test('a second entry for the same outcome and category is a duplicate: reported, nothing written', async () => {
    const again = await ledger.append({ ...reward(outcomeIds[0] as string, 100), action: 'paid again?' });
    expect(again).toMatchObject({ ok: true, status: 'duplicate', transaction: { id: 'tx-1', source_ref: outcomeIds[0] } });
    const [a, b] = await ledger.appendMany([reward(outcomeIds[0] as string, 7), reward(outcomeIds[0] as string, 8)]);
    expect([a, b]).toMatchObject([{ ok: true, status: 'duplicate' }, { ok: true, status: 'duplicate' }]);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 3, total: 80 });
  });

  test('1,000 concurrent appends: 1,000 transactions, consecutive ids, the right total, an unbroken chain', async () => {
    ledger.registerSource('test_event', async (refs) => new Set(refs));
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        ledger.append(
          i % 4 === 0
            ? { type: 'penalty', category: 'false_positive', points: -7, action: `fp ${i}`, source: 'test_event', source_ref: `e-${i}` }
            : { ...reward(`e-${i}`, 10), source: 'test_event' },
          new Date(Date.UTC(2026, 10, 22, 0, 0, i % 60)).toISOString(),
        ),
      ),
    );
    expect(results.every((r) => r.ok && r.status === 'appended')).toBe(true);
    const ids = results.map((r) => (r.ok ? r.transaction.id : ''));
    expect(new Set(ids).size).toBe(1_000);
    // 250 penalties of -7, 750 rewards of +10, after the 3 outcome transactions worth 80
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 1_003, total: 80 + 750 * 10 - 250 * 7 });
    const totals = await ledger.totals();
    expect(totals.total_score).toBe(5_830);
    expect(totals.checksum).toMatchObject({ calculated_total: 5_830, stored_total: 5_830, is_valid: true });
    expect((await ledger.metrics()).actions_total).toBe(1_003);
    const recent = await ledger.history({ limit: 3, category: 'false_positive' });
    expect(recent.map((t) => t.category)).toEqual(['false_positive', 'false_positive', 'false_positive']);
  }, 60_000);

  test('a restart keeps everything and the next id follows on', async () => {
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    ledger = await rewardLedgerOf(agent.runtime);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 1_003, total: 5_830 });
    ledger.registerSource('test_event', async (refs) => new Set(refs));
    const next = await ledger.append({ ...reward('after-restart', 5), source: 'test_event' });
    expect(next).toMatchObject({ ok: true, status: 'appended', transaction: { id: 'tx-1004', running_total: 5_835 } });
  }, 60_000);

  test('HTTP: score, categories, metrics, history, verify and progress.json', async () => {
    const call = async (handler: (req: never, res: never, rt: never) => Promise<void>, query: Record<string, string> = {}) => {
      const r = recordingResponse();
      await handler({ query } as never, r.res as never, agent.runtime as never);
      return r.sent;
    };
    expect(await call(handleLedgerScore as never)).toMatchObject({ status: 200, body: { total_score: 5_835, checksum: { is_valid: true } } });
    expect(await call(handleLedgerCategories as never)).toMatchObject({ status: 200, body: { penalties: { false_positive: -70 - 250 * 7 } } });
    expect(await call(handleLedgerMetrics as never)).toMatchObject({ status: 200, body: { actions_total: 1_004 } });
    const history = await call(handleLedgerHistory as never, { limit: '2', category: 'finding_fixed' });
    expect((history.body as { transactions: { id: string }[] }).transactions.map((t) => t.id)).toEqual(['tx-1004', 'tx-1003']);
    expect(await call(handleLedgerHistory as never, { limit: '0' })).toMatchObject({ status: 400, body: { error: 'limit must be an integer from 1 to 1000 (got "0")' } });
    expect(await call(handleLedgerVerify as never)).toMatchObject({ status: 200, body: { ok: true, count: 1_004 } });
    const progress = await call(handleProgressJson as never);
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    expect(ajv.validate(PROGRESS_JSON_SCHEMA, progress.body)).toBe(true);
    expect((progress.body as { transaction_log: unknown[] }).transaction_log).toHaveLength(1_000);
  });

  test('tampering in the database is detected and the first bad transaction is named; so is a deleted last row', async () => {
    const db = dbOf(agent.runtime);
    const where = (sequence: number) => sql`sequence = ${sequence} AND agent_id = ${agent.runtime.agentId}::uuid`;
    const original = (await ledger.history({ limit: 1_004 })).find((t) => t.sequence === 500)?.points as number;
    await db.execute(sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', '999') WHERE ${where(500)}`);
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { sequence: 500, id: 'tx-500', code: 'bad_hash' } });
    await db.execute(sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', ${String(original)}::jsonb) WHERE ${where(500)}`);
    expect((await ledger.verify()).ok).toBe(true);
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE ${where(1_004)}`);
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { code: 'head_mismatch', id: 'tx-1004' } });
  });
});
