// The ledger's totals are extended by every append as it writes (not folded from the rows on the
// next read), caught up with what another service appended, and survive a rolled-back append and
// a restart. Each time they are compared with the totals computed from every row at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ledgerMetrics, ledgerTotals } from '../../src/ledger/model/totals';
import { RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { LedgerStore } from '../../src/ledger/ledger-store';
import { dbOf } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { testEvent } from '../helpers/test-events';

const SETTINGS = { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' };
let dir: string;
let agent: TestAgent;

const event = testEvent;

function started(ledger: RewardLedgerService): RewardLedgerService {
  ledger.registerSource('test_event', async (refs) => new Set(refs));
  return ledger;
}

/** The totals and metrics of every row, read at once, for a session that started at `sessionStartMs`. */
async function fromEveryRow(sessionStartMs: number) {
  const txs = await new LedgerStore(dbOf(agent.runtime), agent.runtime.agentId).after(0, Number.MAX_SAFE_INTEGER);
  return { totals: ledgerTotals(txs, sessionStartMs), metrics: ledgerMetrics(txs), count: txs.length };
}

async function expectEveryRow(ledger: RewardLedgerService): Promise<void> {
  const expected = await fromEveryRow(ledger.sessionStartMs);
  expect(await ledger.totals()).toEqual(expected.totals);
  expect(await ledger.metrics()).toEqual(expected.metrics);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-ledger-fold-'));
  agent = await startAgent({ dataDir: dir, settings: SETTINGS });
});
afterAll(async () => {
  await agent.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ledger totals kept by the appends', () => {
  test('ingests, group-committed appends and another service appending between them: the totals are those of every row', async () => {
    const first = started(await rewardLedgerOf(agent.runtime));
    const second = started(await RewardLedgerService.start(agent.runtime));
    try {
      await agent.service.ingest(makeRows({ n: 30, labels: ['fixed', 'rejected_fp', 'accepted'], keyPrefix: 'fold-a' }));
      await expectEveryRow(first);
      await Promise.all([first.appendMany(Array.from({ length: 20 }, (_, i) => event(`a-${i}`, i % 3 === 0 ? -4 : 6))), second.appendMany(Array.from({ length: 15 }, (_, i) => event(`b-${i}`, i % 2 === 0 ? -2 : 9)))]);
      await agent.service.ingest(makeRows({ n: 12, labels: ['reopened', 'fixed'], keyPrefix: 'fold-b' }));
      await second.appendMany(Array.from({ length: 1_500 }, (_, i) => event(`c-${i}`, 1 + (i % 5))));
      await first.append(event('d-0', 3));
      await expectEveryRow(first);
      await expectEveryRow(second);
      expect((await first.metrics()).actions_total).toBe((await fromEveryRow(0)).count);
    } finally {
      await second.stop();
    }
  }, 60_000);

  test('an append inside a transaction that rolls back leaves the totals of the rows that stayed', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    const before = await fromEveryRow(ledger.sessionStartMs);
    const failure = new Error('the caller gave up after appending');
    const rolledBack = dbOf(agent.runtime).transaction(async (t) => {
      expect((await ledger.appendWithin(t, [event('rolled-back-0', 50), event('rolled-back-1', -5)])).every((r) => r.ok)).toBe(true);
      throw failure;
    });
    await expect(rolledBack).rejects.toBe(failure);
    expect((await fromEveryRow(ledger.sessionStartMs)).count).toBe(before.count);
    // Another service takes the sequences the rolled-back rows had, with other points: the totals
    // this one kept past the rollback no longer hold, and those of the rows that stayed are used.
    const other = started(await RewardLedgerService.start(agent.runtime));
    try {
      await other.appendMany([event('after-rollback-0', 7), event('after-rollback-1', 8)]);
    } finally {
      await other.stop();
    }
    await expectEveryRow(ledger);
    await ledger.appendMany([event('after-rollback-2', -9)]);
    await expectEveryRow(ledger);
  }, 60_000);

  test('after a restart the totals go on from the stored fold, with what was appended since', async () => {
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    const ledger = started(await rewardLedgerOf(agent.runtime));
    await expectEveryRow(ledger);
    await agent.service.ingest(makeRows({ n: 8, labels: ['fixed', 'accepted'], keyPrefix: 'fold-c' }));
    await ledger.appendMany(Array.from({ length: 5 }, (_, i) => event(`e-${i}`, -1 - i)));
    await expectEveryRow(ledger);
    expect((await ledger.totals()).session_score).not.toBe((await ledger.totals()).total_score);
  }, 60_000);
});
