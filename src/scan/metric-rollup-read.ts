import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { DAY_MS } from './model/grouping';
import { LIFECYCLE_RANK } from './model/findings';
import { checkMetricOptions, DRIFT_DAYS, type DriftWindow, type ScanMetricsReport } from './model/metrics';
import { ALL_SCOPE, driftWindowPlan, TALLY_KIND, weekScope } from './model/metric-rollup';
import { emptyCounts, medianPlan, metricSetOf, reportOf, SLICE_DIMS, type SliceCounts, sliceCounts, type SliceDim, sliceId, type SliceReads, type SliceTallyRow } from './model/metric-rollup-report';
import { checkWeeklyOptions, pointOf, WEEK_MS, weekPoint, type WeeklyTriageOptions, type WeeklyTriageReport } from './model/weekly-triage';
import { metricOutcomes } from './outcome-store';
import { type Db, queryRows } from '../shared/sql';
import { findingMetrics, metricTallies, outcomesTable, weekFindingMetrics } from './tables';

/**
 * The metrics read from the rollup (`MetricRollup`): a bounded number of tally rows (slices ×
 * buckets, and the days of the drift windows), top-k and median values through indexes, and
 * the outcome rows of the drift windows' partial days. Never every outcome.
 */

/** Columns a slice dimension selects (fixed names, never outside text). */
const COLUMN: Record<Exclude<SliceDim, 'overall'>, SQL> = { project: sql.raw('project'), scanner: sql.raw('scanner'), model: sql.raw('model') };
/** p_sum where a kind has one (outcome rewards, confidences): count-only kinds skip the numeric sum. */
const SUMMED = sql.raw(`CASE WHEN kind IN (${TALLY_KIND.outcome}, ${TALLY_KIND.ece}) THEN p_sum END`);
const DIM_OF_GROUPING: Record<number, SliceDim | 'triple'> = { 7: 'overall', 3: 'project', 5: 'scanner', 6: 'model', 0: 'triple' };

interface GroupedRow {
  g: number;
  project: string | null;
  scanner: string | null;
  model: string | null;
}

const valueOf = (dim: SliceDim | 'triple', r: GroupedRow): string => (dim === 'project' ? (r.project ?? '') : dim === 'scanner' ? (r.scanner ?? '') : dim === 'model' ? (r.model ?? '') : '');

/** `computeScanMetrics`' report for `agentId` over its outcomes with seq ≤ `throughSeq`: what its rollup holds (`MetricRollup.lag`). */
export async function rollupMetrics(db: Db, agentId: UUID, options: { asOfMs: number; k: number; throughSeq: number }): Promise<ScanMetricsReport> {
  const { asOfMs, k, throughSeq } = options;
  checkMetricOptions({ asOfMs, k });
  const rows = await queryRows<GroupedRow & { kind: number; bucket: number; n: number; p: number; gap: number }>(
    db,
    sql`SELECT GROUPING(project, scanner, model)::int AS g, project, scanner, model, kind, bucket, sum(n)::float8 AS n, sum(${SUMMED})::float8 AS p, (sum(${SUMMED}) - sum(y_sum))::float8 AS gap
        FROM ${metricTallies} WHERE agent_id = ${agentId}::uuid AND scope = ${ALL_SCOPE}
        GROUP BY GROUPING SETS ((kind, bucket), (project, kind, bucket), (scanner, kind, bucket), (model, kind, bucket))
        UNION ALL
        SELECT 0, project, scanner, model, kind, bucket, n::float8, p_sum::float8, (p_sum - y_sum)::float8 FROM ${metricTallies}
        WHERE agent_id = ${agentId}::uuid AND scope = ${ALL_SCOPE} AND kind IN (${TALLY_KIND.outcome}::smallint, ${TALLY_KIND.label}::smallint)`,
  );
  const tallies: SliceTallyRow[] = rows.map((r) => {
    const dim = DIM_OF_GROUPING[Number(r.g)] ?? 'triple';
    return { dim, value: valueOf(dim, r), project: r.project ?? '', scanner: r.scanner ?? '', model: r.model ?? '', kind: Number(r.kind), bucket: Number(r.bucket), n: Number(r.n), p: Number(r.p), gap: Number(r.gap) };
  });
  const counts = sliceCounts(tallies);
  const reads = new Map<string, SliceReads>([...counts.keys()].map((id) => [id, { topConfirmed: 0, topTaken: 0, medianValues: [], drift: [] }]));
  await readTopK(db, agentId, k, counts, reads);
  await readMedians(db, agentId, counts, reads);
  await readDrift(db, agentId, asOfMs, throughSeq, reads);
  return reportOf(asOfMs, k, counts, reads, tallies);
}

function slicesOf(counts: ReadonlyMap<string, SliceCounts>, dim: SliceDim): string[] {
  return [...counts.keys()].filter((id) => id.startsWith(`${dim}\u0000`)).map((id) => id.slice(dim.length + 1));
}

/** precision@k: the k most confident findings of each slice (confidence desc, key in code-unit order). */
async function readTopK(db: Db, agentId: UUID, k: number, counts: ReadonlyMap<string, SliceCounts>, reads: Map<string, SliceReads>): Promise<void> {
  const top = (where: SQL) =>
    sql`SELECT count(*) FILTER (WHERE confirmed)::int AS c, count(*)::int AS t FROM (SELECT confirmed FROM ${findingMetrics} f
        WHERE f.agent_id = ${agentId}::uuid AND ${where} AND f.neg_confidence IS NOT NULL ORDER BY f.neg_confidence, f.key_order LIMIT ${k}) y`;
  for (const dim of SLICE_DIMS) {
    const values = slicesOf(counts, dim);
    if (values.length === 0) continue;
    const list = sql.join(values.map((v) => sql`(${v})`), sql`, `);
    const found = await queryRows<{ value: string; c: number; t: number }>(
      db,
      dim === 'overall'
        ? sql`SELECT '' AS value, x.c, x.t FROM (${top(sql`true`)}) x`
        : sql`SELECT v.value, x.c, x.t FROM (VALUES ${list}) AS v(value) CROSS JOIN LATERAL (${top(sql`f.${COLUMN[dim]} = v.value`)}) x`,
    );
    for (const r of found) {
      const read = reads.get(sliceId(dim, r.value));
      if (read) Object.assign(read, { topConfirmed: Number(r.c), topTaken: Number(r.t) });
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
  const list = sql.join(wanted.map((w, i) => sql`(${i}::int, ${w.dim}, ${w.value}, ${w.bucket}::int, ${w.offset}::int)`), sql`, `);
  const found = await queryRows<{ i: number; h: number }>(
    db,
    sql`SELECT v.i, x.h FROM (VALUES ${list}) AS v(i, dim, value, bucket, off) CROSS JOIN LATERAL (
          SELECT f.hours_to_fix AS h FROM ${findingMetrics} f WHERE f.agent_id = ${agentId}::uuid AND f.fix_bucket = v.bucket
            AND (v.dim = 'overall' OR (v.dim = 'project' AND f.project = v.value) OR (v.dim = 'scanner' AND f.scanner = v.value) OR (v.dim = 'model' AND f.model = v.value))
          ORDER BY f.hours_to_fix OFFSET v.off LIMIT 1) x ORDER BY v.i`,
  );
  for (const r of found) {
    const w = wanted[Number(r.i)];
    if (w) reads.get(w.id)?.medianValues.push(Number(r.h));
  }
}

/** Drift windows (d7 recent, d7 previous, d28 recent, d28 previous) of every slice: whole days from day tallies, the rest from outcome rows. */
async function readDrift(db: Db, agentId: UUID, asOfMs: number, throughSeq: number, reads: Map<string, SliceReads>): Promise<void> {
  const plans = DRIFT_DAYS.flatMap((days) => [driftWindowPlan(asOfMs - days * DAY_MS, asOfMs), driftWindowPlan(asOfMs - 2 * days * DAY_MS, asOfMs - days * DAY_MS)]);
  const iso = (ms: number) => new Date(ms).toISOString();
  const days = sql.join(plans.map((p, w) => sql`(${w}::int, ${p.firstDay}, ${p.lastDay})`), sql`, `);
  const edges = sql.join(plans.map((p, w) => sql`(${w}::int, ${iso(p.loMs)}::timestamptz, ${iso(p.headEndMs)}::timestamptz, ${iso(p.tailStartMs)}::timestamptz, ${iso(p.hiMs)}::timestamptz)`), sql`, `);
  const anyEdge = sql.join(
    plans.map((p) => sql`(o.ts > ${iso(p.loMs)}::timestamptz AND o.ts < ${iso(p.headEndMs)}::timestamptz) OR (o.ts >= ${iso(p.tailStartMs)}::timestamptz AND o.ts <= ${iso(p.hiMs)}::timestamptz)`),
    sql` OR `,
  );
  const minDay = plans.reduce((m, p) => (p.firstDay < m ? p.firstDay : m), plans[0]?.firstDay ?? '');
  const maxDay = plans.reduce((m, p) => (p.lastDay > m ? p.lastDay : m), '');
  const rows = await queryRows<GroupedRow & { w: number; n: number; rej: number; reward: number }>(
    db,
    sql`SELECT GROUPING(project, scanner, model)::int AS g, project, scanner, model, w, sum(n)::float8 AS n, sum(rej)::float8 AS rej, sum(reward)::float8 AS reward FROM (
          SELECT t.project, t.scanner, t.model, v.w, t.n, CASE WHEN t.bucket = ${LIFECYCLE_RANK.rejected_fp}::int THEN t.n ELSE 0 END AS rej, t.p_sum AS reward
          FROM ${metricTallies} t JOIN (VALUES ${days}) AS v(w, lo, hi) ON t.scope >= v.lo AND t.scope <= v.hi
          WHERE t.agent_id = ${agentId}::uuid AND t.kind = ${TALLY_KIND.outcome}::smallint AND t.scope >= ${minDay} AND t.scope <= ${maxDay}
          UNION ALL
          SELECT o.row_json->>'project', o.row_json->>'scanner', (o.row_json->>'model_provider') || '/' || (o.row_json->>'model_name'), v.w, 1,
                 CASE WHEN o.label = 'rejected_fp' THEN 1 ELSE 0 END, o.reward::text::numeric
          FROM ${outcomesTable} o JOIN (VALUES ${edges}) AS v(w, lo, he, ts, hi) ON (o.ts > v.lo AND o.ts < v.he) OR (o.ts >= v.ts AND o.ts <= v.hi)
          WHERE o.agent_id = ${agentId}::uuid AND o.seq <= ${throughSeq} AND (${anyEdge})
        ) x GROUP BY GROUPING SETS ((w), (project, w), (scanner, w), (model, w))`,
  );
  for (const r of rows) {
    const dim = DIM_OF_GROUPING[Number(r.g)];
    if (!dim || dim === 'triple') continue;
    const read = reads.get(sliceId(dim, valueOf(dim, r)));
    if (!read) continue;
    const window: DriftWindow = { n: Number(r.n), rejected: Number(r.rej), rewardSum: Number(r.reward) };
    read.drift[Number(r.w)] = window;
  }
  for (const read of reads.values()) for (let w = 0; w < plans.length; w++) read.drift[w] ??= { n: 0, rejected: 0, rewardSum: 0 };
}

/**
 * `weeklyTriage` for `agentId` over its outcomes with seq ≤ `throughSeq`, from its rollup. The
 * week holding `asOfMs` is read from its outcome rows instead when it has outcomes after `asOfMs`
 * (the rollup counts the whole week).
 */
export async function rollupWeekly(db: Db, agentId: UUID, options: WeeklyTriageOptions & { throughSeq: number }): Promise<WeeklyTriageReport> {
  const { asOf, firstStartMs } = checkWeeklyOptions(options);
  const starts = Array.from({ length: options.weeks }, (_, i) => firstStartMs + i * WEEK_MS);
  const scopes = starts.map(weekScope);
  const list = sql.join(scopes.map((s) => sql`(${s})`), sql`, `);
  const rows = await queryRows<{ scope: string; kind: number; bucket: number; n: number; p: number; gap: number }>(
    db,
    sql`SELECT scope, kind, bucket, sum(n)::float8 AS n, sum(p_sum)::float8 AS p, (sum(p_sum) - sum(y_sum))::float8 AS gap FROM ${metricTallies}
        WHERE agent_id = ${agentId}::uuid AND scope IN (SELECT v.s FROM (VALUES ${list}) AS v(s)) GROUP BY scope, kind, bucket`,
  );
  const counts = sliceCounts(rows.map((r) => ({ dim: 'overall', value: r.scope, kind: Number(r.kind), bucket: Number(r.bucket), n: Number(r.n), p: Number(r.p), gap: Number(r.gap) })));
  const top = await queryRows<{ scope: string; c: number; t: number }>(
    db,
    sql`SELECT v.s AS scope, x.c, x.t FROM (VALUES ${list}) AS v(s) CROSS JOIN LATERAL (
          SELECT count(*) FILTER (WHERE confirmed)::int AS c, count(*)::int AS t FROM (SELECT confirmed FROM ${weekFindingMetrics} f
          WHERE f.agent_id = ${agentId}::uuid AND f.week = v.s AND f.neg_confidence IS NOT NULL ORDER BY f.neg_confidence, f.key_order LIMIT ${options.k}) y) x`,
  );
  const topOf = new Map(top.map((r) => [r.scope, { topConfirmed: Number(r.c), topTaken: Number(r.t) }]));
  const lastStart = starts[starts.length - 1] as number;
  const [later] = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid AND seq <= ${options.throughSeq} AND ts > ${asOf.toISOString()}::timestamptz AND ts < ${new Date(lastStart + WEEK_MS).toISOString()}::timestamptz LIMIT 1`,
  );
  const series = await Promise.all(
    starts.map(async (startMs, i) => {
      if (later && startMs === lastStart) {
        const week = await metricOutcomes(db, sql`agent_id = ${agentId}::uuid AND seq <= ${options.throughSeq} AND ts >= ${new Date(startMs).toISOString()}::timestamptz AND ts <= ${asOf.toISOString()}::timestamptz`);
        return weekPoint(week, startMs, options);
      }
      const scope = scopes[i] as string;
      const set = metricSetOf(counts.get(sliceId('overall', scope)) ?? emptyCounts(), { ...(topOf.get(scope) ?? { topConfirmed: 0, topTaken: 0 }), medianValues: [], drift: [] });
      return pointOf(startMs, set);
    }),
  );
  return { as_of: asOf.toISOString(), k: options.k, weeks: options.weeks, series };
}
