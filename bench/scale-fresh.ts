import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { eloBookOf } from '../src/elo/elo-book-service';
import { contextWarmedUp } from '../src/context/context-warm-up';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { pgliteMemoryMb, report, withStallMeter } from './lib';
import { measureProviders } from './scale-calls';
import { measureRoutes } from './scale-routes';

/**
 * An agent's own process on a database `bench/scale.ts` grew: boots a runtime on the PGlite
 * directory or the PostgreSQL URL (`postgres://…`, `postgresql://…`) given as argv 2
 * with the settings given as JSON (argv 3), waits until every service has started and the
 * background work after start is done (the lessons, the ELO book's items and log samples, the
 * ratings of the lessons held, the prompt context's warm-up, the metrics rollup and its report),
 * then prints one JSON line: the longest event-loop stall of that background work (from the
 * services' start, when an agent takes requests; `background_stall_*`), its RSS and heap after a
 * full collection, how long that took, the providers' p50/p99
 * (`measureProviders`), its RSS after them, and its heap and RSS after another full collection
 * (what the calls left held). The bench's own process has grown the database through a year of
 * writes; this is what a process that starts on it holds and costs. With `routes` as argv 4, it then
 * also times the plugin's routes (`measureRoutes`, but the whole-ledger ones) and prints them as
 * `routes`: bench/scale.ts's paired measurement.
 */
routeConsoleToStderr();
const started = performance.now();
const target = process.argv[2] as string;
const database = /^postgres(ql)?:\/\//.test(target) ? { postgresUrl: target } : { dataDir: target };
const booted = await bootRuntime({ ...database, plugins: [selfImprovePlugin], settings: JSON.parse(process.argv[3] ?? '{}') });
try {
  const { runtime } = booted;
  await Promise.all((selfImprovePlugin.services ?? []).map((s) => runtime.getServiceLoadPromise(s.serviceType as never)));
  const background = await withStallMeter(async () => {
    const service = await scanOutcomeServiceOf(runtime);
    await service.scanLessonsReady();
    await (await eloBookOf(runtime)).ratingsReadAhead();
    await contextWarmedUp(runtime);
    await service.metricsCaughtUp();
  });
  const warmedMs = performance.now() - started;
  Bun.gc(true);
  const memory = process.memoryUsage();
  const providers = await measureProviders(runtime);
  const rssAfterProviders = process.memoryUsage().rss;
  // What the calls left held (after a full collection) against what they grew the process by.
  Bun.gc(true);
  const collected = process.memoryUsage();
  const routes = process.argv[4] === 'routes' ? await measureRoutes(runtime, { wholeLedger: false }) : undefined;
  report({
    bench: 'scale-fresh-process',
    warmed_up_ms: Math.round(warmedMs),
    background_stall_ms: background.stall_ms,
    background_stall_sql: background.stall_sql,
    background_stall_statements: background.stall_statements,
    rss_mb: Math.round(memory.rss / 1_048_576),
    heap_mb: Math.round(memory.heapUsed / 1_048_576),
    providers,
    rss_after_providers_mb: Math.round(rssAfterProviders / 1_048_576),
    heap_after_providers_collected_mb: Math.round(collected.heapUsed / 1_048_576),
    rss_after_providers_collected_mb: Math.round(collected.rss / 1_048_576),
    pglite_memory_mb: pgliteMemoryMb(),
    ...(routes ? { routes } : {}),
  });
} finally {
  await booted.close();
}
