import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { outcomesTable } from '../../src/scan/tables';
import { dbOf, eachKey, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

/** `n` outcomes with keys `${prefix}-i`, two labels for every tenth. */
function rows(prefix: string, n: number): Record<string, unknown>[] {
  const at = (i: number) => new Date(Date.parse('2026-09-01T00:00:00Z') + i * 60_000).toISOString();
  const base = (i: number) => ({ finding_key: `${prefix}-${i}`, project: `p${i % 3}`, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' });
  return Array.from({ length: n }, (_, i) => [{ ...base(i), label: 'accepted', ts: at(i) }, ...(i % 10 === 0 ? [{ ...base(i), label: 'fixed', ts: at(i + 1) }] : [])]).flat();
}

describe('eachKey: one index probe per key', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
    await agent.service.ingest(rows('k', 2_000));
  });
  afterAll(async () => {
    await agent.close();
  });

  const byKeys = (keys: readonly string[]) =>
    eachKey(keys, (key) => sql`SELECT finding_key, label FROM ${outcomesTable} WHERE agent_id = ${agent.runtime.agentId}::uuid AND finding_key = ${key}`);

  test('returns the rows of exactly the keys given (a key given twice, twice); none for no keys', async () => {
    const db = dbOf(agent.runtime);
    const found = await queryRows<{ finding_key: string; label: string }>(db, sql`SELECT x.* FROM ${byKeys(['k-10', 'k-11', 'k-11', "it's not there", 'k-1999'])} ORDER BY x.finding_key, x.label`);
    expect(found).toEqual([
      { finding_key: 'k-10', label: 'accepted' },
      { finding_key: 'k-10', label: 'fixed' },
      { finding_key: 'k-11', label: 'accepted' },
      { finding_key: 'k-11', label: 'accepted' },
      { finding_key: 'k-1999', label: 'accepted' },
    ]);
    expect(await queryRows(db, sql`SELECT x.* FROM ${byKeys([])}`)).toEqual([]);
  });

  test('the plan probes the (agent, finding_key, label) index per key and never reads the agent’s other rows (PGlite has no statistics)', async () => {
    const keys = Array.from({ length: 250 }, (_, i) => `k-${i * 7}`);
    const plan = (await queryRows<{ 'QUERY PLAN': string }>(dbOf(agent.runtime), sql`EXPLAIN ANALYZE SELECT x.* FROM ${byKeys(keys)}`)).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('outcomes_agent_id_finding_key_label_unique');
    expect(plan).not.toContain('Rows Removed by Filter');
    expect(plan).not.toContain('Seq Scan on outcomes');
  });
});
