// SELF_IMPROVE_LOG_MAX_ROWS keeps each append-only log of an agent to its newest rows: the ELO
// update log through the ELO book, and pruneToNewest on any log table; other agents' rows stay.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { DEFAULT_LOG_LIMIT } from '../../src/elo/elo-report';
import { eloLog } from '../../src/elo/tables';
import { LogRetention, pruneToNewest } from '../../src/shared/log-retention';
import { RuleStore } from '../../src/rules/rule-store';
import { guardLog, ruleEvents, ruleParseErrors } from '../../src/rules/tables';
import type { GuardEntry } from '../../src/rules/model/logs';
import type { LearningEvent } from '../../src/rules/model/types';
import type { PgTable } from 'drizzle-orm/pg-core';
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

  test('pruneToNewest finds its cut and deletes across many statements (over 5,000 kept, over 2,000 deleted): the newest kept, exactly', async () => {
    const db = dbOf(agent.runtime);
    const other = '00000000-0000-4000-8000-000000000002';
    await db.execute(sql`INSERT INTO ${eloLog} (agent_id, entry) SELECT ${other}::uuid, jsonb_build_object('i', g) FROM generate_series(1, 17000) g`);
    const before = await logRows(agent.runtime.agentId);
    expect(await pruneToNewest(db, eloLog, other, 12_345)).toBe(17_000 - 12_345);
    const kept = await queryRows<{ n: number; first: number; last: number }>(
      db,
      sql`SELECT count(*)::int AS n, min((entry->>'i')::int) AS first, max((entry->>'i')::int) AS last FROM ${eloLog} WHERE agent_id = ${other}::uuid`,
    );
    expect(kept[0]).toEqual({ n: 12_345, first: 17_000 - 12_345 + 1, last: 17_000 });
    expect(await logRows(agent.runtime.agentId)).toEqual(before);
    expect(await pruneToNewest(db, eloLog, other, 12_345)).toBe(0);
  }, 60_000);

  test('the guard log and the rule parse errors are kept to their newest rows by the guard entries and errors written; rule events are never pruned', async () => {
    const keep = 1_000;
    const agentId = '00000000-0000-4000-8000-000000000003';
    const store = new RuleStore(dbOf(agent.runtime), agentId, new LogRetention(agentId, keep));
    const count = async (table: PgTable) =>
      Number((await queryRows<{ n: number }>(dbOf(agent.runtime), sql`SELECT count(*)::int AS n FROM ${table} WHERE agent_id = ${agentId}::uuid`))[0]?.n);
    const T0 = Date.parse('2026-02-11T10:30:00.000Z');
    const guard = (n: number): GuardEntry => ({ id: `g-${n}`, tsMs: T0 + n, action: 'post', matchedRules: [], scores: {}, saveLogged: false, outcome: 'pending' });
    const event = (n: number): LearningEvent => ({ id: `ev-${n}`, tsMs: T0 + n, type: 'mistake', category: 'shell', tags: [], problem: `p ${n}`, solution: 's', evidenceLevel: 'testing', source: 'session' });
    const sizes: number[] = [];
    for (let round = 0; round < 15; round++) {
      const ns = Array.from({ length: 100 }, (_, i) => round * 100 + i);
      await store.commitLearning({ guardEntries: ns.map(guard), parseErrors: ns.map((n) => ({ tsMs: T0 + n, error: 'bad', line: `{${n}`, script: 'x' })) });
      sizes.push(await count(guardLog));
    }
    // Events alone never prune the guard log (they used to count toward it); they are never pruned themselves.
    await store.commitLearning({ events: Array.from({ length: 1_500 }, (_, i) => event(i)) });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(keep * 1.1);
    expect(await count(guardLog)).toBeGreaterThanOrEqual(keep);
    expect(await count(ruleParseErrors)).toBeLessThanOrEqual(keep * 1.1);
    expect(await count(ruleEvents)).toBe(1_500);
    const newest = await store.guardEntries({ limit: 1 });
    expect(newest.items[0]?.id).toBe('g-1499');
  }, 60_000);
  test('a prune that fails is reported to the listener (not thrown to the appender, whose rows are committed) and tried again at the next append; without a listener it is thrown', async () => {
    const failures: unknown[] = [];
    const retention = new LogRetention('00000000-0000-4000-8000-000000000004', 10, (error) => failures.push(error));
    let attempts = 0;
    const failingOnce = async () => {
      attempts++;
      if (attempts === 1) throw new Error('database closed');
      return 5;
    };
    expect(await retention.noteAppendedTo('log', 1, failingOnce)).toBe(0);
    expect(failures).toHaveLength(1);
    // Still due: the next append prunes.
    expect(await retention.noteAppendedTo('log', 1, failingOnce)).toBe(5);
    expect(attempts).toBe(2);
    // Without a listener the failure reaches the appender.
    await expect(new LogRetention('00000000-0000-4000-8000-000000000004', 10).noteAppendedTo('log', 1, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
