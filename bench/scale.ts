import '../src/cli/quiet';
import type { AgentRuntime } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { ingestText } from '../src/shared/ingest-text';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { rewardLedgerOf } from '../src/ledger/reward-ledger-service';
import { dbOf, queryRows } from '../src/shared/sql';
import { generateOutcomes } from '../examples/generate-outcomes';
import { eloBookOf } from '../src/elo/elo-book-service';
import { yieldToEventLoop } from '../src/shared/event-loop';
import { CALL_LOG_MS, liveHeap, note, peakRssMb, pgliteMemoryMb, ratioOf, report, round, STALL_GOAL_MS, timeMs, withStallMeter, withTempDir } from './lib';
import { measureProviders, type Timing, timeCalls } from './scale-calls';
import { askRoute, getRoute, measureRoutes, WHOLE_LEDGER_ROUTES } from './scale-routes';
import { SERVER_ENGINE, serveDirectory } from './scale-served';
import { agentProcess, copyDatabase, type Database, databaseKind, databaseName, measurePaired, PAIRED_ROUNDS, type PairedFigure } from './scale-paired';
import { seedLessons } from './lesson-seeding';
import { trajectoryServiceOf } from '../src/trajectories/trajectory-service';
import { MAX_METRIC_SLICES, MAX_METRICS_K } from '../src/scan/scan-metrics';
import { MAX_WEEKS } from '../src/scan/model/weekly-triage';
import { textOf } from './synthetic-text';

/**
 * A year of data on one agent: grows one PGlite database by steps of 10x outcomes (default
 * 10,000 then 100,000; `bun run bench/scale.ts 1000000` goes on to 1M) through ScanOutcomeService
 * as production does, learns after each step, and prints per step: the ingest rate of the step,
 * p50/p99 of every GET route handler (in process, without HTTP: what the plugin's own code costs),
 * of the reports those routes keep for reuse when none is kept (`UNCACHED`), of the largest
 * requests a reader may make (`LARGEST_REQUESTS`, with the longest stall while they run), and of every provider, the longest event-loop stall during ingest, learning, reconciliation
 * (incremental and full) and verification, RSS, the start-up time of a new runtime on the
 * database, and (`bench/scale-fresh.ts`, in a process of its own) the RSS, providers and longest
 * stall of the start-up's background work of an agent process started on it. After the last step
 * it times every route and provider again in agent processes on a copy of the smallest step's
 * database and on the largest, in turns (`bench/scale-paired.ts`, SCALE_PAIRED_ROUNDS rounds,
 * default 5). The last line gives each figure at the largest size as a ratio to the smallest,
 * measured in this run, the paired medians and their ratios, and the goals beside them.
 *
 * Rows come from the example generator, 10,000 at a time with their own seed, key prefix and
 * project names (a new project name every 200 rows, so the number of lesson groups grows with
 * the data as it would over a year of scans).
 *
 * With SCALE_DATA_DIR set, the database is grown in that (new or empty) directory and kept, so the
 * largest step's database can be examined afterwards (start-up, a single slow statement). With
 * POSTGRES_URL set (as for the CLI and the demo), it is grown in that PostgreSQL database instead
 * (with pgvector; one that holds no ledger entry of the agent, or the run stops before adding any).
 * Its server is a process of its own, where PGlite reads and writes its files in the agent's. With
 * SCALE_PGLITE_SERVER=1, the PGlite directory (SCALE_DATA_DIR, or a temporary one) is served by
 * `self-improve pglite-server` in a process of its own (the built package: `npm run build` first)
 * and the agent reaches it through its URL; each step reports that process's memory. With
 * SCALE_HEAP_SNAPSHOT_DIR set, a heap snapshot of the bench's process is written there after each
 * step's ledger phase (`scale-<outcomes>.heapsnapshot`, V8 format), for `bench/heap-retainers.ts`.
 */
const MAX = Number(process.argv[2] ?? 100_000);
const FIRST = Number(process.argv[3] ?? 10_000);
const CHUNK = 10_000;
/** Calls of each report asked with none kept (`UNCACHED`): each computes a whole report (100-200 ms at 1M). */
const UNCACHED_CALLS = 100;
/** Stored trajectories per outcome: 100 at 10k, 10,000 at 1M (submitted as over HTTP, unpaid). */
const TRAJECTORIES_PER_OUTCOME = 0.01;
/**
 * The largest requests a reader may make, each computed anew (another hour each call): every
 * slice's precision@k over its whole top-k, at the largest k and number of slices allowed, and a
 * week read from its outcome rows (as of a time inside it, with outcomes after it). Their
 * cost is the rows they name (min(k, slice) per slice), not bounded by the 2× goal; what they must
 * not do is hold the event loop (`largest_requests_stall_ms`, in the stall goal).
 */
const LARGEST_REQUESTS: { path: string; query: (i: number) => Record<string, string> }[] = [
  { path: '/metrics', query: (i) => ({ k: String(MAX_METRICS_K), slices: String(MAX_METRIC_SLICES), now: hoursBack(i) }) },
  { path: '/metrics/weekly', query: () => ({ k: String(MAX_METRICS_K), weeks: String(MAX_WEEKS) }) },
  // As of a Thursday noon inside the outcomes' three weeks: that week's figures are read from its outcome rows (the rollup counts whole weeks).
  { path: '/metrics/weekly', query: () => ({ weeks: String(MAX_WEEKS), now: '2026-11-12T12:00:00.000Z' }) },
];
const LARGEST_REQUEST_CALLS = 3;
/** Lessons and ELO items per outcome, and log rows per outcome: 100k lessons, 100k items and 1M log rows at 1M outcomes (issue 16). */
const LESSONS_PER_OUTCOME = 0.1;
const ELO_ITEMS_PER_OUTCOME = 0.1;
const LOG_ROWS_PER_OUTCOME = 1;
/** A keyed ledger, as the README recommends (and checkpoints need); logs kept up to 1M rows each, so they hold what the bench writes. */
const SETTINGS = { SELF_IMPROVE_LEDGER_SECRET: 'scale-benchmark-ledger-secret-0123456789', SELF_IMPROVE_LOG_MAX_ROWS: '1000000' };
const ELO_PATHS = ['src/lib', 'src/api', 'docs/adr', 'CAPABILITY/SKILLS', 'MEMORY/ARCHIVE'];
const ELO_T0 = Date.parse('2026-10-01T00:00:00Z');
const POSTGRES_URL = process.env.POSTGRES_URL || undefined;
const boot = (database: Database) => bootRuntime({ ...('postgresUrl' in database ? { postgresUrl: database.postgresUrl } : database), plugins: [selfImprovePlugin], settings: SETTINGS });

function chunkRows(chunk: number) {
  return generateOutcomes(CHUNK, 1_000 + chunk).map((r, i) => ({
    ...r,
    finding_key: `c${chunk}-${r.finding_key}`,
    project: `${r.project}-${Math.floor((chunk * CHUNK + i) / 200)}`,
  }));
}

/** An hour further back for each call `i` (drift windows end elsewhere: no report kept serves it). */
const hoursBack = (i: number) => new Date(Date.now() - (i + 1) * 3_600_000).toISOString();

/**
 * Routes that keep what they computed for reuse (the metrics by rollup version, the ELO report by
 * book version, the lessons by rating by the versions of the lessons held and of the book), asked
 * so that no call finds it kept: what computing it costs. Reported apart from the routes as called
 * (`uncached_reports`); `before` runs untimed before each call.
 */
const UNCACHED: Record<string, { path: string; query: (i: number) => Record<string, string>; before?: (runtime: AgentRuntime, i: number) => Promise<void> }> = {
  '/metrics': { path: '/metrics', query: (i) => ({ now: hoursBack(i) }) },
  // Another k each call: the book keeps one report.
  '/elo': { path: '/elo', query: (i) => ({ k: String(1 + (i % 100)) }) },
  // A use of an item before each call: the book has changed.
  '/lessons?sort=elo': {
    path: '/lessons',
    query: () => ({ sort: 'elo' }),
    before: async (runtime, i) => {
      (await eloBookOf(runtime)).recordAccess('file', `bench/uncached-${i}.md`);
    },
  },
};

async function measureUncached(runtime: AgentRuntime): Promise<Record<string, Timing>> {
  const out: Record<string, Timing> = {};
  for (const [name, { path, query, before }] of Object.entries(UNCACHED)) {
    const route = getRoute(path);
    out[name] = await timeCalls(`uncached:${name}`, UNCACHED_CALLS, (i) => askRoute(runtime, route, name, query(i)), before ? (i) => before(runtime, i) : undefined);
  }
  return out;
}

/** The largest requests (`LARGEST_REQUESTS`), each asked LARGEST_REQUEST_CALLS times. */
async function measureLargest(runtime: AgentRuntime): Promise<Record<string, Timing>> {
  const out: Record<string, Timing> = {};
  for (const { path, query } of LARGEST_REQUESTS) {
    const route = getRoute(path);
    const asked = query(0);
    // A `now` that moves with each call is left out of the name; a fixed one is part of the request.
    const name = `${path}?${new URLSearchParams(Object.entries(asked).filter(([key, value]) => key !== 'now' || value === query(1).now))}`;
    out[name] = await timeCalls(`largest:${name}`, LARGEST_REQUEST_CALLS, (i) => askRoute(runtime, route, name, query(i)));
  }
  return out;
}

/**
 * Trajectories submitted as over HTTP (unpaid), numbered `from` to `to` (each its own session, so
 * none is a duplicate of another), a turn of the event loop every 50. Returns `to`.
 */
async function seedTrajectories(runtime: AgentRuntime, from: number, to: number): Promise<number> {
  const trajectories = await trajectoryServiceOf(runtime);
  for (let i = from; i < to; i++) {
    const passed = 1 + (i % 40);
    const text = ['$ npm test', `Tests: ${passed} passed, ${passed} total`, `$ git commit -am "fix ${textOf(i, 6)}"`, `[main ${(i * 2_654_435_761 >>> 0).toString(16)}] fix run ${i}`].join('\n');
    await trajectories.submit(text, 'http', `bench-run-${i}`, { pay: false });
    if (i % 50 === 49) await yieldToEventLoop();
  }
  return to;
}

/**
 * The ELO book grown as an integrator grows it: items used (with their text, so each is content for
 * HIGH_ELO_CONTEXT) and retrieved, through `recordAccess` and `recordRetrieval`, written every 500
 * uses, until the agent has `items` items and about `logRows` rows in its logs (one update row per
 * use; a retrieval, every fourth use, one search row and one rank-boost update). Returns the uses made.
 */
async function growEloBook(runtime: AgentRuntime, uses: number, items: number, logRows: number, logRowsNow: number): Promise<number> {
  const book = await eloBookOf(runtime);
  let estimated = logRowsNow;
  let i = uses;
  for (; estimated < logRows; i++) {
    const item = i < items ? i : (i * 7_919) % items;
    const at = ELO_T0 + i * 2_000;
    const options = item === i ? { title: `doc ${item}`, text: `${textOf(item, 30)}.` } : {};
    book.recordAccess(item % 3 === 0 ? 'symbol' : 'file', `${ELO_PATHS[item % ELO_PATHS.length]}/doc-${item}.md`, options, at);
    estimated++;
    if (i % 4 === 0) {
      const other = (i * 31) % Math.min(i + 1, items);
      book.recordRetrieval({ tool: 'search', query: `q ${i}`, results: [{ kind: other % 3 === 0 ? 'symbol' : 'file', id: `${ELO_PATHS[other % ELO_PATHS.length]}/doc-${other}.md`, rank: 1 + (i % 12) }] }, at + 1);
      estimated += 2;
    }
    if (i % 500 === 499) {
      await book.flush();
      await yieldToEventLoop();
    }
    if (i % 100_000 === 99_999) note(`ELO uses ${i + 1}, about ${estimated}/${logRows} log rows`);
  }
  await book.flush();
  return i;
}

/**
 * `bench/scale-fresh.ts` run in its own process on the database: its RSS and providers once warmed
 * up. With the per-call log on (`BENCH_CALL_LOG_MS`), its stderr (its call, slow-call and hint
 * lines, and Bun's collection log when that is on) follows this process's, after a line naming
 * the step, so its slow calls are broken down like the bench's own.
 */
function freshProcess(database: Database, size: number): Promise<Record<string, unknown>> {
  const logged = Number.isFinite(CALL_LOG_MS);
  if (logged) note(`agent process at ${size}`);
  return agentProcess(database, SETTINGS, { routes: false, logged });
}

async function tableRows(runtime: AgentRuntime): Promise<{ lessons: number; ledger: number; log_rows: number }> {
  const db = dbOf(runtime);
  const count = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ n: number | string }>(db, query))[0]?.n ?? 0);
  const logTables = await queryRows<{ table_name: string }>(db, sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'self_improve' AND table_name LIKE '%log%'`);
  let logRows = 0;
  for (const t of logTables) logRows += await count(sql.raw(`SELECT count(*) AS n FROM self_improve."${t.table_name.replace(/"/g, '')}"`));
  return {
    lessons: (await scanOutcomeServiceOf(runtime)).scanLessons.count(),
    ledger: await count(sql`SELECT count(*) AS n FROM self_improve.ledger WHERE agent_id = ${runtime.agentId}::uuid`),
    log_rows: logRows,
  };
}

routeConsoleToStderr();
const steps: Record<string, unknown>[] = [];
/** `work` on the database the run grows, and whether that database is kept after the run (a temporary PGlite directory is not). */
function onDatabase<T>(work: (database: Database, kept: boolean) => Promise<T>): Promise<T> {
  if (POSTGRES_URL) return work({ postgresUrl: POSTGRES_URL }, true);
  const inDirectory = async (dataDir: string, kept: boolean) => {
    if (!process.env.SCALE_PGLITE_SERVER) return work({ dataDir }, kept);
    const served = await serveDirectory(dataDir);
    try {
      return await work({ postgresUrl: served.url, served }, kept);
    } finally {
      await served.stop();
    }
  };
  if (process.env.SCALE_DATA_DIR) return inDirectory(process.env.SCALE_DATA_DIR, true);
  return withTempDir('self-improve-bench-scale-', (dataDir) => inDirectory(dataDir, false));
}
/** Where the run has got: the runtime booted on the database, the chunks ingested, the next lesson group, the ELO uses made. */
interface RunProgress {
  booted: Awaited<ReturnType<typeof bootRuntime>>;
  chunk: number;
  nextLessonGroup: number;
  eloUses: number;
  trajectories: number;
  /** The smallest step's database as it was when that step was measured, for the paired measurement (`bench/scale-paired.ts`). */
  smallest?: Awaited<ReturnType<typeof copyDatabase>>;
}

/**
 * One step of the run, up to `size` outcomes; ends with the runtime booted again (`progress.booted`).
 * A function of its own, so that nothing of a step (its closures, the services of the runtime it
 * closed) stays reachable once it is over: with the step inline in the run's loop, the suspended
 * loop kept a closure of the step before, and through it the closed runtime and its PGlite, through
 * the whole next step (the twenty-first and twenty-second runs: two PGlite instances, a heap of
 * about 1 GB, the bench's RSS over 1 GiB).
 */
async function measureStep(database: Database, size: number, progress: RunProgress): Promise<Record<string, unknown>> {
  let booted = progress.booted;
  const service = await scanOutcomeServiceOf(booted.runtime);
  const target = size / CHUNK;
  const rowsBefore = progress.chunk * CHUNK;
  const ingest = await withStallMeter(async (untimed) => {
    for (; progress.chunk < target; progress.chunk++) {
      // The bench's own work of making the rows is not the plugin's stall.
      const text = untimed(() => chunkRows(progress.chunk).map((r) => JSON.stringify(r)).join('\n'));
      // As HTTP and the CLI ingest: JSONL text, INGEST_BATCH_ROWS rows per transaction.
      const result = await ingestText(service, text);
      if (result.accepted !== CHUNK) throw new Error(`chunk ${progress.chunk}: ${result.accepted} of ${CHUNK} rows accepted`);
      if (progress.chunk % 5 === 4) note(`ingested ${(progress.chunk + 1) * CHUNK}/${size}`);
    }
  });
  const heapAfter: Record<string, ReturnType<typeof liveHeap>> = { ingest: liveHeap() };
  note(`learning at ${size}`);
  const learn = await withStallMeter(() => service.learnPending({ asOf: Date.parse('2027-01-01T00:00:00Z') }));
  heapAfter.learn = liveHeap();
  // The metrics rollup follows the outcomes in the background from the moment the ingest went
  // quiet: what it still needs after learning. Waited for before the lessons are seeded: PGlite
  // runs one statement at a time, and with 900,000 outcomes still to roll up each of the
  // seeding's statements waited for a rollup step (5-12 lessons/s instead of 600).
  const rollup = await withStallMeter(() => service.metricsCaughtUp());
  // Lessons and the ELO book up to the sizes for this many outcomes, written as production writes them.
  const lessonsSeeded = await timeMs(async () => {
    progress.nextLessonGroup = await seedLessons(service, Math.round(size * LESSONS_PER_OUTCOME), progress.nextLessonGroup);
  });
  const eloGrown = await timeMs(async () => {
    progress.eloUses = await growEloBook(booted.runtime, progress.eloUses, Math.round(size * ELO_ITEMS_PER_OUTCOME), Math.round(size * LOG_ROWS_PER_OUTCOME), (await tableRows(booted.runtime)).log_rows);
  });
  const trajectoriesSeeded = await timeMs(async () => {
    progress.trajectories = await seedTrajectories(booted.runtime, progress.trajectories, Math.round(size * TRAJECTORIES_PER_OUTCOME));
  });
  heapAfter.lessons_and_elo = liveHeap();
  const ledger = await rewardLedgerOf(booted.runtime);
  const incremental = await withStallMeter(() => ledger.reconcile('incremental'));
  const full = await withStallMeter(() => ledger.reconcile('full'));
  const verify = await withStallMeter(() => ledger.verify());
  heapAfter.ledger = liveHeap();
  if (process.env.SCALE_HEAP_SNAPSHOT_DIR) await Bun.write(`${process.env.SCALE_HEAP_SNAPSHOT_DIR}/scale-${size}.heapsnapshot`, Bun.generateHeapSnapshot('v8'));
  const beforeRoutes = { rss_mb: Math.round(process.memoryUsage().rss / 1_048_576), heap_mb: Math.round(process.memoryUsage().heapUsed / 1_048_576), pglite_memory_mb: pgliteMemoryMb() };
  note(`routes and providers at ${size}`);
  const routes = await measureRoutes(booted.runtime);
  const uncachedReports = await measureUncached(booted.runtime);
  const largest = await withStallMeter(() => measureLargest(booted.runtime));
  // A full collection first: the garbage of 200 uncached reports is not collected during the
  // providers' calls (a probe on the 1M database saw one provider call take 18 ms with no statement: a pause of the collector).
  Bun.gc(true);
  const providers = await measureProviders(booted.runtime);
  const rows = await tableRows(booted.runtime);
  Bun.gc(true);
  const rssMb = Math.round(process.memoryUsage().rss / 1_048_576);
  const pgliteMemoryAfterRoutes = pgliteMemoryMb();
  // The same a second later, the process idle: what the allocator has returned of what the collection freed by then.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const rssSettledMb = Math.round(process.memoryUsage().rss / 1_048_576);
  await booted.close();
  // The smallest step's database kept as it is now, closed, for the paired measurement at the end.
  if (size === FIRST && FIRST < MAX && PAIRED_ROUNDS > 0) progress.smallest = await copyDatabase(database, size);
  // With this process's runtime closed (one PGlite process per database), an agent's own process on it.
  const fresh = await freshProcess(database, size);
  Bun.gc(true);
  const startup = await timeMs(() => boot(database));
  booted = startup.value;
  progress.booted = booted;
  // Services start in the background after initialize: the time until every one of the plugin's has started, counted from the boot.
  const runtime = booted.runtime;
  const services = await timeMs(() => Promise.all((selfImprovePlugin.services ?? []).map((s) => runtime.getServiceLoadPromise(s.serviceType as never))));
  const ready = await timeMs(async () => (await scanOutcomeServiceOf(booted.runtime)).scanLessonsReady());
  // The metered phases by the names the step prints them under; `byPhase` gives one figure of each.
  const phases = { ingest, learn, metrics_rollup: rollup, reconcile_incremental: incremental, reconcile_full: full, verify, largest_requests: largest };
  const byPhase = <K extends 'stall_sql' | 'stall_statements' | 'stalls_over_100_ms' | 'stall_hints'>(figure: K) =>
    Object.fromEntries(Object.entries(phases).map(([name, phase]) => [name, phase[figure]])) as Record<keyof typeof phases, (typeof ingest)[K]>;
  const step = {
    bench: 'scale-step',
    database: databaseKind(database),
    outcomes: size,
    ...rows,
    ingest_rows_per_s: Math.round((size - rowsBefore) / (ingest.ms / 1000)),
    ingest_stall_ms: ingest.stall_ms,
    learn_s: round(learn.ms / 1000, 2),
    learn_stall_ms: learn.stall_ms,
    lessons_seeded_s: round(lessonsSeeded.ms / 1000, 2),
    elo_uses: progress.eloUses,
    elo_grown_s: round(eloGrown.ms / 1000, 2),
    trajectories: progress.trajectories,
    trajectories_seeded_s: round(trajectoriesSeeded.ms / 1000, 2),
    metrics_rollup_after_learning_s: round(rollup.ms / 1000, 2),
    metrics_rollup_stall_ms: rollup.stall_ms,
    reconcile_incremental_s: round(incremental.ms / 1000, 2),
    reconcile_incremental_stall_ms: incremental.stall_ms,
    reconcile_incremental_records: incremental.value.records_compared,
    reconcile_incremental_ranges: incremental.value.ranges_compared,
    reconcile_full_s: round(full.ms / 1000, 2),
    reconcile_full_stall_ms: full.stall_ms,
    ranges_compared: full.value.ranges_compared,
    reconcile_ok: full.value.ok,
    verify_s: round(verify.ms / 1000, 2),
    verify_stall_ms: verify.stall_ms,
    verify_ok: verify.value.ok,
    // What ran in each phase's longest stall (its longest statement), to see what to shorten next.
    stall_sql: byPhase('stall_sql'),
    // How many statements ran in each phase's longest stall, and their total time: the rest of the stall is JavaScript or the collector.
    stall_statements: byPhase('stall_statements'),
    // How many stalls of each phase were over the goal (the longest is the phase's `…_stall_ms`).
    stalls_over_100_ms: byPhase('stalls_over_100_ms'),
    stall_hints: byPhase('stall_hints'),
    rss_before_routes_mb: beforeRoutes.rss_mb,
    heap_before_routes_mb: beforeRoutes.heap_mb,
    rss_mb: rssMb,
    rss_settled_mb: rssSettledMb,
    rss_peak_so_far_mb: peakRssMb(),
    // PGlite's WebAssembly memory before and after the routes: it only grows (its high-water mark stays in RSS).
    pglite_memory_before_routes_mb: beforeRoutes.pglite_memory_mb,
    pglite_memory_mb: pgliteMemoryAfterRoutes,
    // With SCALE_PGLITE_SERVER: the server process's memory as the step is reported (PGlite's, outside the agent's RSS).
    pglite_server_memory: 'postgresUrl' in database && database.served ? database.served.memoryMb() : null,
    pglite_server_engine: 'postgresUrl' in database && database.served ? SERVER_ENGINE : null,
    heap_mb: Math.round(process.memoryUsage().heapUsed / 1_048_576),
    // The bench process's live heap after each phase (a full collection first), with its most numerous object types.
    heap_after: heapAfter,
    startup_ms: Math.round(startup.ms),
    services_ready_ms: Math.round(startup.ms + services.ms),
    lessons_ready_ms: Math.round(ready.ms),
    routes,
    uncached_reports: uncachedReports,
    largest_requests: largest.value,
    largest_requests_stall_ms: largest.stall_ms,
    providers,
    fresh_process: fresh,
  };
  report(step);
  return step;
}

let paired: Record<string, PairedFigure> | null = null;
/** The longest stall of the paired agent processes' start-up background work (null without them). */
let pairedStartUpStallMs: number | null = null;
/** Where the smallest step's database was kept, when it was (a temporary one's copy is removed). */
let pairedKept: string | null = null;
/** Why the paired measurement has no figures, when it failed. */
let pairedError: string | null = null;
await onDatabase(async (database, kept) => {
  const progress: RunProgress = { booted: await boot(database), chunk: 0, nextLessonGroup: 0, eloUses: 0, trajectories: 0 };
  try {
    try {
      const { ledger } = await tableRows(progress.booted.runtime);
      if (ledger > 0) throw new Error(`the ${databaseKind(database)} database already holds ${ledger} ledger entries of this agent: give bench/scale.ts an empty one`);
      for (let size = FIRST; size <= MAX; size *= 10) steps.push(await measureStep(database, size, progress));
    } finally {
      await progress.booted.close();
    }
    if (progress.smallest) {
      // A failure here leaves the steps' own figures and goals to be reported, with the error.
      try {
        const measured = await measurePaired(progress.smallest.copy, database, SETTINGS, PAIRED_ROUNDS, Number.isFinite(CALL_LOG_MS));
        paired = measured.figures;
        pairedStartUpStallMs = measured.startUpStallMs;
      } catch (error) {
        pairedError = error instanceof Error ? error.message : String(error);
        note(`the paired measurement failed: ${pairedError}`);
      }
    }
  } finally {
    // Kept beside a kept database (named in the last line); a temporary one's goes with it.
    if (progress.smallest && !kept) await progress.smallest.remove();
    else if (progress.smallest) pairedKept = databaseName(progress.smallest.copy);
  }
});

// biome-ignore lint/suspicious/noExplicitAny: the step records printed above, read back by name
const first = steps[0] as Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above
const last = steps[steps.length - 1] as Record<string, any>;
const p99Ratios: Record<string, number> = {};
for (const kind of ['routes', 'uncached_reports', 'providers'] as const) {
  for (const [name, figures] of Object.entries(last[kind] as Record<string, { p99_ms: number }>)) {
    p99Ratios[`${kind}:${name}`] = ratioOf(figures.p99_ms, (first[kind][name] as { p99_ms: number }).p99_ms);
  }
}
for (const [name, figures] of Object.entries(last.fresh_process.providers as Record<string, { p99_ms: number }>)) {
  p99Ratios[`fresh_process_providers:${name}`] = ratioOf(figures.p99_ms, (first.fresh_process.providers[name] as { p99_ms: number }).p99_ms);
}
// With the start-up's background work in an agent process (lessons, ELO items and ratings, the metrics report): requests are served beside it.
// The paired agent processes' start-ups count too (on both databases).
const stalls = [
  ...['ingest_stall_ms', 'learn_stall_ms', 'metrics_rollup_stall_ms', 'reconcile_incremental_stall_ms', 'reconcile_full_stall_ms', 'verify_stall_ms', 'largest_requests_stall_ms'].map((k) => Number(last[k])),
  Number(last.fresh_process.background_stall_ms),
  ...(pairedStartUpStallMs === null ? [] : [pairedStartUpStallMs]),
];
const worstRoute = Math.max(...Object.entries(last.routes as Record<string, { p99_ms: number }>).filter(([p]) => !WHOLE_LEDGER_ROUTES.has(p)).map(([, f]) => f.p99_ms));
const worstProvider = Math.max(...Object.values(last.providers as Record<string, { p99_ms: number }>).map((f) => f.p99_ms));
const pairedRatios = paired ? Object.fromEntries(Object.entries(paired as Record<string, PairedFigure>).map(([name, figure]) => [name, figure.p99_ratio])) : null;
const worstFreshProvider = Math.max(...Object.values(last.fresh_process.providers as Record<string, { p99_ms: number }>).map((f) => f.p99_ms));
report({
  bench: 'scale',
  database: first.database,
  from_outcomes: first.outcomes,
  to_outcomes: last.outcomes,
  p99_ratio_largest_to_smallest: p99Ratios,
  ingest_rate_ratio: ratioOf(last.ingest_rows_per_s, first.ingest_rows_per_s),
  rss_ratio: ratioOf(last.rss_mb, first.rss_mb),
  // Reported beside the goal, which stays on rss_mb (right after a full collection).
  rss_settled_at_largest_mb: last.rss_settled_mb,
  startup_ratio: ratioOf(last.services_ready_ms, first.services_ready_ms),
  // The routes and providers timed in agent processes on the smallest step's database and the largest, in turns (`bench/scale-paired.ts`): medians over the rounds.
  paired_rounds: paired ? PAIRED_ROUNDS : 0,
  paired_smallest_database_kept: pairedKept,
  paired_error: pairedError,
  paired_p99_ratio: pairedRatios,
  paired,
  worst_route_p99_ms: worstRoute,
  worst_provider_p99_ms: worstProvider,
  worst_provider_p99_ms_in_a_fresh_process: worstFreshProvider,
  longest_stall_ms: Math.max(...stalls),
  paired_start_up_longest_stall_ms: pairedStartUpStallMs,
  // In the bench's process, every phase at the largest step (an agent process's start-up reports its longest only).
  stalls_over_100_ms_at_largest: Object.values(last.stalls_over_100_ms as Record<string, number>).reduce((a, b) => a + b, 0),
  goals: {
    route_and_provider_p99_within_2x: Object.entries(p99Ratios).every(([k, r]) => k.startsWith('uncached_reports:') || k.startsWith('fresh_process_providers:') || WHOLE_LEDGER_ROUTES.has(k.slice('routes:'.length)) || r <= 2),
    // The same goal on the paired measurement (null when there was none).
    route_and_provider_p99_within_2x_paired: pairedRatios ? Object.values(pairedRatios).every((r) => r <= 2) : null,
    route_p99_under_50_ms: worstRoute < 50,
    provider_p99_under_2_ms: worstProvider < 2,
    provider_p99_under_2_ms_in_a_fresh_process: worstFreshProvider < 2,
    no_stall_over_100_ms: Math.max(...stalls) <= STALL_GOAL_MS,
    rss_under_1_gb: last.rss_mb < 1024,
    rss_under_1_gb_in_a_fresh_process: last.fresh_process.rss_after_providers_mb < 1024,
    startup_under_5_s: last.services_ready_ms < 5_000,
    ingest_at_largest_at_least_half_rate: last.ingest_rows_per_s >= first.ingest_rows_per_s / 2,
  },
});
