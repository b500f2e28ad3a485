import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { LIFECYCLE_RANK } from './model/findings';
import { checkMetricOptions, DRIFT_DAYS, type DriftWindow, driftWindows, type ScanMetricsReport } from './model/metrics';
import { ALL_SCOPE, GRAIN, SIZED_GRAINS, TALLY_KIND, weekScope, wholeHourScopes } from './model/metric-rollup';
import { rankSlices } from './model/metric-slices';
import { emptyCounts, medianPlan, metricSetOf, reportOf, SLICE_DIMS, type SliceCounts, sliceCounts, type SliceDim, sliceId, type SliceReads, type SliceTallyRow } from './model/metric-rollup-report';
import { checkWeeklyOptions, pointOf, WEEK_MS, type WeeklyTriageOptions, type WeeklyTriageReport } from './model/weekly-triage';
import { eachMetricOutcomePage } from './outcome-store';
import { WeekFold } from './model/week-fold';
import { chunks, type Db, queryJsonRows, queryRows, queryRowsInIndexOrder } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { findingMetrics, metricSliceSizes, metricTallies, outcomesTable, weekFindingMetrics } from './tables';

/**
 * The metrics read from the rollup (`MetricRollup`): a bounded number of tally rows (slices ×
 * buckets, and the days and hours of the drift windows) and top-k and median values through
 * indexes. Never an outcome row.
 */

/** Columns a slice dimension selects (fixed names, never outside text). */
const COLUMN: Record<Exclude<SliceDim, 'overall'>, SQL> = { project: sql.raw('project'), scanner: sql.raw('scanner'), model: sql.raw('model') };
const DIM_OF_GRAIN: Record<number, SliceDim | 'triple'> = { [GRAIN.overall]: 'overall', [GRAIN.project]: 'project', [GRAIN.scanner]: 'scanner', [GRAIN.model]: 'model', [GRAIN.triple]: 'triple' };

interface GrainRow {
  grain: number;
  project: string;
  scanner: string;
  model: string;
}

const dimOf = (r: GrainRow): SliceDim | 'triple' => DIM_OF_GRAIN[Number(r.grain)] ?? 'triple';
const valueOf = (dim: SliceDim | 'triple', r: GrainRow): string => (dim === 'project' ? r.project : dim === 'scanner' ? r.scanner : dim === 'model' ? r.model : '');

/** The slices a report shows, per dimension. */
type Shown = Record<Exclude<SliceDim, 'overall'>, string[]>;

/**
 * The rows of each statement, in order, each statement run in a turn of the event loop of its own
 * (a yield before it): the report is read in the background and in requests, and several of its
 * statements run as one held the event loop for over 100 ms on cold pages at 1M.
 */
async function eachInTurn<T>(db: Db, statements: readonly SQL[]): Promise<T[]> {
  const rows: T[] = [];
  for (const statement of statements) {
    await yieldToEventLoop();
    rows.push(...(await queryJsonRows<T>(db, statement)));
  }
  return rows;
}

/**
 * Slices one tally statement reads at most: the tallies and triples of 1,000 projects in one
 * statement held the event loop for 180 ms on the 1M bench database, and statements of 100 took
 * 94–116 ms on its cold pages (the thirty-third and thirty-fourth whole runs; about half of it
 * waiting on storage).
 */
const SLICES_PER_STATEMENT = 50;

/** The shown slices' rows, triples aside, as key-prefix conditions per grain, at most SLICES_PER_STATEMENT slices each (each reads its rows through the primary key, never the whole scope). */
function grainSelects(shown: Shown): SQL[] {
  const list = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`), sql`, `);
  return [
    sql`t.grain = ${GRAIN.overall}::int`,
    ...chunks(shown.project, SLICES_PER_STATEMENT).map((part) => sql`t.grain = ${GRAIN.project}::int AND t.project IN (${list(part)})`),
    ...chunks(shown.scanner, SLICES_PER_STATEMENT).map((part) => sql`t.grain = ${GRAIN.scanner}::int AND t.project = '' AND t.scanner IN (${list(part)})`),
    ...chunks(shown.model, SLICES_PER_STATEMENT).map((part) => sql`t.grain = ${GRAIN.model}::int AND t.project = '' AND t.scanner = '' AND t.model IN (${list(part)})`),
  ];
}

/** Size rows the slice ranking reads per statement. */
const SIZE_PAGE = 1_000;

/**
 * Per dimension, the `limit` slices with the most outcomes (ties by name in code-point order:
 * `rankSlices`) and how many there are, from the slices' sizes (`metric_slice_sizes`), read
 * SIZE_PAGE at a time in primary-key order with the event loop free between pages, keeping only
 * the leaders.
 */
async function pickShown(db: Db, agentId: UUID, limit: number): Promise<{ shown: Shown; totals: ScanMetricsReport['slice_totals'] }> {
  const shown: Shown = { project: [], scanner: [], model: [] };
  const totals = { project: 0, scanner: 0, model: 0 };
  for (const { dim, grain } of SIZED_GRAINS) {
    let leaders = new Map<string, number>();
    for (let after: string | null = null; ; ) {
      const page: { name: string; n: number }[] = await queryRowsInIndexOrder<{ name: string; n: number }>(
        db,
        sql`SELECT name, n::float8 AS n FROM ${metricSliceSizes}
            WHERE agent_id = ${agentId}::uuid AND grain = ${grain}::smallint ${after === null ? sql`` : sql`AND name > ${after}`}
            ORDER BY name LIMIT ${SIZE_PAGE}`,
      );
      for (const r of page) {
        if (Number(r.n) <= 0) continue;
        totals[dim]++;
        leaders.set(r.name, Number(r.n));
      }
      leaders = new Map(rankSlices(leaders, limit).map((key) => [key, leaders.get(key) as number]));
      await yieldToEventLoop();
      if (page.length < SIZE_PAGE) break;
      after = (page[page.length - 1] as { name: string }).name;
    }
    shown[dim] = [...leaders.keys()];
  }
  return { shown, totals };
}

/**
 * `computeScanMetrics`' report for `agentId` over the outcomes its rollup holds (`MetricRollup.lag`:
 * it reads tallies alone), showing at most `slices` slices per dimension.
 */
export async function rollupMetrics(db: Db, agentId: UUID, options: { asOfMs: number; k: number; slices: number } & ReadBudget): Promise<ScanMetricsReport> {
  const { asOfMs, k } = options;
  checkMetricOptions(options);
  const { shown, totals } = await pickShown(db, agentId, options.slices);
  const slices = grainSelects(shown).map(
    (where) => sql`(SELECT t.grain, t.project, t.scanner, t.model, t.kind, t.bucket, t.n::float8 AS n, t.p_sum::float8 AS p, (t.p_sum - t.y_sum)::float8 AS gap
      FROM ${metricTallies} t WHERE t.agent_id = ${agentId}::uuid AND t.scope = ${ALL_SCOPE} AND ${where})`,
  );
  // The shown projects' triples, for the model deltas: their outcome counts and reward sums, and their findings, false positives apart (-1: any other bucket).
  const rejected = sql`${LIFECYCLE_RANK.rejected_fp}::int`;
  const triples = chunks(shown.project, SLICES_PER_STATEMENT).map(
    (part) =>
      sql`(SELECT t.grain, t.project, t.scanner, t.model, t.kind, CASE WHEN t.kind = ${TALLY_KIND.label}::smallint AND t.bucket = ${rejected} THEN ${rejected} ELSE -1 END AS bucket,
             sum(t.n)::float8 AS n, sum(t.p_sum)::float8 AS p, 0::float8 AS gap
           FROM ${metricTallies} t WHERE t.agent_id = ${agentId}::uuid AND t.scope = ${ALL_SCOPE} AND t.grain = ${GRAIN.triple}::int
             AND t.project IN (${sql.join(part.map((v) => sql`${v}`), sql`, `)}) AND t.kind IN (${TALLY_KIND.outcome}::smallint, ${TALLY_KIND.label}::smallint)
           GROUP BY t.grain, t.project, t.scanner, t.model, t.kind, 6)`,
  );
  // One statement per grain and chunk of slices (and per chunk of triples): as one UNION ALL on cold pages at 1M it took up to 214 ms.
  const rows = await eachInTurn<GrainRow & { kind: number; bucket: number; n: number; p: number; gap: number }>(db, [...slices, ...triples]);
  const tallies: SliceTallyRow[] = rows.map((r) => {
    const dim = dimOf(r);
    return { dim, value: valueOf(dim, r), project: r.project, scanner: r.scanner, model: r.model, kind: Number(r.kind), bucket: Number(r.bucket), n: Number(r.n), p: Number(r.p), gap: Number(r.gap) };
  });
  const counts = sliceCounts(tallies);
  const reads = new Map<string, SliceReads>([...counts.keys()].map((id) => [id, { topConfirmed: 0, topTaken: 0, medianValues: [], drift: [] }]));
  // A turn of the event loop between the reads, so a report computed in the background (`ScanMetrics`)
  // holds it for one read at a time. A rollup step may land between two: `ScanMetrics` keeps no report
  // whose rollup version changed while it was read.
  await yieldToEventLoop();
  await readTopK(db, agentId, k, counts, reads, options.rowsPerStatement ?? TOP_K_ROWS_PER_STATEMENT);
  await yieldToEventLoop();
  await readMedians(db, agentId, counts, reads);
  await yieldToEventLoop();
  await readDrift(db, agentId, asOfMs, shown, reads);
  return { ...reportOf(asOfMs, k, counts, reads, tallies), slice_totals: totals, slice_limit: options.slices };
}

function slicesOf(counts: ReadonlyMap<string, SliceCounts>, dim: SliceDim): string[] {
  return [...counts.keys()].filter((id) => id.startsWith(`${dim}\u0000`)).map((id) => id.slice(dim.length + 1));
}

/** How many top-k rows one statement reads (`TOP_K_ROWS_PER_STATEMENT` unless a test names fewer, to walk small slices in several statements). */
export interface ReadBudget {
  rowsPerStatement?: number;
}

/**
 * Rows of the top-k walk one statement reads at most. Each row is a read of the finding's heap
 * page for its label, scattered over the table: a slice's whole top-k in one statement held the
 * event loop for 1 s at k = 100,000 on the 1M bench database, 4,000 rows a statement up to
 * 284 ms on its cold pages (the thirty-first whole run), 1,000 rows 80–115 ms (the thirty-second).
 */
export const TOP_K_ROWS_PER_STATEMENT = 500;

/** Where a slice's top-k walk stands: what it counted so far and the last row it read (confidence and key). */
interface TopWalk {
  value: string;
  left: number;
  confirmed: number;
  taken: number;
  after: { neg: number; keyHex: string } | null;
}

/**
 * precision@k's counts for each of `values` (slices of `column` of `table`, or every finding with
 * no column): how many of the slice's k most confident findings (confidence desc, key in code-unit
 * order) are confirmed, and how many there are. The walks go through the slice's rank index a
 * statement at a time, each reading at most `rowsPerStatement` rows over as many slices as fit,
 * resuming after the last row read, with a turn of the event loop before each statement: the
 * whole read costs min(k, slice) rows per slice, and no statement more than the budget.
 */
async function topKCounts(
  db: Db,
  from: { table: typeof findingMetrics | typeof weekFindingMetrics; agentId: UUID; column: SQL | null },
  values: readonly string[],
  k: number,
  rowsPerStatement: number,
): Promise<Map<string, { topConfirmed: number; topTaken: number }>> {
  const walks: TopWalk[] = values.map((value) => ({ value, left: k, confirmed: 0, taken: 0, after: null }));
  const slice = from.column === null ? sql`true` : sql`f.${from.column} = v.value`;
  for (let open = walks; open.length > 0; open = open.filter((w) => w.left > 0)) {
    const batch: { walk: TopWalk; take: number }[] = [];
    let budget = rowsPerStatement;
    for (const walk of open) {
      if (budget <= 0) break;
      const take = Math.min(walk.left, budget);
      batch.push({ walk, take });
      budget -= take;
    }
    const list = sql.join(
      batch.map(({ walk, take }, i) =>
        walk.after === null
          ? sql`(${i}::int, ${walk.value}, ${take}::int, '-Infinity'::float8, ''::bytea)`
          : sql`(${i}::int, ${walk.value}, ${take}::int, ${walk.after.neg}::float8, decode(${walk.after.keyHex}, 'hex'))`,
      ),
      sql`, `,
    );
    await yieldToEventLoop();
    const found = await queryRowsInIndexOrder<{ i: number; c: number; t: number; neg: number | null; key: string | null }>(
      db,
      sql`SELECT v.i, x.c, x.t, x.neg, x.key FROM (VALUES ${list}) AS v(i, value, take, neg, key) CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE y.confirmed)::int AS c, count(*)::int AS t,
                   (array_agg(y.neg_confidence ORDER BY y.neg_confidence DESC, y.key_order DESC))[1] AS neg,
                   encode((array_agg(y.key_order ORDER BY y.neg_confidence DESC, y.key_order DESC))[1], 'hex') AS key
            FROM (SELECT f.confirmed, f.neg_confidence, f.key_order FROM ${from.table} f
                  WHERE f.agent_id = ${from.agentId}::uuid AND ${slice} AND f.neg_confidence IS NOT NULL AND (f.neg_confidence, f.key_order) > (v.neg, v.key)
                  ORDER BY f.neg_confidence, f.key_order LIMIT v.take) y) x`,
    );
    for (const r of found) {
      const { walk, take } = batch[Number(r.i)] as { walk: TopWalk; take: number };
      const taken = Number(r.t);
      walk.confirmed += Number(r.c);
      walk.taken += taken;
      // Fewer rows than asked for: the slice has no more.
      walk.left = taken < take ? 0 : walk.left - taken;
      if (taken > 0) walk.after = { neg: Number(r.neg), keyHex: String(r.key) };
    }
  }
  return new Map(walks.map((w) => [w.value, { topConfirmed: w.confirmed, topTaken: w.taken }]));
}

/** precision@k: the k most confident findings of each slice (confidence desc, key in code-unit order), one dimension after another. */
async function readTopK(db: Db, agentId: UUID, k: number, counts: ReadonlyMap<string, SliceCounts>, reads: Map<string, SliceReads>, rowsPerStatement: number): Promise<void> {
  for (const dim of SLICE_DIMS) {
    const values = slicesOf(counts, dim);
    if (values.length === 0) continue;
    const column = dim === 'overall' ? null : COLUMN[dim];
    for (const [value, top] of await topKCounts(db, { table: findingMetrics, agentId, column }, values, k, rowsPerStatement)) {
      const read = reads.get(sliceId(dim, value));
      if (read) Object.assign(read, top);
    }
  }
}

/** The median time to fix of each slice: the one or two middle values, found in their buckets. */
async function readMedians(db: Db, agentId: UUID, counts: ReadonlyMap<string, SliceCounts>, reads: Map<string, SliceReads>): Promise<void> {
  const wanted: { id: string; dim: SliceDim; value: string; bucket: number; offset: number }[] = [];
  for (const dim of SLICE_DIMS) {
    for (const value of slicesOf(counts, dim)) {
      const id = sliceId(dim, value);
      for (const at of medianPlan(counts.get(id) as SliceCounts)) wanted.push({ id, dim, value, ...at });
    }
  }
  if (wanted.length === 0) return;
  // A statement reads one dimension, through its own (slice, bucket, time) index, and at most
  // SLICES_PER_STATEMENT lookups: 1,000 projects' in one took 137 ms on cold pages at 1M.
  const found: { i: number; h: number }[] = [];
  const numbered = wanted.map((w, i) => ({ ...w, i }));
  const statements = SLICE_DIMS.flatMap((dim) => chunks(numbered.filter((w) => w.dim === dim), SLICES_PER_STATEMENT).map((part) => ({ dim, part })));
  for (const { dim, part } of statements) {
    await yieldToEventLoop();
    const list = sql.join(part.map((w) => sql`(${w.i}::int, ${w.value}, ${w.bucket}::int, ${w.offset}::int)`), sql`, `);
    const sliceCondition = dim === 'overall' ? sql`true` : sql`f.${COLUMN[dim]} = v.value`;
    found.push(
      ...(await queryRowsInIndexOrder<{ i: number; h: number }>(
        db,
        sql`SELECT v.i, x.h FROM (VALUES ${list}) AS v(i, value, bucket, off) CROSS JOIN LATERAL (
              SELECT f.hours_to_fix AS h FROM ${findingMetrics} f WHERE f.agent_id = ${agentId}::uuid AND ${sliceCondition} AND f.fix_bucket = v.bucket
              ORDER BY f.hours_to_fix OFFSET v.off LIMIT 1) x`,
      )),
    );
  }
  found.sort((a, b) => Number(a.i) - Number(b.i));
  for (const r of found) {
    const w = wanted[Number(r.i)];
    if (w) reads.get(w.id)?.medianValues.push(Number(r.h));
  }
}

/** Drift windows (d7 recent, d7 previous, d28 recent, d28 previous) of every shown slice, from the tallies of their whole days and hours (`driftWindows`). */
async function readDrift(db: Db, agentId: UUID, asOfMs: number, shown: Shown, reads: Map<string, SliceReads>): Promise<void> {
  const windows = DRIFT_DAYS.flatMap((days) => {
    const { recent, previous } = driftWindows(asOfMs, days);
    return [recent, previous];
  });
  // The whole days and hours of each window by scope: a tally row is looked up in this map (jsonb,
  // by key) for the windows it counts in. A join with the list of (window, scope) pairs instead is
  // planned, without statistics, as a nested loop of every row against every pair.
  const windowsOfScope: Record<string, number[]> = {};
  for (const [w, window] of windows.entries()) for (const scope of wholeHourScopes(window.loMs, window.hiMs)) (windowsOfScope[scope] ??= []).push(w);
  const dayScopes = Object.keys(windowsOfScope);
  // One statement per grain (as for the tallies above): as one UNION ALL on cold pages at 1M it took
  // 134 ms in an agent process's start-up. The grain is part of the grouping, so the rows are the same.
  const scopes = sql.join(
    dayScopes.map((d) => sql`${d}`),
    sql`, `,
  );
  const rows =
    dayScopes.length === 0
      ? []
      : await eachInTurn<GrainRow & { w: number; n: number; rej: number; reward: number }>(
          db,
          grainSelects(shown).map(
            (where) => sql`SELECT t.grain, t.project, t.scanner, t.model, v.w, sum(t.n)::float8 AS n, sum(CASE WHEN t.bucket = ${LIFECYCLE_RANK.rejected_fp}::int THEN t.n ELSE 0 END)::float8 AS rej, sum(t.p_sum)::float8 AS reward
              FROM ${metricTallies} t CROSS JOIN LATERAL (SELECT w::int FROM jsonb_array_elements_text(${JSON.stringify(windowsOfScope)}::jsonb -> t.scope) AS v(w)) v
              WHERE t.agent_id = ${agentId}::uuid AND t.scope IN (${scopes}) AND ${where} AND t.kind = ${TALLY_KIND.outcome}::smallint
              GROUP BY t.grain, t.project, t.scanner, t.model, v.w`,
          ),
        );
  for (const r of rows) {
    const dim = dimOf(r);
    if (dim === 'triple') continue;
    const read = reads.get(sliceId(dim, valueOf(dim, r)));
    if (!read) continue;
    const window: DriftWindow = { n: Number(r.n), rejected: Number(r.rej), rewardSum: Number(r.reward) };
    read.drift[Number(r.w)] = window;
  }
  for (const read of reads.values()) for (let w = 0; w < windows.length; w++) read.drift[w] ??= { n: 0, rejected: 0, rewardSum: 0 };
}

/**
 * `weeklyTriage` for `agentId` over its outcomes with seq ≤ `throughSeq`, from its rollup. The
 * week holding `asOfMs` is read from its outcome rows instead when it has outcomes after `asOfMs`
 * (the rollup counts the whole week).
 */
export async function rollupWeekly(db: Db, agentId: UUID, options: WeeklyTriageOptions & { throughSeq: number } & ReadBudget): Promise<WeeklyTriageReport> {
  const { asOf, firstStartMs } = checkWeeklyOptions(options);
  const starts = Array.from({ length: options.weeks }, (_, i) => firstStartMs + i * WEEK_MS);
  const scopes = starts.map(weekScope);
  const list = sql.join(scopes.map((s) => sql`(${s})`), sql`, `);
  const rows = await queryRows<{ scope: string; kind: number; bucket: number; n: number; p: number; gap: number }>(
    db,
    sql`SELECT scope, kind, bucket, sum(n)::float8 AS n, sum(p_sum)::float8 AS p, (sum(p_sum) - sum(y_sum))::float8 AS gap FROM ${metricTallies}
        WHERE agent_id = ${agentId}::uuid AND grain = ${GRAIN.overall}::int AND scope IN (SELECT v.s FROM (VALUES ${list}) AS v(s)) GROUP BY scope, kind, bucket`,
  );
  const counts = sliceCounts(rows.map((r) => ({ dim: 'overall', value: r.scope, kind: Number(r.kind), bucket: Number(r.bucket), n: Number(r.n), p: Number(r.p), gap: Number(r.gap) })));
  const topOf = await topKCounts(db, { table: weekFindingMetrics, agentId, column: sql.raw('week') }, scopes, options.k, options.rowsPerStatement ?? TOP_K_ROWS_PER_STATEMENT);
  const lastStart = starts[starts.length - 1] as number;
  const [later] = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid AND seq <= ${options.throughSeq} AND ts > ${asOf.toISOString()}::timestamptz AND ts < ${new Date(lastStart + WEEK_MS).toISOString()}::timestamptz LIMIT 1`,
  );
  const series = await Promise.all(
    starts.map(async (startMs, i) => {
      if (later && startMs === lastStart) {
        // Its outcomes up to as-of, a page at a time: a week of them is any number of rows.
        const fold = new WeekFold();
        await eachMetricOutcomePage(db, agentId, { from: new Date(startMs).toISOString(), to: asOf.toISOString(), throughSeq: options.throughSeq }, (page) => fold.add(page));
        return fold.point(startMs, options.k, yieldToEventLoop);
      }
      const scope = scopes[i] as string;
      const set = metricSetOf(counts.get(sliceId('overall', scope)) ?? emptyCounts(), { ...(topOf.get(scope) ?? { topConfirmed: 0, topTaken: 0 }), medianValues: [], drift: [] });
      return pointOf(startMs, set);
    }),
  );
  return { as_of: asOf.toISOString(), k: options.k, weeks: options.weeks, series };
}
