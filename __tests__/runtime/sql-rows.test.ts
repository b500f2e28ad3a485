import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { outcomesTable } from '../../src/scan/tables';
import { dbOf, eachKey, jsonRows, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

/** `n` outcomes with keys `${prefix}-i`, two labels for every tenth. */
function rows(prefix: string, n: number): Record<string, unknown>[] {
  const at = (i: number) => new Date(Date.parse('2026-09-01T00:00:00Z') + i * 60_000).toISOString();
  const base = (i: number) => ({ finding_key: `${prefix}-${i}`, project: `p${i % 3}`, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' });
  return Array.from({ length: n }, (_, i) => [{ ...base(i), label: 'accepted', ts: at(i) }, ...(i % 10 === 0 ? [{ ...base(i), label: 'fixed', ts: at(i + 1) }] : [])]).flat();
}

describe('eachKey and jsonRows on the runtime database', () => {
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

  test('eachKey: a key with an unpaired surrogate finds what a text parameter finds (U+FFFD), and does not fail', async () => {
    const db = dbOf(agent.runtime);
    await agent.service.ingest([{ ...rows('x', 1)[0], finding_key: 'odd-\uFFFD' }]);
    const found = await queryRows<{ finding_key: string }>(db, sql`SELECT x.finding_key FROM ${byKeys(['odd-\uD800'])}`);
    const asParameter = await queryRows<{ finding_key: string }>(
      db,
      sql`SELECT finding_key FROM ${outcomesTable} WHERE agent_id = ${agent.runtime.agentId}::uuid AND finding_key = ${'odd-\uD800'}`,
    );
    expect(found).toEqual([{ finding_key: 'odd-\uFFFD' }]);
    expect(found).toEqual(asParameter);
  });

  const COLUMNS = { id: 'uuid', label: 'text', rank: 'smallint', n: 'int', p: 'numeric', x: 'float8', ok: 'boolean', doc: 'jsonb' };
  const read = (rows: readonly object[]) =>
    queryRows<Record<string, unknown>>(
      dbOf(agent.runtime),
      sql`SELECT v.id::text, v.label, v.rank, v.n, v.p::text AS p, v.x, v.ok, v.doc::text AS doc, pg_typeof(v.rank)::text AS rank_type FROM ${jsonRows(rows, COLUMNS)}`,
    );

  test('jsonRows: every row in order, each field as its column type; a missing field or null is NULL, fields not named are left out', async () => {
    const id = '0b9e7d6c-5a4b-4c3d-8e2f-1a0b9c8d7e6f';
    const got = await read([
      { id, label: 'a', rank: 3, n: 2_000_000_000, p: 0.1, x: 0.30000000000000004, ok: true, doc: { k: [1, 'two', null], deep: { s: 'é' } }, extra: 'ignored' },
      { label: null, rank: -2, n: 0, p: -1e-7, x: 1e300, ok: false, doc: null },
      { label: 'c' },
    ]);
    expect(got).toEqual([
      { id, label: 'a', rank: 3, n: 2_000_000_000, p: '0.1', x: 0.30000000000000004, ok: true, doc: '{"k": [1, "two", null], "deep": {"s": "é"}}', rank_type: 'smallint' },
      { id: null, label: null, rank: -2, n: 0, p: '-0.0000001', x: 1e300, ok: false, doc: null, rank_type: 'smallint' },
      { id: null, label: 'c', rank: null, n: null, p: null, x: null, ok: null, doc: null, rank_type: 'smallint' },
    ]);
    expect(await read([])).toEqual([]);
  });

  test('jsonRows: an infinite or NaN number reaches a float8 column as itself, as its own parameter did (JSON alone would make it null)', async () => {
    const got = await queryRows<{ x: number; y: number; z: string }>(
      dbOf(agent.runtime),
      sql`SELECT v.x, v.y, v.z::text AS z FROM ${jsonRows([{ x: Number.POSITIVE_INFINITY, y: Number.NEGATIVE_INFINITY, z: Number.NaN }], { x: 'float8', y: 'float8', z: 'float8' })}`,
    );
    expect(got).toEqual([{ x: Number.POSITIVE_INFINITY, y: Number.NEGATIVE_INFINITY, z: 'NaN' }]);
  });

  test('jsonRows: numeric sums are exact (0.1 + 0.2 = 0.3), as with a text parameter per value', async () => {
    const [row] = await queryRows<{ s: string }>(dbOf(agent.runtime), sql`SELECT sum(v.p)::text AS s FROM ${jsonRows([{ p: 0.1 }, { p: 0.2 }], { p: 'numeric' })}`);
    expect(row?.s).toBe('0.3');
  });

  test('jsonRows: text that looks like SQL or JSON comes back byte for byte; an unpaired surrogate in a text column becomes U+FFFD, as a text parameter does', async () => {
    const hostile = [`'); DROP TABLE x; --`, '"}],"label":"z', '\\u0041 \\"', '\u2028\u2029 😀 \t\n'];
    const got = await read(hostile.map((label) => ({ label })));
    expect(got.map((r) => r.label)).toEqual(hostile);
    const [odd] = await read([{ label: 'a\uD800b\uDC00' }]);
    const [asParameter] = await queryRows<{ t: string }>(dbOf(agent.runtime), sql`SELECT ${'a\uD800b\uDC00'}::text AS t`);
    expect(odd?.label).toBe('a\uFFFDb\uFFFD');
    expect(odd?.label).toBe(asParameter?.t);
  });

  test('jsonRows: a U+0000 in text, or an unpaired surrogate inside a jsonb value, makes the database refuse the statement, as before', async () => {
    await expect(read([{ label: 'a\u0000b' }])).rejects.toThrow();
    await expect(read([{ doc: { s: 'a\uD800' } }])).rejects.toThrow();
  });
});
