// GET /self-improve/trajectories' count, accepted and paid_sats come from one kept row per agent,
// which triggers on plugin-sql's memories keep equal to the sums over the stored trajectories
// whoever stores, changes or deletes them; a database from before the row is counted once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { TRAJECTORIES_TABLE, type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { aggregatedTrajectoryTotals, trajectoryTotals } from '../../src/trajectories/trajectory-totals';
import { pruneTrajectories } from '../../src/trajectories/trajectory-store';
import { trajectoryTotalsTable } from '../../src/trajectories/tables';
import { dbOf, queryRows } from '../../src/shared/sql';
import { agentMemory } from '../../src/shared/agent-memory';
import { startAgent, type TestAgent } from '../helpers/runtime';

const BOOT_MS = 60_000;
/** An accepted session log (tests and commits); `variant` makes it its own. */
const accepted = (variant: string) =>
  ['$ npm test', 'Tests: 40 passed, 40 total', `$ git commit -am "fix ${variant}"`, '[main 9d8c7b6] fix', '$ git commit -am "tests"', '[main 1a2b3c4] tests'].join('\n');
/** A chat with no work in it: stored, not accepted. */
const chat = (variant: string) => JSON.stringify({ kind: 'message', text: `hello ${variant}` });

async function keptRow(agent: TestAgent): Promise<Record<string, unknown> | undefined> {
  return (await queryRows<Record<string, unknown>>(dbOf(agent.runtime), sql`SELECT * FROM ${trajectoryTotalsTable} WHERE agent_id = ${agent.runtime.agentId}::uuid`))[0];
}

async function expectKeptEqualsStored(agent: TestAgent): Promise<void> {
  expect(await keptRow(agent)).toBeDefined();
  expect(await trajectoryTotals(dbOf(agent.runtime), agent.runtime.agentId)).toEqual(await aggregatedTrajectoryTotals(dbOf(agent.runtime), agent.runtime.agentId));
}

describe('trajectory totals kept by the database', () => {
  let dir: string;
  let agent: TestAgent;
  let service: TrajectoryService;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-trajectory-totals-'));
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: '100000000' } });
    service = await trajectoryServiceOf(agent.runtime);
    await service.totalsKept;
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }, BOOT_MS);

  test('stored, paid or not, accepted or not: the kept totals are the sums of the stored rows', async () => {
    expect(await keptRow(agent)).toMatchObject({ trajectories: 0 });
    for (let i = 0; i < 6; i++) await service.submit(accepted(`a-${i}`), 'cli', `a-${i}`, { pay: i % 2 === 0 });
    for (let i = 0; i < 3; i++) await service.submit(chat(`c-${i}`), 'http', `c-${i}`, { pay: false });
    const totals = await service.totals();
    expect(totals.count).toBe(9);
    expect(totals.accepted).toBe(6);
    expect(totals.paid_sats).toBeGreaterThan(0);
    expect(totals.accepted_sats).toBeGreaterThan(totals.paid_sats);
    await expectKeptEqualsStored(agent);
  });

  test('other memories leave them alone; a trajectory deleted or changed in the database moves them, and a malformed one counts as nothing paid', async () => {
    const before = await service.totals();
    await agent.runtime.createMemory(agentMemory(agent.runtime, crypto.randomUUID() as UUID, 'not a trajectory', { type: 'note' }, { createdAt: Date.now(), unique: false }), 'messages');
    expect(await service.totals()).toEqual(before);
    const db = dbOf(agent.runtime);
    const [paid] = await queryRows<{ id: string }>(db, sql`SELECT id FROM memories WHERE agent_id = ${agent.runtime.agentId}::uuid AND type = ${TRAJECTORIES_TABLE} AND (metadata->>'paid_sats')::numeric > 0 LIMIT 1`);
    // Deleted as another process or a person would: plugin-sql's deleteMemory fails on a memory without a documentId (1.7.2).
    await db.execute(sql`DELETE FROM memories WHERE id = ${paid?.id}::uuid`);
    expect((await service.totals()).count).toBe(before.count - 1);
    await expectKeptEqualsStored(agent);
    await db.execute(sql`UPDATE memories SET metadata = jsonb_set(metadata, '{paid_sats}', '"lots"') WHERE agent_id = ${agent.runtime.agentId}::uuid AND type = ${TRAJECTORIES_TABLE} AND (metadata->>'paid_sats') <> '0'`);
    await expectKeptEqualsStored(agent);
    expect((await service.totals()).paid_sats).toBe(0);
  });

  test('retention deletes the oldest over many statements: the totals follow', async () => {
    for (let i = 0; i < 12; i++) await service.submit(accepted(`p-${i}`), 'cli', `p-${i}`, { pay: true });
    const db = dbOf(agent.runtime);
    expect(await pruneTrajectories(db, agent.runtime.agentId, 5, { cutStep: 3, deleteChunk: 2 })).toBeGreaterThan(0);
    expect((await service.totals()).count).toBe(5);
    await expectKeptEqualsStored(agent);
  });

  test('a database without the kept row or a trigger (from before them) answers from the aggregate, and the next start installs them and counts it once', async () => {
    for (let i = 0; i < 4; i++) await service.submit(accepted(`r-${i}`), 'cli', `r-${i}`, { pay: true });
    const expected = await aggregatedTrajectoryTotals(dbOf(agent.runtime), agent.runtime.agentId);
    await dbOf(agent.runtime).execute(sql`DELETE FROM ${trajectoryTotalsTable}`);
    expect(await service.totals()).toEqual(expected);
    // A trigger lost as well: the next start installs them again.
    await dbOf(agent.runtime).execute(sql`DROP TRIGGER self_improve_trajectory_totals_insert ON memories`);
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: '100000000' } });
    service = await trajectoryServiceOf(agent.runtime);
    await service.totalsKept;
    expect(await keptRow(agent)).toBeDefined();
    expect(await service.totals()).toEqual(expected);
    await service.submit(accepted('after-restart'), 'cli', 'after-restart', { pay: true });
    expect((await service.totals()).count).toBe(expected.count + 1);
    await expectKeptEqualsStored(agent);
  }, BOOT_MS);
});
