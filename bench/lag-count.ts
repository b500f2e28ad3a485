import '../src/cli/quiet';
import { sql } from 'drizzle-orm';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { eloBookOf } from '../src/elo/elo-book-service';
import { contextWarmedUp } from '../src/context/context-warm-up';
import { MetricRollup } from '../src/scan/metric-rollup-store';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { outcomesTable } from '../src/scan/tables';
import { dbOf } from '../src/shared/sql';
import { report, withStallMeter } from './lib';

/**
 * How long counting a large backlog of outcomes not yet rolled up holds the event loop: boots an
 * agent on DATA_DIR (argv 2, a database `bench/scale.ts` grew), waits for its start-up work, then
 * inside a transaction that is rolled back moves the rollup's `done_seq` back to 100 (every outcome
 * waiting) and times, twice each, `MetricRollup.lag` (one statement up to 20,000 waiting, then
 * ranges) and the one `count(*)` it replaced: the whole time and the longest event-loop stall of each.
 * The database is left as it was.
 */
routeConsoleToStderr();
const booted = await bootRuntime({ dataDir: process.argv[2] as string, plugins: [selfImprovePlugin], settings: {} });
class RolledBack extends Error {}
try {
  const { runtime } = booted;
  await Promise.all((selfImprovePlugin.services ?? []).map((s) => runtime.getServiceLoadPromise(s.serviceType as never)));
  const service = await scanOutcomeServiceOf(runtime);
  await service.scanLessonsReady();
  await (await eloBookOf(runtime)).ratingsReadAhead();
  await contextWarmedUp(runtime);
  await service.metricsCaughtUp();
  await dbOf(runtime)
    .transaction(async (tx) => {
      await tx.execute(sql`UPDATE self_improve.metric_rollup_state SET done_seq = 100 WHERE agent_id = ${runtime.agentId}::uuid`);
      for (let round = 0; round < 2; round++) {
        const ranges = await withStallMeter(() => new MetricRollup(tx, runtime.agentId).lag());
        const whole = await withStallMeter(async () => {
          const result = await tx.execute(sql`SELECT count(*)::float8 AS n FROM ${outcomesTable} WHERE agent_id = ${runtime.agentId}::uuid AND seq > 100`);
          return Number((result.rows[0] as { n: number }).n);
        });
        report({
          bench: 'lag-count',
          round,
          pending: ranges.value.pending,
          same_count: ranges.value.pending === whole.value,
          in_ranges: { ms: Math.round(ranges.ms), stall_ms: ranges.stall_ms, stall_sql: ranges.stall_sql },
          one_statement: { ms: Math.round(whole.ms), stall_ms: whole.stall_ms },
        });
      }
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
} finally {
  await booted.close();
}
