import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { DAY_MS } from '../../src/scan/model/grouping';
import { computeScanMetrics, type MetricOutcome } from '../../src/scan/model/metrics';
import { weeklyTriage } from '../../src/scan/model/weekly-triage';
import { MetricRollup, ROLLUP_FORMAT } from '../../src/scan/metric-rollup-store';
import { ALL_SCOPE, GRAIN, SIZE_SCOPE, TALLY_KIND } from '../../src/scan/model/metric-rollup';
import { eachMetricOutcomePage, metricOutcomes, OutcomeStore, toStoredOutcome } from '../../src/scan/outcome-store';
import { checkFindingRow, checkOutcomeRows, type FindingRow } from '../../src/scan/model/outcome';
import { FindingStore } from '../../src/scan/finding-store';
import { REPORT_AHEAD_OF_HOUR_MS, ScanMetrics } from '../../src/scan/scan-metrics';
import { type Db, dbOf } from '../../src/shared/sql';
import { findingMetrics, metricRollupState, metricSliceSizes, metricTallies, weekFindingMetrics } from '../../src/scan/tables';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { turnCounter } from '../helpers/turn-counter';
import { rollupMetrics, rollupWeekly } from '../../src/scan/metric-rollup-read';

const START = Date.parse('2026-09-01T00:00:00Z');
const HOUR = 3_600_000;
const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'] as const;
// Keys around U+E000..U+FFFF and astral characters: code-unit order differs from code-point order there.
const KEY_STEMS = ['a', 'b', '\uE000', '\u{1F600}', "o'hara", 'z'];
const PROJECTS = ['payments', 'mobile', "pay'; DROP TABLE x;--", '\u{1F600}proj'];
const SCANNERS = ['semgrep', 'codeql'];
const MODELS = [
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3'],
] as const;

/** A deterministic mix: many findings over ten weeks, discrete confidences (ties), some without one, some relabelled. */
function mixedRows(seed: number, n: number, offsetMs = 0): Record<string, unknown>[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => {
    const [provider, name] = MODELS[Math.floor(next() * MODELS.length)] as readonly [string, string];
    const confidence = next() < 0.2 ? undefined : [0, 0.3, 0.5, 0.9, 1][Math.floor(next() * 5)];
    return {
      finding_key: `${KEY_STEMS[i % KEY_STEMS.length]}-${seed}-${Math.floor(i / 2)}`,
      label: LABELS[Math.floor(next() * LABELS.length)],
      ts: new Date(START + offsetMs + Math.floor(next() * 70 * 24) * HOUR + (i % 7) * 1000).toISOString(),
      project: PROJECTS[Math.floor(next() * PROJECTS.length)],
      scanner: SCANNERS[Math.floor(next() * SCANNERS.length)],
      model_provider: provider,
      model_name: name,
      ...(confidence === undefined ? {} : { confidence }),
    };
  });
}

/** One finding relabelled across projects and models: accepted, fixed a day later, reopened, then judged a false positive elsewhere. */
const RELABELS = [
  { label: 'accepted', ts: '2026-10-01T10:00:00Z', project: 'payments', model_name: 'gpt-4o', confidence: 0.9 },
  { label: 'fixed', ts: '2026-10-02T10:00:00Z', project: 'payments', model_name: 'gpt-4o', confidence: 0.9 },
  { label: 'reopened', ts: '2026-10-20T10:00:00Z', project: 'mobile', model_name: 'claude-3' },
  { label: 'rejected_fp', ts: '2026-10-21T10:00:00Z', project: 'mobile', model_name: 'claude-3', confidence: 0.3 },
].map((r) => ({ finding_key: 'relabelled', scanner: 'semgrep', model_provider: r.model_name === 'gpt-4o' ? 'openai' : 'anthropic', ...r }));

/** Numbers rounded to 9 places: the rollup's sums are exact sums rounded once, the rows' are running double sums. */
const rounded = (value: unknown): unknown =>
  typeof value === 'number'
    ? Math.round(value * 1e9) / 1e9 + 0
    : Array.isArray(value)
      ? value.map(rounded)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

/** Times in the middle of a day, at a day's start, and past every outcome. */
const AS_OFS = [Date.parse('2026-10-15T13:37:11.123Z'), Date.parse('2026-10-27T00:00:00Z'), Date.parse('2026-11-09T23:59:59.999Z'), Date.parse('2027-01-05T06:00:00Z')];

/** The service's metrics (which roll up what is waiting first) equal those computed from every outcome row, and leave none out. */
async function expectRollupEqualsRows(agent: TestAgent): Promise<void> {
  const rows = await agent.service.outcomes.forMetrics();
  const firstSeen = await agent.service.findings.firstSeen();
  for (const asOfMs of AS_OFS) {
    for (const k of [1, 7, 1000]) {
      const { pending_outcomes, ...fromRollup } = await agent.service.metrics({ asOfMs, k });
      expect(pending_outcomes).toBe(0);
      expect(rounded(fromRollup)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs, k, slices: 50 })));
      // Fewer slices than there are: the ones with the most outcomes, and the model deltas of the projects shown.
      for (const slices of [1, 3]) {
        const { pending_outcomes: _, ...capped } = await agent.service.metrics({ asOfMs, k, slices });
        expect(Object.keys(capped.by_project).length).toBe(slices);
        expect(capped.slice_totals.project).toBe(PROJECTS.length);
        expect(rounded(capped)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs, k, slices })));
      }
      for (const weeks of [1, 9]) {
        const { pending_outcomes: weeklyPending, ...weekly } = await agent.service.weeklyTriage({ weeks, asOfMs, k });
        expect(weeklyPending).toBe(0);
        expect(rounded(weekly)).toEqual(rounded(weeklyTriage(rows, { weeks, asOfMs, k })));
      }
    }
  }
}

async function forgetRollup(agent: TestAgent): Promise<void> {
  const db = dbOf(agent.runtime);
  for (const table of [findingMetrics, weekFindingMetrics, metricTallies, metricSliceSizes, metricRollupState]) await db.execute(sql`DELETE FROM ${table}`);
}

/** Puts the slice sizes back as an older rollup format kept them: a tally row per slice in `scope`, its name in the grain's own column. */
async function asOlderFormat(agent: TestAgent, format: number, scope: string): Promise<void> {
  const db = dbOf(agent.runtime);
  await db.execute(
    sql`INSERT INTO ${metricTallies} (agent_id, scope, grain, project, scanner, model, kind, bucket, n, p_sum, y_sum)
        SELECT agent_id, ${scope}, grain, CASE WHEN grain = ${GRAIN.project}::int THEN name ELSE '' END, CASE WHEN grain = ${GRAIN.scanner}::int THEN name ELSE '' END,
               CASE WHEN grain = ${GRAIN.model}::int THEN name ELSE '' END, ${TALLY_KIND.size}::smallint, 0, n, 0, 0
        FROM ${metricSliceSizes}`,
  );
  await db.execute(sql`DELETE FROM ${metricSliceSizes}`);
  await db.execute(sql`UPDATE ${metricRollupState} SET format = ${format}::smallint`);
}

/** Metrics on the agent's database computing the report with `k` ahead, with a clock that reaches the lead before `hourEnd` in `inMs` (so its hour timer fires then). */
function metricsBeforeHour(agent: TestAgent, hourEnd: number, inMs: number, k: number): ScanMetrics {
  const offset = hourEnd - REPORT_AHEAD_OF_HOUR_MS - inMs - Date.now();
  return new ScanMetrics(agent.runtime, dbOf(agent.runtime), { warmOptions: () => ({ k, slices: 50 }), now: () => Date.now() + offset });
}

async function pendingOutcomes(agent: TestAgent): Promise<number> {
  return (await new MetricRollup(dbOf(agent.runtime), agent.runtime.agentId).lag()).pending;
}

/**
 * The runtime's own database, with the turn of the event loop (`turns`) of each statement whose SQL
 * holds `marker` noted in `at` on its way through, in transactions too.
 */
function watchStatements(db: Db, marker: string, turns: { readonly turn: number }, at: number[]): Db {
  const dialect = new PgDialect();
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'transaction') return (run: (tx: Db) => Promise<unknown>) => target.transaction((tx) => run(watchStatements(tx as Db, marker, turns, at)));
      if (prop !== 'execute') return Reflect.get(target, prop, receiver);
      return (query: SQL) => {
        if (dialect.sqlToQuery(query).sql.includes(marker)) at.push(turns.turn);
        return target.execute(query);
      };
    },
  });
}

describe('the metrics rollup on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-metrics-rollup-'));
    agent = await startAgent({ dataDir: dir });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('after a mixed ingest with re-labels and first sightings, the rollup gives the figures of every row', async () => {
    // A first sighting before the labels, and one recorded after them (it moves the time to fix).
    await agent.service.recordFindings([{ ...RELABELS[0], ts: '2026-09-20T10:00:00Z', label: undefined }]);
    await agent.service.ingest(mixedRows(1, 400));
    for (const row of RELABELS) await agent.service.ingest([row]);
    await agent.service.ingest(mixedRows(1, 400));
    const laterSighting = mixedRows(1, 40).filter((r) => r.label === 'fixed').map((r) => ({ ...r, label: undefined, ts: '2026-08-01T00:00:00Z' }));
    expect(laterSighting.length).toBeGreaterThan(0);
    await agent.service.recordFindings(laterSighting);
    await agent.service.ingest(mixedRows(2, 300, 3 * DAY_MS));
    // The follower rolls up after the writes have been quiet for a while, without any read.
    await agent.service.metricsCaughtUp();
    expect(await pendingOutcomes(agent)).toBe(0);
    const report = await agent.service.metrics({ asOfMs: AS_OFS[3] as number, k: 5 });
    expect(report.overall.median_time_to_fix_hours).not.toBeNull();
    expect(report.model_deltas.length).toBeGreaterThan(0);
    expect(Object.keys(report.by_project)).toContain("pay'; DROP TABLE x;--");
    await expectRollupEqualsRows(agent);
  });

  test('the drift windows are read one grain per statement (overall, projects, scanners, models), with a turn of the event loop before each', async () => {
    const turns = turnCounter();
    const driftReads: number[] = [];
    const watched = watchStatements(dbOf(agent.runtime), 'jsonb_array_elements_text', turns, driftReads);
    const asOfMs = AS_OFS[3] as number;
    let report: Awaited<ReturnType<typeof rollupMetrics>>;
    try {
      report = await rollupMetrics(watched, agent.runtime.agentId, { asOfMs, k: 5, slices: 50 });
    } finally {
      turns.stop();
    }
    expect(driftReads).toHaveLength(4);
    expect(new Set(driftReads).size).toBe(4);
    // the same report as the service's (which the test above checks against every row)
    const { pending_outcomes, ...served } = await agent.service.metrics({ asOfMs, k: 5 });
    expect(pending_outcomes).toBe(0);
    expect(rounded(report)).toEqual(rounded(served));
  });

  test('precision@k walks each slice a few rows per statement, resuming after the last row read (ties by key), to the figures of every row', async () => {
    const turns = turnCounter();
    const topReads: number[] = [];
    const watched = watchStatements(dbOf(agent.runtime), 'array_agg(y.neg_confidence', turns, topReads);
    const rows = await agent.service.outcomes.forMetrics();
    const firstSeen = await agent.service.findings.firstSeen();
    const confident = (await agent.service.metrics({ asOfMs: AS_OFS[3] as number, k: 1 })).overall;
    expect(confident.findings).toBeGreaterThan(300);
    try {
      // [as of, k, rows per statement]: one row a statement, a budget that ends inside a tie, one that spans slices.
      const [, monthEnd, later, past] = AS_OFS as [number, number, number, number];
      const cases: [number, number, number][] = [
        [later, 7, 1],
        [later, 7, 3],
        [monthEnd, 1000, 7],
        [past, 1000, 50],
        [later, 1, 3],
      ];
      for (const [asOfMs, k, rowsPerStatement] of cases) {
        topReads.length = 0;
        const report = await rollupMetrics(watched, agent.runtime.agentId, { asOfMs, k, slices: 3, rowsPerStatement });
        expect(rounded(report)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs, k, slices: 3 })));
        // Each statement in a turn of its own; a slice's top-k of more rows than the budget took several.
        expect(new Set(topReads).size).toBe(topReads.length);
        if (k > rowsPerStatement) expect(topReads.length).toBeGreaterThan(Math.ceil(Math.min(k, 300) / rowsPerStatement));
        topReads.length = 0;
        const weekly = await rollupWeekly(watched, agent.runtime.agentId, { weeks: 9, asOfMs, k, throughSeq: Number.MAX_SAFE_INTEGER, rowsPerStatement });
        expect(rounded(weekly)).toEqual(rounded(weeklyTriage(rows, { weeks: 9, asOfMs, k })));
        expect(new Set(topReads).size).toBe(topReads.length);
        // No statement read more rows than the budget (the last week's figures may come from its outcome rows instead).
        const needed = Math.ceil(weekly.series.slice(0, -1).reduce((n, week) => n + week.precision_k, 0) / rowsPerStatement);
        expect(topReads.length).toBeGreaterThanOrEqual(needed);
        if (asOfMs !== past && k > rowsPerStatement) expect(needed).toBeGreaterThan(2 * weekly.series.length);
      }
    } finally {
      turns.stop();
    }
  }, 60_000);

  test("a week's outcomes read a few rows per statement (rows at one time by seq) are the rows one statement reads", async () => {
    const db = dbOf(agent.runtime);
    const agentId = agent.runtime.agentId;
    const sameTime = Array.from({ length: 12 }, (_, i) => ({ finding_key: `same-time-${i}`, label: LABELS[i % LABELS.length], ts: '2026-10-05T10:00:00.000Z', project: 'payments', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' }));
    await agent.service.ingest(sameTime);
    const from = '2026-10-05T00:00:00.000Z';
    const to = '2026-10-11T23:59:59.999Z';
    const whole = await metricOutcomes(db, sql`agent_id = ${agentId}::uuid AND ts >= ${from}::timestamptz AND ts <= ${to}::timestamptz`);
    expect(whole.length).toBeGreaterThan(50);
    expect(whole.filter((o) => o.findingKey.startsWith('same-time-'))).toHaveLength(12);
    const paged = async (throughSeq: number, pageRows: number) => {
      const pages: MetricOutcome[][] = [];
      await eachMetricOutcomePage(db, agentId, { from, to, throughSeq }, (page) => pages.push(page), pageRows);
      expect(pages.every((page) => page.length <= pageRows)).toBe(true);
      return pages.flat();
    };
    for (const pageRows of [1, 5, 12, 10_000]) expect(await paged(Number.MAX_SAFE_INTEGER, pageRows)).toEqual(whole);
    // Only what the rollup had reached: seq at most `throughSeq`.
    const throughSeq = Math.floor((await agent.service.outcomes.count()) / 2);
    const early = await metricOutcomes(db, sql`agent_id = ${agentId}::uuid AND seq <= ${throughSeq} AND ts >= ${from}::timestamptz AND ts <= ${to}::timestamptz`);
    expect(early.length).toBeLessThan(whole.length);
    expect(await paged(throughSeq, 5)).toEqual(early);
    await expectRollupEqualsRows(agent);
  });

  test('a restart on outcomes that predate the rollup rolls them up in the background, then gives the same figures', async () => {
    await forgetRollup(agent);
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    await agent.service.metricsCaughtUp();
    expect(await pendingOutcomes(agent)).toBe(0);
    await expectRollupEqualsRows(agent);
  });

  test.each([
    [1, ALL_SCOPE],
    [2, SIZE_SCOPE],
  ])('a rollup in format %d (slice sizes as tally rows in scope %s) is brought up to date at start-up, once, and gives the same figures', async (format, scope) => {
    const db = dbOf(agent.runtime);
    const sizes = sql`SELECT grain, name, n FROM ${metricSliceSizes} ORDER BY grain, name`;
    const sizeRows = (await db.execute(sizes)).rows;
    const totals = (await agent.service.metrics({ asOfMs: AS_OFS[0] as number, k: 5 })).slice_totals;
    expect(totals.project).toBe(PROJECTS.length);
    expect(sizeRows).toHaveLength(totals.project + totals.scanner + totals.model);
    await asOlderFormat(agent, format, scope);
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    await agent.service.metricsCaughtUp();
    const upgraded = dbOf(agent.runtime);
    expect((await upgraded.execute(sizes)).rows).toEqual(sizeRows);
    expect((await upgraded.execute(sql`SELECT count(*)::int AS n FROM ${metricTallies} WHERE kind = ${TALLY_KIND.size}::smallint`)).rows).toEqual([{ n: 0 }]);
    expect((await upgraded.execute(sql`SELECT format FROM ${metricRollupState}`)).rows).toEqual([{ format: ROLLUP_FORMAT }]);
    expect(ROLLUP_FORMAT).toBe(3);
    await expectRollupEqualsRows(agent);
  });

  test('steps in small chunks with ingests between them count every outcome once', async () => {
    await forgetRollup(agent);
    const rollup = new MetricRollup(dbOf(agent.runtime), agent.runtime.agentId);
    const outcomesUnderLock = new OutcomeStore(dbOf(agent.runtime), agent.runtime.agentId, {
      lock: (tx) => rollup.lock(tx),
      writing: () => {},
      written: () => {},
      recorded: (tx, keys) => rollup.refreshRecorded(tx, keys),
    });
    const total = await agent.service.outcomes.count();
    let steps = 0;
    let rolled = 0;
    for (let taken = await rollup.step(97); taken > 0; taken = await rollup.step(97)) {
      steps++;
      rolled += taken;
      // Written as the service writes (under the rollup's lock) but without waking the service's follower: these steps alone roll up.
      if (steps === 3) await outcomesUnderLock.insert(checkOutcomeRows(mixedRows(3, 120, 5 * DAY_MS)).valid.map((v) => toStoredOutcome(agent.runtime.agentId, v.row)));
    }
    expect(steps).toBeGreaterThan(5);
    expect(rolled).toBe(await agent.service.outcomes.count());
    expect(rolled).toBeGreaterThan(total);
    expect(await pendingOutcomes(agent)).toBe(0);
    await expectRollupEqualsRows(agent);
  });

  test('with more outcomes waiting than a read rolls up itself, a read answers from the rollup as it is and says how many it leaves out', async () => {
    await agent.service.metricsCaughtUp();
    await forgetRollup(agent);
    const db = dbOf(agent.runtime);
    const reader = new ScanMetrics(agent.runtime, db, { readCatchUpMax: 50 });
    await reader.rollup.step(300);
    const { doneSeq, pending } = await reader.rollup.lag();
    expect(pending).toBeGreaterThan(50);
    const rolledUp = await metricOutcomes(db, sql`agent_id = ${agent.runtime.agentId}::uuid AND seq <= ${doneSeq}`);
    expect(rolledUp.length).toBe(300);
    const firstSeen = await agent.service.findings.firstSeen();
    const asOfMs = AS_OFS[3] as number;
    const { pending_outcomes, ...report } = await reader.report({ asOfMs, k: 7, slices: 50 });
    expect(pending_outcomes).toBe(pending);
    expect(rounded(report)).toEqual(rounded(computeScanMetrics(rolledUp, firstSeen, { asOfMs, k: 7, slices: 50 })));
    const { pending_outcomes: weeklyPending, ...weekly } = await reader.weekly({ weeks: 9, asOfMs, k: 7 });
    expect(weeklyPending).toBe(pending);
    expect(rounded(weekly)).toEqual(rounded(weeklyTriage(rolledUp, { weeks: 9, asOfMs, k: 7 })));
    // The service's own reads roll up at most 2,000 waiting outcomes themselves: these are few enough.
    await expectRollupEqualsRows(agent);
  });

  test('a backlog longer than one statement counts is counted range by range, to the same number', async () => {
    await agent.service.metricsCaughtUp();
    await forgetRollup(agent);
    const db = dbOf(agent.runtime);
    await new MetricRollup(db, agent.runtime.agentId).step(300);
    const { doneSeq, pending } = await new MetricRollup(db, agent.runtime.agentId).lag();
    const rows = await metricOutcomes(db, sql`agent_id = ${agent.runtime.agentId}::uuid AND seq > ${doneSeq}`);
    expect(pending).toBe(rows.length);
    expect(pending).toBeGreaterThan(100);
    // Ranges of 1 seq, of a few, and one that takes the whole backlog in the first statement.
    for (const range of [1, 7, 64, pending, pending - 1]) {
      const lag = await new MetricRollup(db, agent.runtime.agentId, range).lag();
      expect({ range, pending: lag.pending, doneSeq: lag.doneSeq }).toEqual({ range, pending, doneSeq });
    }
    while ((await new MetricRollup(db, agent.runtime.agentId).step()) > 0);
    expect(await new MetricRollup(db, agent.runtime.agentId, 7).lag()).toMatchObject({ pending: 0 });
    await expectRollupEqualsRows(agent);
  });

  test('a report is reused while the rollup is unchanged, and a change made by another process is seen at once', async () => {
    await agent.service.metricsCaughtUp();
    const asOfMs = AS_OFS[3] as number;
    const { pending_outcomes: _, ...first } = await agent.service.metrics({ asOfMs, k: 7 });
    // The same rollup and hour: the same (frozen) report, with the as_of asked for.
    const again = await agent.service.metrics({ asOfMs: asOfMs + 60_000, k: 7 });
    expect(again.by_project).toBe(first.by_project);
    expect(again.as_of).toBe(new Date(asOfMs + 60_000).toISOString());
    expect(Object.isFrozen(first.by_project)).toBe(true);
    expect(() => {
      (first.overall as { findings: number }).findings = -1;
    }).toThrow();
    // Another hour ends the drift windows elsewhere: computed anew, and right.
    const rows = await agent.service.outcomes.forMetrics();
    const { pending_outcomes: __, ...nextHour } = await agent.service.metrics({ asOfMs: asOfMs + HOUR, k: 7 });
    expect(nextHour.by_project).not.toBe(first.by_project);
    expect(rounded(nextHour)).toEqual(rounded(computeScanMetrics(rows, await agent.service.findings.firstSeen(), { asOfMs: asOfMs + HOUR, k: 7, slices: 50 })));

    // Another process (its own rollup and finding store on the database) records first sightings long
    // before the fixes of findings sighted never before: their times to fix change, no outcome is added.
    const db = dbOf(agent.runtime);
    const other = new MetricRollup(db, agent.runtime.agentId);
    const otherFindings = new FindingStore(db, agent.runtime.agentId, { lock: (tx) => other.lock(tx), writing: () => {}, written: () => {}, recorded: (tx, keys) => other.refreshRecorded(tx, keys) });
    const sightings = [...mixedRows(1, 400), ...mixedRows(2, 300, 3 * DAY_MS)]
      .filter((r) => r.label === 'fixed')
      .map((r, i) => checkFindingRow({ ...r, label: undefined, ts: '2020-01-01T00:00:00Z' }, i))
      .flatMap((c) => (c.ok ? [c.row as FindingRow] : []));
    const before = await other.lag();
    expect((await otherFindings.record(sightings)).inserted).toBeGreaterThan(10);
    const after = await other.lag();
    expect(after.doneSeq).toBe(before.doneSeq);
    expect(after.version).toBeGreaterThan(before.version);
    const expected = computeScanMetrics(rows, await agent.service.findings.firstSeen(), { asOfMs, k: 7, slices: 50 });
    expect(rounded(expected)).not.toEqual(rounded(first));
    const { pending_outcomes: ___, ...changed } = await agent.service.metrics({ asOfMs, k: 7 });
    expect(rounded(changed)).toEqual(rounded(expected));
  });

  test('a minute before an hour turns, the next hour\'s report is computed ahead: the first read of that hour finds it, and it is right', async () => {
    await agent.service.metricsCaughtUp();
    const hourEnd = Math.floor((AS_OFS[3] as number) / HOUR) * HOUR + HOUR;
    const metrics = metricsBeforeHour(agent, hourEnd, 200, 7);
    metrics.start();
    // The follower's warm computes now's hour at once; the timer, when it fires, the next one.
    while (metrics.computed < 2) await Bun.sleep(20);
    await metrics.caughtUp();
    expect(metrics.computed).toBe(2);
    const rows = await agent.service.outcomes.forMetrics();
    const firstSeen = await agent.service.findings.firstSeen();
    const { pending_outcomes: _, ...first } = await metrics.report({ asOfMs: hourEnd + 10_000, k: 7, slices: 50 });
    expect(metrics.computed).toBe(2);
    expect(rounded(first)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs: hourEnd + 10_000, k: 7, slices: 50 })));
    // The hour after that is not computed yet: a read of it computes it.
    await metrics.report({ asOfMs: hourEnd + HOUR, k: 7, slices: 50 });
    expect(metrics.computed).toBe(3);
    await metrics.stop();
  });

  test('while outcomes are being written the hour timer computes nothing; once the follower has caught up it computes both hours', async () => {
    await agent.service.metricsCaughtUp();
    const hourEnd = Math.floor((AS_OFS[2] as number) / HOUR) * HOUR + HOUR;
    const metrics = metricsBeforeHour(agent, hourEnd, 100, 6);
    metrics.writing();
    metrics.start();
    // The timer has fired (100 ms) with a write under way: no report read the waiting outcomes' count.
    await Bun.sleep(400);
    expect(metrics.computed).toBe(0);
    metrics.written(false);
    await metrics.caughtUp();
    expect(metrics.computed).toBe(2);
    await metrics.report({ asOfMs: hourEnd + 1_000, k: 6, slices: 50 });
    expect(metrics.computed).toBe(2);
    await metrics.stop();
  });

  test('reads that ask at once for a report not kept wait for one computation of it', async () => {
    await agent.service.metricsCaughtUp();
    const metrics = new ScanMetrics(agent.runtime, dbOf(agent.runtime));
    const asOfMs = AS_OFS[1] as number;
    const reports = await Promise.all([1, 2, 3].map((i) => metrics.report({ asOfMs: asOfMs + i, k: 9, slices: 50 })));
    expect(metrics.computed).toBe(1);
    expect(reports[1]?.by_project).toBe(reports[0]?.by_project as never);
    expect(reports.map((r) => r.as_of)).toEqual([1, 2, 3].map((i) => new Date(asOfMs + i).toISOString()));
    await metrics.report({ asOfMs, k: 8, slices: 50 });
    expect(metrics.computed).toBe(2);
    await metrics.stop();
  });

  // Last: it adds projects the other tests do not expect.
  test('slices tied in size are shown in code-point order of their names, as the database ranks them', async () => {
    const tied = ['\u{1F600}y', '\uE000x'].flatMap((project) =>
      [0, 1, 2].map((i) => ({ finding_key: `tie-${project}-${i}`, label: 'accepted', ts: '2026-10-03T10:00:00Z', project, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' })),
    );
    await agent.service.ingest(tied);
    const rows = await agent.service.outcomes.forMetrics();
    const firstSeen = await agent.service.findings.firstSeen();
    const asOfMs = AS_OFS[3] as number;
    // Every project of the other tests has more outcomes than these two: the fifth slice is one of them.
    const { pending_outcomes: _, ...report } = await agent.service.metrics({ asOfMs, k: 7, slices: PROJECTS.length + 1 });
    expect(report.slice_totals.project).toBe(PROJECTS.length + 2);
    expect(Object.keys(report.by_project)).toContain('\uE000x');
    expect(Object.keys(report.by_project)).not.toContain('\u{1F600}y');
    expect(rounded(report)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs, k: 7, slices: PROJECTS.length + 1 })));
  });
});

describe('slices ranked over more projects than one page of sizes', () => {
  let slicesAgent: TestAgent;
  beforeAll(async () => {
    slicesAgent = await startAgent();
  });
  afterAll(async () => {
    await slicesAgent.close();
  });

  test('2,300 projects (sizes read 1,000 at a time): the leaders, ties across page boundaries by code-point order, and the count are those of the reference', async () => {
    // Project p has 1 + (p % 4) outcomes except every 97th, which has 6; names interleave plain, private-use and astral stems so ties span pages.
    const stems = ['proj', '\uE000proj', '\u{1F600}proj'];
    const rows = Array.from({ length: 2_300 }, (_, p) => p).flatMap((p) => {
      const project = `${stems[p % 3]}-${String(p).padStart(4, '0')}`;
      const n = p % 97 === 0 ? 6 : 1 + (p % 4);
      return Array.from({ length: n }, (_, i) => ({ finding_key: `pages-${p}-${i}`, label: 'accepted', ts: '2026-10-03T10:00:00Z', project, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' }));
    });
    for (let start = 0; start < rows.length; start += 2_000) await slicesAgent.service.ingest(rows.slice(start, start + 2_000));
    await slicesAgent.service.metricsCaughtUp();
    const outcomes = await slicesAgent.service.outcomes.forMetrics();
    const firstSeen = await slicesAgent.service.findings.firstSeen();
    const asOfMs = Date.parse('2026-11-01T00:00:00Z');
    const report = await slicesAgent.service.metrics({ asOfMs, k: 5, slices: 30 });
    const expected = computeScanMetrics(outcomes, firstSeen, { asOfMs, k: 5, slices: 30 });
    expect(report.slice_totals).toEqual(expected.slice_totals);
    expect(report.slice_totals.project).toBe(2_300);
    expect(Object.keys(report.by_project).sort()).toEqual(Object.keys(expected.by_project).sort());
    // 24 projects have 6 outcomes; the other 6 leaders are ties at 4, in code-point order.
    expect(Object.keys(report.by_project)).toHaveLength(30);

    // Brought up from format 2, the 2,300 project sizes move a batch at a time: all of them, once.
    const db = dbOf(slicesAgent.runtime);
    const sizes = sql`SELECT grain, name, n FROM ${metricSliceSizes} ORDER BY grain, name`;
    const before = (await db.execute(sizes)).rows;
    expect(before).toHaveLength(2_302);
    await asOlderFormat(slicesAgent, 2, SIZE_SCOPE);
    await new MetricRollup(db, slicesAgent.runtime.agentId).upgrade();
    expect((await db.execute(sizes)).rows).toEqual(before);
    const { pending_outcomes: _, ...upgraded } = await slicesAgent.service.metrics({ asOfMs, k: 5, slices: 30 });
    expect(rounded(upgraded)).toEqual(rounded(expected));
  }, 120_000);
});

describe('median times to fix of more slices than one statement looks up', () => {
  let mediansAgent: TestAgent;
  beforeAll(async () => {
    mediansAgent = await startAgent();
  });
  afterAll(async () => {
    await mediansAgent.close();
  });

  test('250 projects, each with findings fixed after 1–3 and 2–12 hours: every median is the reference one', async () => {
    const base = Date.parse('2026-10-03T00:00:00Z');
    const at = (hours: number) => new Date(base + hours * 3_600_000).toISOString();
    const rows = Array.from({ length: 250 }, (_, p) => p).flatMap((p) => {
      const project = `fix-${String(p).padStart(3, '0')}`;
      const fixes = p % 2 === 0 ? [1 + (p % 3)] : [1 + (p % 3), 2 + (p % 11)];
      return fixes.flatMap((hours, i) => [
        { finding_key: `median-${p}-${i}`, label: 'accepted', ts: at(0), project, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' },
        { finding_key: `median-${p}-${i}`, label: 'fixed', ts: at(hours), project, scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' },
      ]);
    });
    await mediansAgent.service.ingest(rows);
    await mediansAgent.service.metricsCaughtUp();
    const asOfMs = Date.parse('2026-11-01T00:00:00Z');
    const report = await mediansAgent.service.metrics({ asOfMs, k: 5, slices: 250 });
    const expected = computeScanMetrics(await mediansAgent.service.outcomes.forMetrics(), await mediansAgent.service.findings.firstSeen(), { asOfMs, k: 5, slices: 250 });
    expect(Object.keys(report.by_project)).toHaveLength(250);
    const medians = (sets: Record<string, { median_time_to_fix_hours: number | null }>) => Object.fromEntries(Object.entries(sets).map(([p, s]) => [p, s.median_time_to_fix_hours]));
    expect(medians(report.by_project)).toEqual(medians(expected.by_project));
    // Odd projects have two fixes (a mean of two); even ones one.
    expect(report.by_project['fix-001']?.median_time_to_fix_hours).toBe((2 + 3) / 2);
    expect(report.by_project['fix-249']?.median_time_to_fix_hours).toBe((1 + 9) / 2);
    expect(rounded(report.overall)).toEqual(rounded(expected.overall));
  }, 120_000);
});
