// The ELO report's reads cost what they return, not the size of the book: the states of the
// items its log samples name are one primary-key probe each (PGlite never analyses a table, and a
// join of the list with the items was planned as a read of every item), and the log samples are
// the newest entries, newest first.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import { itemStatesQuery } from '../../src/elo/elo-item-rows';
import { dbOf, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

const ITEMS = 3_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');

describe('ELO report reads', () => {
  let agent: TestAgent;
  let book: EloBookService;
  beforeAll(async () => {
    agent = await startAgent();
    book = await eloBookOf(agent.runtime);
    for (let i = 0; i < ITEMS; i++) {
      book.recordAccess('file', `src/file-${i}.ts`, {}, T0 + i * 1_000);
      if (i % 500 === 499) await book.flush();
    }
    await book.flush();
  }, 120_000);
  afterAll(async () => {
    await agent.close();
  });

  test(`the states of 3 items out of ${ITEMS} (and one never stored) read 3 rows through the primary key`, async () => {
    const refs = [0, 1_500, 2_999].map((i) => ({ kind: 'file', id: `src/file-${i}.ts` })).concat({ kind: 'file', id: 'src/never.ts' });
    const rows = await queryRows<{ 'QUERY PLAN': string }>(dbOf(agent.runtime), sql`EXPLAIN ANALYZE ${itemStatesQuery(agent.runtime.agentId, refs)}`);
    const text = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).not.toContain('Seq Scan on elo_items');
    expect(Math.max(...[...text.matchAll(/rows=(\d+) loops/g)].map((m) => Number(m[1])))).toBeLessThanOrEqual(refs.length);
    const figures = await book.countedFigures(T0 + ITEMS * 1_000, 10, 100, refs);
    expect(refs.map((r) => figures?.tierNow(r) !== undefined)).toEqual([true, true, true, false]);
  });

  test('the update log sample is the newest entries, newest first', async () => {
    const entries = await book.updateLogEntries(5);
    expect(entries).toHaveLength(5);
    expect(entries.map((e) => e.entity_id)).toEqual([2_999, 2_998, 2_997, 2_996, 2_995].map((i) => `src/file-${i}.ts`));
  });
});
