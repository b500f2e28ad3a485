import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type GroupLabelCount, groupLabelCountsOf } from '../../src/scan/group-label-counts';
import { dbOf, queryRows } from '../../src/shared/sql';
import { groupLabelCounts, groupLabelCountsReady, outcomesTable } from '../../src/scan/tables';
import { startAgent, type TestAgent } from '../helpers/runtime';

const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'];

function rows(prefix: string, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    finding_key: `${prefix}-${Math.floor(i / 2)}`,
    label: LABELS[(i * 7) % LABELS.length],
    ts: new Date(Date.parse('2026-09-01T00:00:00Z') + i * 60_000).toISOString(),
    project: `project-${i % 3}`,
    scanner: i % 2 === 0 ? 'semgrep' : 'codeql',
    model_provider: 'openai',
    model_name: 'gpt-4o',
    ...(i % 4 === 0 ? {} : { category: 'sql-injection' }),
  }));
}

/** The counts straight from the outcome rows. */
async function countedFromRows(agent: TestAgent) {
  const counted = await queryRows<{ group_id: string; label: GroupLabelCount['label']; n: number | string }>(
    dbOf(agent.runtime),
    sql`SELECT group_id, label, count(*) AS n FROM ${outcomesTable} WHERE agent_id = ${agent.runtime.agentId}::uuid GROUP BY group_id, label ORDER BY group_id, label`,
  );
  return counted.map((r) => ({ groupId: r.group_id, label: r.label, n: Number(r.n) }));
}

describe("the triage prior's counts per group and label", () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  test('every insert adds what it stored, once: a row sent again adds nothing', async () => {
    await agent.service.ingest(rows('a', 120));
    await agent.service.ingest(rows('a', 120));
    await agent.service.ingest(rows('b', 45));
    const kept = await agent.service.outcomes.labelCountsByGroup();
    expect(kept.reduce((n, c) => n + c.n, 0)).toBe(165);
    expect(kept).toEqual(await countedFromRows(agent));
  });

  test('outcomes stored before the counts were kept are counted once from their rows, then kept by each insert', async () => {
    const db = dbOf(agent.runtime);
    await db.execute(sql`DELETE FROM ${groupLabelCounts}`);
    await db.execute(sql`DELETE FROM ${groupLabelCountsReady}`);
    // An insert before the counts are ready only adds its own rows; the count from the rows replaces them.
    await agent.service.ingest(rows('c', 30));
    expect(await agent.service.outcomes.labelCountsByGroup()).toEqual(await countedFromRows(agent));
    await agent.service.ingest(rows('d', 30));
    expect(await agent.service.outcomes.labelCountsByGroup()).toEqual(await countedFromRows(agent));
    expect((await countedFromRows(agent)).reduce((n, c) => n + c.n, 0)).toBe(225);
  });

  test('read a few at a time (as a year of counts is), in key order, every count once', async () => {
    const all = await countedFromRows(agent);
    expect(all.length).toBeGreaterThan(7);
    for (const page of [1, 2, 7, all.length, all.length + 1]) {
      expect(await groupLabelCountsOf(dbOf(agent.runtime), agent.runtime.agentId, async () => {}, page)).toEqual(all);
    }
  });
});
