// SELF_IMPROVE_LOG_MAX_ROWS keeps each append-only log of an agent to its newest rows: the ELO
// update log through the ELO book, and pruneToNewest on any log table; other agents' rows stay.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { DEFAULT_LOG_LIMIT } from '../../src/elo/elo-report';
import { eloLog } from '../../src/elo/tables';
import { pruneToNewest } from '../../src/shared/log-retention';
import { dbOf, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

const KEEP = 1_000;
let agent: TestAgent;

async function logRows(agentId: string): Promise<{ n: number; newest: number; oldest: number }> {
  const [row] = await queryRows<{ n: number; newest: number; oldest: number }>(
    dbOf(agent.runtime),
    sql`SELECT count(*)::int AS n, max(seq)::int AS newest, min(seq)::int AS oldest FROM ${eloLog} WHERE agent_id = ${agentId}::uuid`,
  );
  return { n: Number(row?.n), newest: Number(row?.newest), oldest: Number(row?.oldest) };
}

beforeAll(async () => {
  agent = await startAgent({ settings: { SELF_IMPROVE_LOG_MAX_ROWS: String(KEEP) } });
});
afterAll(async () => {
  await agent.close();
});

describe('log retention', () => {
  test('the ELO update log never holds more than 110% of SELF_IMPROVE_LOG_MAX_ROWS, and keeps the newest', async () => {
    const book = await eloBookOf(agent.runtime);
    const sizes: number[] = [];
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 100; i++) book.recordOutcome([{ kind: 'file', id: `src/f${i}.ts` }], i % 2, 'outcome_reward');
      await book.flush();
      sizes.push((await logRows(agent.runtime.agentId)).n);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(KEEP * 1.1);
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(KEEP);
    const rows = await logRows(agent.runtime.agentId);
    expect(rows.newest - rows.oldest + 1).toBe(rows.n);
    // The newest entry written is still there.
    const [newest] = await book.updateLogEntries(1);
    expect(newest).toMatchObject({ entity_type: 'file', entity_id: 'src/f99.ts' });
  }, 60_000);

  test("the report's sample of the log, kept between reads, is the log's newest entries as retention leaves them", async () => {
    const book = await eloBookOf(agent.runtime);
    const direct = async () =>
      (await queryRows<{ entry: unknown }>(dbOf(agent.runtime), sql`SELECT entry FROM ${eloLog} WHERE agent_id = ${agent.runtime.agentId}::uuid ORDER BY seq DESC LIMIT ${DEFAULT_LOG_LIMIT}`)).map((r) =>
        typeof r.entry === 'string' ? JSON.parse(r.entry) : r.entry,
      );
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 37 * (round + 1); i++) book.recordOutcome([{ kind: 'file', id: `src/s${round}-${i}.ts` }], i % 2, 'outcome_reward');
      const sample = await book.updateLogEntries(DEFAULT_LOG_LIMIT);
      expect(sample.length).toBeGreaterThan(0);
      expect(sample).toEqual(await direct());
    }
  }, 60_000);

  test("pruneToNewest keeps one agent's newest rows and leaves other agents' rows alone", async () => {
    const db = dbOf(agent.runtime);
    const other = '00000000-0000-4000-8000-000000000001';
    for (let i = 0; i < 30; i++) await db.execute(sql`INSERT INTO ${eloLog} (agent_id, entry) VALUES (${other}::uuid, ${JSON.stringify({ i })}::jsonb)`);
    const before = await logRows(agent.runtime.agentId);
    expect(await pruneToNewest(db, eloLog, other, 10)).toBe(20);
    expect((await logRows(other)).n).toBe(10);
    expect(await logRows(agent.runtime.agentId)).toEqual(before);
    expect(await pruneToNewest(db, eloLog, other, 10)).toBe(0);
  });
});
