import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { dbOf, queryRows } from '../../src/shared/sql';
import { groupKeyOf } from '../../src/scan/model/grouping';
import type { OutcomeRow } from '../../src/scan/model/outcome';
import { TriagePrior } from '../../src/scan/model/triage-prior';
import { groupLabelCounts, groupLabelCountsReady, outcomesTable, triageLevelCounts, triageLevelCountsReady } from '../../src/scan/tables';
import { startAgent, type TestAgent } from '../helpers/runtime';

const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'];
// Names a query built by hand would trip on: quotes, backslashes, JSON-looking text, non-ASCII.
const SCANNERS = ['semgrep', 'code"ql', 'a\\b', '["scanner","x"]', 'süß'];
const CATEGORIES: (string | undefined)[] = ['sql-injection', undefined, 'x"ss', 'null'];

function rows(prefix: string, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const category = CATEGORIES[(i * 3) % CATEGORIES.length];
    return {
      finding_key: `${prefix}-${Math.floor(i / 2)}`,
      label: LABELS[(i * 7) % LABELS.length],
      ts: new Date(Date.parse('2026-09-01T00:00:00Z') + i * 60_000).toISOString(),
      project: `project-${i % 3}`,
      scanner: SCANNERS[i % SCANNERS.length],
      model_provider: 'openai',
      model_name: 'gpt-4o',
      ...(category === undefined ? {} : { category }),
    };
  });
}

/** The group counts straight from the outcome rows. */
async function groupsFromRows(agent: TestAgent) {
  return queryRows<{ group_id: string; label: string; n: number | string }>(
    dbOf(agent.runtime),
    sql`SELECT group_id, label, count(*) AS n FROM ${outcomesTable} WHERE agent_id = ${agent.runtime.agentId}::uuid GROUP BY group_id, label ORDER BY group_id, label`,
  ).then((rs) => rs.map((r) => ({ group_id: r.group_id, label: r.label, n: Number(r.n) })));
}

async function keptGroups(agent: TestAgent) {
  return queryRows<{ group_id: string; label: string; n: number | string }>(
    dbOf(agent.runtime),
    sql`SELECT group_id, label, n FROM ${groupLabelCounts} WHERE agent_id = ${agent.runtime.agentId}::uuid AND n > 0 ORDER BY group_id, label`,
  ).then((rs) => rs.map((r) => ({ group_id: r.group_id, label: r.label, n: Number(r.n) })));
}

async function keptParents(agent: TestAgent) {
  return queryRows<{ level: string; scanner: string; category: string; has_category: boolean; label: string; n: number | string }>(
    dbOf(agent.runtime),
    sql`SELECT level, scanner, category, has_category, label, n FROM ${triageLevelCounts} WHERE agent_id = ${agent.runtime.agentId}::uuid ORDER BY level, scanner, category, has_category, label`,
  ).then((rs) => rs.map((r) => ({ ...r, n: Number(r.n) })));
}

/** Every stored outcome row, as ingested. */
async function storedRows(agent: TestAgent): Promise<OutcomeRow[]> {
  const stored = await queryRows<{ row_json: OutcomeRow | string }>(dbOf(agent.runtime), sql`SELECT row_json FROM ${outcomesTable} WHERE agent_id = ${agent.runtime.agentId}::uuid`);
  return stored.map((r) => (typeof r.row_json === 'string' ? (JSON.parse(r.row_json) as OutcomeRow) : r.row_json));
}

/** The reference: the in-memory prior over every stored row, against the service's predictions from the kept counts, for every group seen and one never seen. */
async function expectPredictionsFromEveryRow(agent: TestAgent): Promise<number> {
  const stored = await storedRows(agent);
  const reference = new TriagePrior(agent.service.settings.SELF_IMPROVE_PRIOR_STRENGTH);
  for (const row of stored) reference.add(groupKeyOf(row), row.label);
  const findings = [...stored, { ...(stored[0] as OutcomeRow), project: 'never-seen', scanner: 'never-seen' }];
  for (const row of findings) {
    const { label: _label, ...finding } = row;
    const predicted = await agent.service.predict({ ...finding, finding_key: 'probe' });
    if (!predicted.ok) throw new Error(`refused: ${JSON.stringify(predicted.rejections)}`);
    const expected = reference.estimate(groupKeyOf(row), row.confidence);
    expect(predicted.prediction.evidence).toEqual(expected.evidence);
    expect(predicted.prediction.p_false_positive).toBeCloseTo(expected.p_false_positive, 12);
  }
  expect(await agent.service.globalFalsePositiveRate()).toBeCloseTo(reference.globalFalsePositiveRate(), 12);
  return stored.length;
}

describe("the triage prior's counts, kept in the database", () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  test('every insert adds what it stored at every level, once: a row sent again adds nothing', async () => {
    expect((await agent.service.ingest(rows('a', 120))).rejected).toEqual([]);
    expect((await agent.service.ingest(rows('a', 120))).duplicate).toBe(120);
    expect((await agent.service.ingest(rows('b', 45))).rejected).toEqual([]);
    const groups = await keptGroups(agent);
    expect(groups.reduce((n, c) => n + c.n, 0)).toBe(165);
    expect(groups).toEqual(await groupsFromRows(agent));
    const parents = await keptParents(agent);
    expect(parents.filter((p) => p.level === 'global').reduce((n, c) => n + c.n, 0)).toBe(165);
    expect(parents.filter((p) => p.level === 'scanner').reduce((n, c) => n + c.n, 0)).toBe(165);
    // A row without a category and one whose category is the text "null" are counted apart.
    const categoryless = parents.filter((p) => p.level === 'scanner_category' && !p.has_category);
    expect(categoryless.length).toBeGreaterThan(0);
    expect(categoryless.every((p) => p.category === '')).toBe(true);
    expect(parents.some((p) => p.level === 'scanner_category' && p.has_category && p.category === 'null')).toBe(true);
    expect(await expectPredictionsFromEveryRow(agent)).toBe(165);
  });

  test('outcomes stored before any count was kept are counted once from their rows, then kept by each insert', async () => {
    const db = dbOf(agent.runtime);
    for (const table of [groupLabelCounts, groupLabelCountsReady, triageLevelCounts, triageLevelCountsReady]) await db.execute(sql`DELETE FROM ${table}`);
    // An insert before the counts are made whole only adds its own rows; the count from the rows replaces them.
    await agent.service.ingest(rows('c', 30));
    await agent.service.outcomes.ensureLabelCounts();
    expect(await keptGroups(agent)).toEqual(await groupsFromRows(agent));
    expect(await expectPredictionsFromEveryRow(agent)).toBe(195);
    await agent.service.ingest(rows('d', 30));
    expect(await keptGroups(agent)).toEqual(await groupsFromRows(agent));
    expect(await expectPredictionsFromEveryRow(agent)).toBe(225);
  });

  test('a database from before the parent levels were kept gets them summed from the group counts, with the same names', async () => {
    const db = dbOf(agent.runtime);
    const before = await keptParents(agent);
    expect(before.length).toBeGreaterThan(20);
    await db.execute(sql`DELETE FROM ${triageLevelCounts}`);
    await db.execute(sql`DELETE FROM ${triageLevelCountsReady}`);
    await agent.service.outcomes.ensureLabelCounts();
    expect(await keptParents(agent)).toEqual(before);
    expect(await expectPredictionsFromEveryRow(agent)).toBe(225);
  });

  test('without its marker, the parent counts are summed again, whatever they held', async () => {
    const db = dbOf(agent.runtime);
    await db.execute(sql`DELETE FROM ${triageLevelCountsReady}`);
    await db.execute(sql`UPDATE ${triageLevelCounts} SET n = n + 1000`);
    await agent.service.outcomes.ensureLabelCounts();
    expect(await expectPredictionsFromEveryRow(agent)).toBe(225);
  });
});
