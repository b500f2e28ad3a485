import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { INGEST_BATCH_ROWS } from '../src/shared/ingest-text';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, report, round, timeMs, withTempDir } from './lib';

/**
 * Ingest rate of outcome rows into PGlite through ScanOutcomeService.ingest (goal: 100k rows in
 * under 60 s), then one learning pass over all of them with no language model (goal: under 10 s).
 * Both as ratios to their goals, measured in this run.
 */
const ROWS = Number(process.argv[2] ?? 100_000);
const INGEST_GOAL_S = 60 * (ROWS / 100_000);
const LEARN_GOAL_S = 10 * (ROWS / 100_000);

routeConsoleToStderr();
const rows = generateOutcomes(ROWS, 7);
await withTempDir('self-improve-bench-ingest-', async (dataDir) => {
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin] });
  try {
    const service = await scanOutcomeServiceOf(runtime);
    const ingest = await timeMs(async () => {
      let accepted = 0;
      for (let i = 0; i < rows.length; i += INGEST_BATCH_ROWS) {
        accepted += (await service.ingest(rows.slice(i, i + INGEST_BATCH_ROWS))).accepted;
        if ((i / INGEST_BATCH_ROWS) % 10 === 0) note(`ingested ${i + INGEST_BATCH_ROWS}/${rows.length}`);
      }
      return accepted;
    });
    const asOf = Math.max(...rows.map((r) => Date.parse(r.ts))) + 1;
    const learn = await timeMs(() => service.learnPending({ asOf }));
    // The metrics rollup follows in the background (it began once the ingest went quiet): the time it still needed after learning.
    const rollup = await timeMs(() => service.metricsCaughtUp());
    const ingestS = ingest.ms / 1000;
    const learnS = learn.ms / 1000;
    report({
      bench: 'ingest-learn',
      rows: ROWS,
      accepted: ingest.value,
      ingest_s: round(ingestS, 2),
      ingest_rows_per_s: Math.round(ROWS / ingestS),
      ingest_goal_s: INGEST_GOAL_S,
      ingest_goal_ratio: round(INGEST_GOAL_S / ingestS, 2),
      learn_s: round(learnS, 2),
      learn_goal_s: LEARN_GOAL_S,
      learn_goal_ratio: round(LEARN_GOAL_S / learnS, 2),
      groups: learn.value.groups,
      windows: learn.value.windows,
      lessons_created: learn.value.lessons_created,
      lessons_reinforced: learn.value.lessons_reinforced,
      metrics_rollup_after_learning_s: round(rollup.ms / 1000, 2),
      heap_used_mb: Math.round(process.memoryUsage().heapUsed / 1_048_576),
    });
  } finally {
    await close();
  }
});
