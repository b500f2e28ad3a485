import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { ingestText } from '../src/shared/ingest-text';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, report, round, withTempDir } from './lib';
import { measureProviders, type Timing } from './scale-calls';

/**
 * A reply's cost while learning runs (issue 16: "a reply's latency does not change with pending
 * work"): `bun run bench/reply-while-learning.ts [rows]` (default 20,000) ingests `rows` outcomes
 * into a new PGlite database and learns them, then times every provider (`measureProviders`: 100
 * calls each, each on a new chat message; after a first round not reported, so that both rounds
 * find the code compiled) with nothing pending (`idle`); ingests `rows` more and
 * times the providers again while the learning pass over them and the metrics rollup run in the
 * same process (`busy`). Prints p50/p99 of both, their ratios, and how much of the busy
 * measurement the pass overlapped (it must cover it, or the figure says little).
 */
const ROWS = Number(process.argv[2] ?? 20_000);
const SETTINGS = { SELF_IMPROVE_LEDGER_SECRET: 'reply-while-learning-ledger-secret-0123456789' };

function jsonl(seed: number, prefix: string): string {
  return generateOutcomes(ROWS, seed)
    .map((r) => JSON.stringify({ ...r, finding_key: `${prefix}-${r.finding_key}` }))
    .join('\n');
}

routeConsoleToStderr();
await withTempDir('self-improve-bench-reply-', async (dataDir) => {
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: SETTINGS });
  try {
    const service = await scanOutcomeServiceOf(runtime);
    const asOf = Date.parse('2027-01-01T00:00:00Z');
    note(`ingesting and learning ${ROWS} outcomes`);
    await ingestText(service, jsonl(1, 'a'));
    await service.learnPending({ asOf });
    await service.metricsCaughtUp();
    // A first round, not reported, so both measured rounds find the providers' code compiled.
    await measureProviders(runtime);
    const idle = await measureProviders(runtime);

    note(`ingesting ${ROWS} more, timing the providers while they are learned`);
    await ingestText(service, jsonl(2, 'b'));
    let learningEndedAt: number | null = null;
    const started = performance.now();
    const pass = service.learnPending({ asOf }).then((r) => {
      learningEndedAt = performance.now();
      return r;
    });
    const busy = await measureProviders(runtime);
    const measuredUntil = performance.now();
    const learned = await pass;
    await service.metricsCaughtUp();
    const ratios = (kind: 'p50_ms' | 'p99_ms') => Object.fromEntries(Object.keys(idle).map((name) => [name, round((busy[name] as Timing)[kind] / (idle[name] as Timing)[kind], 2)]));
    report({
      bench: 'reply-while-learning',
      rows: ROWS,
      idle,
      busy,
      p50_ratio: ratios('p50_ms'),
      p99_ratio: ratios('p99_ms'),
      busy_measurement_ms: Math.round(measuredUntil - started),
      // Whether the learning pass was still running when the last provider call ended.
      learning_covered_measurement: learningEndedAt === null || learningEndedAt >= measuredUntil,
      learning_s: round(((learningEndedAt ?? measuredUntil) - started) / 1000, 2),
      lessons_created: learned.lessons_created,
    });
  } finally {
    await close();
  }
});
