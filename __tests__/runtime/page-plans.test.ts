// A page of lessons or trajectories reads its rows in index order and stops at the page's size,
// however many rows tie on the first sort key (PGlite never analyses a table, so the planner
// only takes that plan when the ORDER BY names the index's own columns); a reconciliation range of
// outcome ids reads only its own rows, the first and the last range too.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type SQL, sql } from 'drizzle-orm';
import { countScanLessonsPageQuery, SCAN_LESSONS_GROUP_INDEX, scanLessonIdsOfGroup, scanLessonIdsOfGroupQuery, scanLessonIdsPageQuery } from '../../src/scan/scan-lesson-sql';
import { type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { trajectoryPageQuery } from '../../src/trajectories/trajectory-store';
import { inRefRange, newestQuery } from '../../src/ledger/ledger-store';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { ledgerTable } from '../../src/ledger/tables';
import { refRanges } from '../../src/ledger/model/ref-ranges';
import { outcomesTable } from '../../src/scan/tables';
import { makeRows } from '../helpers/rows';
import { dbOf, queryRows, queryRowsInIndexOrder } from '../../src/shared/sql';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { startAgent, type TestAgent } from '../helpers/runtime';

const LESSONS = 400;
const TRAJECTORIES = 120;
const SAME_TIME = '2026-11-01T00:00:00.000Z';
const OUTCOMES = 3_000;

/** The plan of `query`, with how many rows each node returned, read by `read` (`queryRowsInIndexOrder` for a read made in index order). */
async function plan(agent: TestAgent, query: SQL, read: typeof queryRows = queryRows): Promise<string> {
  const rows = await read<{ 'QUERY PLAN': string }>(dbOf(agent.runtime), sql`EXPLAIN ANALYZE ${query}`);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The largest row count any node of the plan returned. */
const mostRows = (text: string) => Math.max(...[...text.matchAll(/rows=(\d+) loops/g)].map((m) => Number(m[1])));

describe('page plans', () => {
  let agent: TestAgent;
  let trajectories: TrajectoryService;
  beforeAll(async () => {
    agent = await startAgent();
    for (let i = 0; i < LESSONS; i++) {
      const l = syntheticScanLesson(i);
      const metadata = { ...l.metadata, last_seen: SAME_TIME };
      await agent.service.scanLessons.create(l.id, l.text, metadata, lexicalVector(l.text), Date.parse(SAME_TIME));
    }
    trajectories = await trajectoryServiceOf(agent.runtime);
    const ids: string[] = [];
    for (let i = 0; i < TRAJECTORIES; i++) ids.push((await trajectories.submit(`$ npm test\nTests: ${i} passed, ${i} total`, 'cli', `plan-${i}`, { pay: false })).stored.id);
    await agent.service.ingest(makeRows({ n: OUTCOMES, labels: ['fixed', 'rejected_fp', 'ignored'], keyPrefix: 'range' }));
    await dbOf(agent.runtime).execute(sql`UPDATE memories SET created_at = ${SAME_TIME}::timestamptz AT TIME ZONE 'UTC' WHERE id IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`);
  }, 120_000);
  afterAll(async () => {
    await agent.close();
  });

  test(`the lessons of one group are read through the group index, not by filtering all ${LESSONS} lessons of the agent`, async () => {
    const lesson = syntheticScanLesson(7);
    const group = lesson.metadata.group_id;
    const text = await plan(agent, scanLessonIdsOfGroupQuery(agent.runtime.agentId, group));
    expect(text).toContain(SCAN_LESSONS_GROUP_INDEX);
    expect(text).not.toContain('Rows Removed by Filter');
    const expected = Array.from({ length: LESSONS }, (_, i) => syntheticScanLesson(i)).filter((l) => l.metadata.group_id === group);
    expect(expected.length).toBeGreaterThan(0);
    expect((await scanLessonIdsOfGroup(dbOf(agent.runtime), agent.runtime.agentId, group)).sort()).toEqual(expected.map((l) => l.id).sort());
    // Another agent's lessons of the same group are not its own.
    expect(await scanLessonIdsOfGroup(dbOf(agent.runtime), '00000000-0000-4000-8000-000000000009', group)).toEqual([]);
  });

  test(`a page of 10 lessons out of ${LESSONS} that share their last_seen reads 10 index entries, unsorted`, async () => {
    const text = await plan(agent, scanLessonIdsPageQuery(agent.runtime.agentId, { limit: 10, after: null }));
    expect(text).toContain('self_improve_scan_lessons_newest');
    expect(text).not.toContain('Sort');
    expect(mostRows(text)).toBe(10);
    const after = await plan(agent, scanLessonIdsPageQuery(agent.runtime.agentId, { limit: 10, after: { lastSeen: SAME_TIME, id: '80000000-0000-0000-0000-000000000000' } }));
    expect(after).not.toContain('Sort');
    expect(mostRows(after)).toBe(10);
  });

  test(`a page of 10 trajectories out of ${TRAJECTORIES} stored at one time reads 10 index entries, unsorted`, async () => {
    const text = await plan(agent, trajectoryPageQuery(agent.runtime.agentId, { limit: 10, before: null }));
    expect(text).toContain('self_improve_trajectories_newest');
    expect(text).not.toContain('Sort');
    expect(mostRows(text)).toBe(10);
  });

  test('a read in index order runs with sorts, bitmap scans and JIT compilation off, for its own transaction only', async () => {
    const settings = sql`SELECT current_setting('enable_sort') AS sort, current_setting('enable_bitmapscan') AS bitmap, current_setting('jit') AS jit`;
    const db = dbOf(agent.runtime);
    expect(await queryRowsInIndexOrder(db, settings)).toEqual([{ sort: 'off', bitmap: 'off', jit: 'off' }]);
    const [after] = await queryRows<{ sort: string; bitmap: string }>(db, settings);
    expect([after?.sort, after?.bitmap]).toEqual(['on', 'on']);
    // The lesson count sorts its page to find the last lesson: a sort that cannot be avoided
    // carries the penalty cost of a disabled sort, over every JIT threshold, so a PostgreSQL built
    // with LLVM compiled the statement unless JIT is off (PGlite has no JIT).
    const text = await plan(agent, countScanLessonsPageQuery(agent.runtime.agentId, { limit: 20, after: null }), queryRowsInIndexOrder);
    expect(text).toContain('Sort');
    expect(text).not.toContain('JIT');
  });

  test('the newest 10 transactions of one category are read 10 index entries backwards, unsorted, with sorts and bitmap scans a last resort as the ledger reads them', async () => {
    const category = 'false_positive';
    const query = newestQuery(agent.runtime.agentId, 10, category);
    const text = await plan(agent, query, queryRowsInIndexOrder);
    expect(text).toContain('Index Scan Backward using ledger_category_idx');
    expect(text).not.toContain('Sort');
    expect(mostRows(text)).toBe(10);
    const all = await queryRows<{ sequence: number }>(dbOf(agent.runtime), sql`SELECT sequence::int AS sequence FROM ${ledgerTable} WHERE category = ${category} ORDER BY sequence DESC`);
    const history = await (await rewardLedgerOf(agent.runtime)).history({ limit: 10, category });
    expect(history.map((tx) => tx.sequence)).toEqual(all.slice(0, 10).map((r) => r.sequence));
  });

  test(`every one of 16 ranges of outcome ids, the open-ended first and last too, reads only its own rows through (agent, id); together they count all ${OUTCOMES}`, async () => {
    let total = 0;
    for (const range of refRanges(1)) {
      const where = sql`agent_id = ${agent.runtime.agentId}::uuid AND ${inRefRange(sql`id`, range, 'uuid')} AND label IN ('fixed', 'rejected_fp')`;
      const [row] = await queryRows<{ n: number }>(dbOf(agent.runtime), sql`SELECT count(*)::int AS n FROM ${outcomesTable} WHERE ${where}`);
      total += Number(row?.n);
      const text = await plan(agent, sql`SELECT count(*) FROM ${outcomesTable} WHERE ${where}`);
      expect(text).toContain('outcomes_agent_id_idx');
      expect(mostRows(text)).toBeLessThan(OUTCOMES / 4);
    }
    expect(total).toBe((OUTCOMES * 2) / 3);
  });
});
