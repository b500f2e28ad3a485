import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { eloBookOf } from '../src/elo/elo-book-service';
import { contextWarmedUp } from '../src/context/context-warm-up';
import { report, round, StallTracer } from './lib';

/**
 * What holds the event loop while an agent starts on a database (issue 16): boots a runtime on
 * `dataDir` (argv 2, e.g. the one `bench/scale.ts` keeps in SCALE_DATA_DIR), waits until every
 * service has started and the start-up's background work is done (lessons, ELO items and ratings,
 * the prompt context, the metrics rollup and its report), and prints one JSON line per stall
 * longer than `threshold` ms (argv 3, default 70; `StallTracer`): phase `services-starting` until
 * every service has started, then `background`. A last line gives the times of readiness and of
 * the end (ms since the boot began) and the stalls of each phase. Run it on a quiet machine.
 *
 *   bun run bench/startup-stalls.ts DATA_DIR [threshold]
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: bun run bench/startup-stalls.ts DATA_DIR [threshold]');
const THRESHOLD = Number(process.argv[3] ?? 70);
routeConsoleToStderr();
const settings = { SELF_IMPROVE_LEDGER_SECRET: 'scale-benchmark-ledger-secret-0123456789', SELF_IMPROVE_LOG_MAX_ROWS: '1000000' };
const started = performance.now();
const booted = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings });
const { runtime } = booted;
const tracer = new StallTracer('startup-stalls', THRESHOLD);
try {
  // Traced from the boot's end: plugin-sql's PGlite client exists only then.
  tracer.install();
  tracer.enter('services-starting');
  await Promise.all((selfImprovePlugin.services ?? []).map((s) => runtime.getServiceLoadPromise(s.serviceType as never)));
  const readyMs = performance.now() - started;
  tracer.enter('background');
  const service = await scanOutcomeServiceOf(runtime);
  await service.scanLessonsReady();
  await (await eloBookOf(runtime)).ratingsReadAhead();
  await contextWarmedUp(runtime);
  await service.metricsCaughtUp();
  tracer.turn();
  report({ bench: 'startup-stalls', services_ready_ms: round(readyMs, 0), background_done_ms: round(performance.now() - started, 0), threshold_ms: THRESHOLD, stalls: tracer.stallsIn });
} finally {
  tracer.stop();
  await booted.close();
}
