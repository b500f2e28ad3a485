import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { ingestText } from '../src/shared/ingest-text';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, percentile, report, round, StatementTimer, timeMs, withTempDir } from './lib';

/**
 * What a scan metrics request costs as outcomes grow (issue 16): grows one PGlite database by
 * 10,000-row JSONL ingests (the rows of bench/scale.ts: a new project every 200 rows), waits for the
 * metrics rollup to catch up, and at each size in `sizes` (default 10,000 and 100,000) times 10
 * calls of `metrics()` and `weeklyTriage({ weeks: 12 })` and names their longest PGlite statements.
 * The last line gives the p50 at the largest size as a ratio to the smallest, measured in this run.
 *
 *   bun run bench/metrics-reads.ts [size ...]
 */
const SIZES = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [10_000, 100_000];
const CHUNK = 10_000;
const CALLS = 10;

function chunkRows(chunk: number) {
  return generateOutcomes(CHUNK, 1_000 + chunk).map((r, i) => ({ ...r, finding_key: `c${chunk}-${r.finding_key}`, project: `${r.project}-${Math.floor((chunk * CHUNK + i) / 200)}` }));
}

routeConsoleToStderr();
const steps: { outcomes: number; metrics_p50_ms: number; weekly_p50_ms: number }[] = [];
await withTempDir('self-improve-bench-metrics-', async (dataDir) => {
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin] });
  try {
    const service = await scanOutcomeServiceOf(runtime);
    const timer = new StatementTimer();
    timer.install();
    let chunk = 0;
    for (const size of SIZES) {
      for (; chunk < size / CHUNK; chunk++) await ingestText(service, chunkRows(chunk).map((r) => JSON.stringify(r)).join('\n'));
      note(`rolling up ${size}`);
      timer.take();
      const rollup = await timeMs(() => service.metricsCaughtUp());
      const figures: Record<string, unknown> = { bench: 'metrics-reads', outcomes: size, rollup_wait_s: round(rollup.ms / 1000, 2), rollup: timer.takeWithHeaviest() };
      const calls: [string, () => Promise<unknown>][] = [
        ['metrics', () => service.metrics()],
        ['metrics_20_slices', () => service.metrics({ slices: 20 })],
        ['weekly', () => service.weeklyTriage({ weeks: 12 })],
      ];
      for (const [name, call] of calls) {
        timer.take();
        const times: number[] = [];
        for (let i = 0; i < CALLS; i++) times.push((await timeMs(call)).ms);
        figures[name] = { p50_ms: round(percentile(times, 50), 1), max_ms: round(Math.max(...times), 1), ...timer.takeWithHeaviest() };
      }
      steps.push({ outcomes: size, metrics_p50_ms: (figures.metrics as { p50_ms: number }).p50_ms, weekly_p50_ms: (figures.weekly as { p50_ms: number }).p50_ms });
      report(figures);
    }
  } finally {
    await close();
  }
});
const [first, last] = [steps[0], steps[steps.length - 1]];
if (first && last) {
  report({
    bench: 'metrics-reads',
    from_outcomes: first.outcomes,
    to_outcomes: last.outcomes,
    metrics_p50_ratio: round(last.metrics_p50_ms / first.metrics_p50_ms, 2),
    weekly_p50_ratio: round(last.weekly_p50_ms / first.weekly_p50_ms, 2),
  });
}
