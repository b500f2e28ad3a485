import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { eloBookOf } from '../src/elo/elo-book-service';
import { contextWarmedUp } from '../src/context/context-warm-up';
import { report, round, watchPgliteStatementEnds } from './lib';

/**
 * What holds the event loop while an agent starts on a database (issue 16): boots a runtime on
 * `dataDir` (argv 2, e.g. the one `bench/scale.ts` keeps in SCALE_DATA_DIR), waits until every
 * service has started and the start-up's background work is done (lessons, ELO items and ratings,
 * the prompt context, the metrics rollup and its report), and prints one JSON line per gap between
 * two turns of the event loop longer than `threshold` ms (argv 3, default 70): when it began (ms
 * since the boot), its length, whether it ended after the services were ready, and its statements
 * (JavaScript before each, SQL time, text). A last line gives the times of readiness and of the end.
 *
 *   bun run bench/startup-stalls.ts DATA_DIR [threshold]
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: bun run bench/startup-stalls.ts DATA_DIR [threshold]');
const THRESHOLD = Number(process.argv[3] ?? 70);
routeConsoleToStderr();
const settings = { SELF_IMPROVE_LEDGER_SECRET: 'scale-benchmark-ledger-secret-0123456789', SELF_IMPROVE_LOG_MAX_ROWS: '1000000' };
const started = performance.now();
const since = (t: number) => round(t - started, 0);
const booted = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings });
const { runtime } = booted;
let steps: { js_ms: number; sql_ms: number; sql: string }[] = [];
let lastStep = performance.now();
let lastTurn = performance.now();
let readyAt: number | null = null;
const gaps: Record<string, unknown>[] = [];
// Statements are traced from the boot's end: plugin-sql's PGlite client exists only then.
watchPgliteStatementEnds((ms, sql) => {
  const end = performance.now();
  steps.push({ js_ms: round(end - lastStep - ms, 1), sql_ms: round(ms, 1), sql: sql.slice(0, 100) });
  lastStep = end;
});
const timer = setInterval(() => {
  const now = performance.now();
  if (now - lastTurn > THRESHOLD) {
    gaps.push({ bench: 'startup-stall', at_ms: since(lastTurn), gap_ms: round(now - lastTurn, 1), after_ready: readyAt !== null && now > readyAt, tail_js_ms: round(now - lastStep, 1), statements: steps });
  }
  lastTurn = now;
  lastStep = now;
  steps = [];
}, 2);
try {
  await Promise.all((selfImprovePlugin.services ?? []).map((s) => runtime.getServiceLoadPromise(s.serviceType as never)));
  readyAt = performance.now();
  const service = await scanOutcomeServiceOf(runtime);
  await service.scanLessonsReady();
  await (await eloBookOf(runtime)).ratingsReadAhead();
  await contextWarmedUp(runtime);
  await service.metricsCaughtUp();
  clearInterval(timer);
  for (const gap of gaps) report(gap);
  report({ bench: 'startup-stalls', services_ready_ms: since(readyAt), background_done_ms: since(performance.now()), gaps_over_threshold_after_ready: gaps.filter((g) => g.after_ready).length, threshold_ms: THRESHOLD });
} finally {
  clearInterval(timer);
  await booted.close();
}
