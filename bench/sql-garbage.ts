import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { TALLY_COLUMNS } from '../src/scan/metric-rollup-store';
import { jsonRows } from '../src/shared/sql';
import { report, round } from './lib';

/**
 * The garbage one many-row write leaves for Bun's collector, in the two ways the plugin can give a
 * statement its rows: `values` (a `VALUES` list with a parameter per field, built with drizzle's
 * `sql` template, as the plugin's writes were) and `json` (the rows as one JSON parameter,
 * `jsonRows`). Each way runs in a process of its own under `BUN_JSC_logGC=1`: ROWS rows of ten
 * fields (a tally write of the metrics rollup, its `TALLY_COLUMNS`) upserted ITERS times into
 * PGlite, a turn of the event loop after each. Prints, per way, the collections and the megabytes
 * they freed during the writes, per statement, and the ratios of `values` to `json`, all measured
 * in this run. Bun only.
 */
const args = process.argv.slice(2);
const child = args[0]?.startsWith('--child=') ? args.shift()?.slice('--child='.length) : undefined;
const ROWS = Number(args[0] ?? 500);
const ITERS = Number(args[1] ?? 200);
const WAYS = ['values', 'json'] as const;
type Way = (typeof WAYS)[number];
const START = 'sql-garbage: start';
const END = 'sql-garbage: end';

function tallies(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    scope: `d:2026-01-${String(1 + (i % 28)).padStart(2, '0')}`,
    grain: i % 5,
    project: `project-${i % 7}`,
    scanner: `scanner-${i % 3}`,
    model: `provider/model-${i % 4}`,
    kind: 1,
    bucket: i,
    n: 1,
    p: 0.25 + (i % 3) / 10,
    y: i % 2,
  }));
}

const UPSERT = sql`ON CONFLICT (scope, grain, project, scanner, model, kind, bucket) DO UPDATE SET n = t.n + excluded.n, p_sum = t.p_sum + excluded.p_sum, y_sum = t.y_sum + excluded.y_sum`;

function write(way: Way, rows: ReturnType<typeof tallies>) {
  if (way === 'json') {
    return sql`INSERT INTO t AS t (scope, grain, project, scanner, model, kind, bucket, n, p_sum, y_sum)
      SELECT v.scope, v.grain, v.project, v.scanner, v.model, v.kind, v.bucket, sum(v.n), sum(v.p), sum(v.y)
      FROM ${jsonRows(rows, TALLY_COLUMNS)} GROUP BY 1, 2, 3, 4, 5, 6, 7 ${UPSERT}`;
  }
  const values = sql.join(
    rows.map((r) => sql`(${r.scope}, ${r.grain}::int, ${r.project}, ${r.scanner}, ${r.model}, ${r.kind}::int, ${r.bucket}::int, ${r.n}::int, ${String(r.p)}::numeric, ${r.y}::int)`),
    sql`, `,
  );
  return sql`INSERT INTO t AS t (scope, grain, project, scanner, model, kind, bucket, n, p_sum, y_sum)
    SELECT v.scope, v.grain::smallint, v.project, v.scanner, v.model, v.kind::smallint, v.bucket, sum(v.n), sum(v.p), sum(v.y)
    FROM (VALUES ${values}) AS v(scope, grain, project, scanner, model, kind, bucket, n, p, y) GROUP BY 1, 2, 3, 4, 5, 6, 7 ${UPSERT}`;
}

async function runChild(way: Way): Promise<void> {
  const client = new PGlite();
  const db = drizzle(client);
  await client.exec(
    'CREATE TABLE t (scope text, grain smallint, project text, scanner text, model text, kind smallint, bucket int, n int, p_sum numeric, y_sum int, PRIMARY KEY (scope, grain, project, scanner, model, kind, bucket))',
  );
  const rows = tallies(ROWS);
  for (let i = 0; i < 5; i++) await db.execute(write(way, rows));
  Bun.gc(true);
  process.stderr.write(`${START}\n`);
  const startedMs = performance.now();
  for (let i = 0; i < ITERS; i++) {
    await db.execute(write(way, rows));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const ms = performance.now() - startedMs;
  process.stderr.write(`${END}\n`);
  const [check] = (await client.query<{ n: number }>('SELECT sum(n)::int AS n FROM t')).rows;
  process.stdout.write(`${JSON.stringify({ ms, stored_n: check?.n })}\n`);
  await client.close();
}

/** Collections between the markers of a `BUN_JSC_logGC=1` log, and the megabytes of heap they freed. */
function collectionsIn(log: string): { collections: number; freed_mb: number } {
  const window = log.slice(log.indexOf(START), log.indexOf(END));
  let collections = 0;
  let freedKb = 0;
  let beforeKb: number | null = null;
  for (const line of window.split('\n')) {
    const start = /START \w (\d+)kb =>/.exec(line);
    if (start) beforeKb = Number(start[1]);
    const end = /=> (\d+)kb, p=/.exec(line);
    if (end && beforeKb !== null) {
      collections++;
      freedKb += beforeKb - Number(end[1]);
      beforeKb = null;
    }
  }
  return { collections, freed_mb: freedKb / 1024 };
}

async function measure(way: Way) {
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path, `--child=${way}`, String(ROWS), String(ITERS)], {
    env: { ...process.env, BUN_JSC_logGC: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, log, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${way} run exited with ${code}: ${log.slice(-2000)}`);
  const { ms, stored_n } = JSON.parse(out.trim()) as { ms: number; stored_n: number };
  const expected = ROWS * (5 + ITERS);
  if (stored_n !== expected) throw new Error(`${way}: the table counts ${stored_n}, not ${expected}`);
  const { collections, freed_mb } = collectionsIn(log);
  return { collections, freed_mb: round(freed_mb, 1), freed_mb_per_statement: round(freed_mb / ITERS, 2), ms_per_statement: round(ms / ITERS, 2) };
}

if (child !== undefined) {
  await runChild(child as Way);
} else {
  // Two rounds, the ways alternating, so a busy spell of the machine falls on both.
  const runs: Record<Way, Awaited<ReturnType<typeof measure>>[]> = { values: [], json: [] };
  for (let round_ = 0; round_ < 2; round_++) for (const way of WAYS) runs[way].push(await measure(way));
  const sum = (way: Way, key: 'freed_mb' | 'ms_per_statement' | 'collections') => runs[way].reduce((total, r) => total + r[key], 0);
  report({
    bench: 'sql-garbage',
    rows_per_statement: ROWS,
    fields_per_row: Object.keys(TALLY_COLUMNS).length,
    statements: ITERS,
    values: runs.values,
    json: runs.json,
    freed_ratio_values_to_json: round(sum('values', 'freed_mb') / Math.max(sum('json', 'freed_mb'), 0.1), 2),
    collections_ratio_values_to_json: round(sum('values', 'collections') / Math.max(sum('json', 'collections'), 1), 2),
    time_ratio_values_to_json: round(sum('values', 'ms_per_statement') / sum('json', 'ms_per_statement'), 2),
  });
}
