// GET /self-improve/trajectories pages newest first by an indexed query, and
// SELF_IMPROVE_TRAJECTORY_MAX_ROWS keeps each agent's stored trajectories to the newest rows;
// a trajectory retention deleted and sent again is never paid twice.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { RouteRequest } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { handleGetTrajectories } from '../../src/trajectories/surfaces/trajectory-routes';
import { TRAJECTORIES_TABLE, type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { dbOf, queryRows } from '../../src/shared/sql';
import { pruneTrajectories } from '../../src/trajectories/trajectory-store';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';

const BOOT_MS = 60_000;
/** A session log that is accepted; `variant` makes its content (so its id) its own. */
const log = (variant: string) =>
  ['$ npm test', 'Tests: 40 passed, 40 total', `$ git commit -am "fix ${variant}"`, '[main 9d8c7b6] fix', '$ git commit -am "tests"', '[main 1a2b3c4] tests'].join('\n');

async function listPage(agent: TestAgent, query: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const { res, sent } = recordingResponse();
  const req: RouteRequest = { query, headers: {}, method: 'GET', path: '/self-improve/trajectories' };
  await handleGetTrajectories(req, res, agent.runtime);
  return { status: sent.status, body: sent.body as Record<string, any> };
}

async function storedRows(agent: TestAgent): Promise<{ id: string; created_at: string }[]> {
  return queryRows(
    dbOf(agent.runtime),
    sql`SELECT id, created_at::text AS created_at FROM memories WHERE agent_id = ${agent.runtime.agentId}::uuid AND type = ${TRAJECTORIES_TABLE}`,
  );
}

describe('paging stored trajectories', () => {
  let agent: TestAgent;
  let service: TrajectoryService;
  beforeAll(async () => {
    agent = await startAgent();
    service = await trajectoryServiceOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  test('pages of any size walk every trajectory exactly once, newest first, ties by id', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await service.submit(log(`page-${i}`), 'cli', `page-${i}`, { pay: i % 2 === 0 })).stored.id);
    // Storage times chosen here: some share a millisecond (a tie the id decides), and the
    // submission order is not the storage order.
    const db = dbOf(agent.runtime);
    for (const [i, id] of ids.entries()) {
      const at = new Date(Date.UTC(2026, 0, 1) + ((i * 7) % 23 >> 1) * 60_000).toISOString();
      await db.execute(sql`UPDATE memories SET created_at = ${at}::timestamptz AT TIME ZONE 'UTC' WHERE id = ${id}::uuid`);
    }
    const expected = (await storedRows(agent)).sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((r) => r.id);
    expect(new Set(expected)).toEqual(new Set(ids));
    expect(expected.length).toBe(23);

    for (const limit of [1, 5, 7, 23, 50]) {
      const walked: string[] = [];
      let before: string | null = null;
      let pages = 0;
      do {
        const page = await listPage(agent, { limit: String(limit), ...(before === null ? {} : { before }) });
        expect(page.status).toBe(200);
        expect(page.body.count).toBe(23);
        expect(page.body.trajectories.length).toBeLessThanOrEqual(limit);
        walked.push(...page.body.trajectories.map((t: { id: string }) => t.id));
        before = page.body.next_before;
        pages++;
      } while (before !== null);
      expect(walked).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(23 / limit)));
    }
  });

  test('the summary figures are the sums of the stored rows', async () => {
    const { body } = await listPage(agent, { limit: '1' });
    const all: { evaluation: { accepted: boolean }; paid_sats: number }[] = (await listPage(agent, { limit: '1000' })).body.trajectories;
    expect(body.count).toBe(all.length);
    expect(body.accepted).toBe(all.filter((t) => t.evaluation.accepted).length);
    expect(body.paid_sats).toBe(all.reduce((sum, t) => sum + t.paid_sats, 0));
    expect(body.paid_sats).toBeGreaterThan(0);
  });

  test('a bad limit or cursor is refused with a 400 naming it and what it allows', async () => {
    for (const limit of ['0', '1001', '-3', '2.5', 'all']) {
      expect(await listPage(agent, { limit })).toEqual({ status: 400, body: { error: `limit must be an integer from 1 to 1000 (got ${JSON.stringify(limit)})` } });
    }
    const forged = Buffer.from('yesterday|not-a-uuid').toString('base64url');
    expect(await listPage(agent, { before: forged })).toEqual({ status: 400, body: { error: `before must be the next_before of a previous page (got ${JSON.stringify(forged)})` } });
  });
});

describe('SELF_IMPROVE_TRAJECTORY_MAX_ROWS', () => {
  const KEEP = 100;
  let agent: TestAgent;
  let service: TrajectoryService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_TRAJECTORY_MAX_ROWS: String(KEEP), SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: '100000000' } });
    service = await trajectoryServiceOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  const paidEntriesOf = async (id: string) =>
    (await (await rewardLedgerOf(agent.runtime)).history({ limit: 1_000, category: 'trajectory_accepted' })).filter((t) => t.source_ref === id).map((t) => t.points);

  test('keeps at most 110% of the setting, and the newest; a deleted trajectory sent again is not paid twice', async () => {
    const first = (await service.submit(log('oldest'), 'cli', 'oldest')).stored;
    expect(first.paid_sats).toBeGreaterThan(0);
    expect(await paidEntriesOf(first.id)).toEqual([first.paid_sats]);
    const createdAt = new Map<string, string>();
    const sizes: number[] = [];
    for (let i = 0; i < 2.5 * KEEP; i++) {
      await service.submit(log(`bulk-${i}`), 'cli', `bulk-${i}`, { pay: false });
      const rows = await storedRows(agent);
      for (const r of rows) if (!createdAt.has(r.id)) createdAt.set(r.id, r.created_at);
      sizes.push(rows.length);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(KEEP * 1.1);
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(KEEP);
    const kept = new Set((await storedRows(agent)).map((r) => r.id));
    const oldestKept = [...kept].map((id) => createdAt.get(id) as string).sort()[0] as string;
    for (const [id, at] of createdAt) if (!kept.has(id)) expect(at <= oldestKept).toBe(true);
    expect(kept.has(first.id)).toBe(false);

    // The same content again: the same id, stored anew, and paid nothing (the ledger remembers).
    const again = (await service.submit(log('oldest'), 'cli', 'oldest-again')).stored;
    expect(again.id).toBe(first.id);
    expect(again.evaluation.accepted).toBe(true);
    expect(again.paid_sats).toBe(0);
    expect(await paidEntriesOf(first.id)).toEqual([first.paid_sats]);
    // A new trajectory still pays.
    expect((await service.submit(log('newest'), 'cli', 'newest')).stored.paid_sats).toBeGreaterThan(0);
  }, 120_000);
  test('a prune walks to its cut and deletes over many statements (steps of 7, chunks of 3 here): exactly the newest are kept, ties on created_at by id', async () => {
    const db = dbOf(agent.runtime);
    for (let i = 0; i < 40; i++) await service.submit(log(`prune-${i}`), 'cli', `prune-${i}`, { pay: false });
    // Half the trajectories share one created_at, the newer half another: the cut and the chunks fall inside ties.
    const ids = (await storedRows(agent)).map((r) => r.id).sort();
    const half = Math.floor(ids.length / 2);
    const at = (time: string, part: string[]) => db.execute(sql`UPDATE memories SET created_at = ${time}::timestamp WHERE id IN (${sql.join(part.map((id) => sql`${id}::uuid`), sql`, `)})`);
    await at('2026-11-01 00:00:00', ids.slice(0, half));
    await at('2026-11-02 00:00:00', ids.slice(half));
    const before = await storedRows(agent);
    const newestFirst = [...before].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
    // The cut falls among the older half's ties.
    const keep = half + 13;
    expect(before.length).toBeGreaterThan(keep + 3);
    expect(await pruneTrajectories(db, agent.runtime.agentId, keep, { cutStep: 7, deleteChunk: 3 })).toBe(before.length - keep);
    expect(new Set((await storedRows(agent)).map((r) => r.id))).toEqual(new Set(newestFirst.slice(0, keep).map((r) => r.id)));
    expect(await pruneTrajectories(db, agent.runtime.agentId, keep, { cutStep: 7, deleteChunk: 3 })).toBe(0);
  });
});
