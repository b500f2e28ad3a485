import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { rewardLedgerOf } from '../src/ledger/reward-ledger-service';
import { ingestText } from '../src/shared/ingest-text';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, report, StallTracer, withTempDir } from './lib';

/**
 * What fills each event-loop stall (issue 16): grows a PGlite database to `outcomes` (default
 * 30,000) by 10,000-row JSONL ingests, then learns, waits for the metrics rollup and reconciles
 * the ledger, and prints one JSON line per stall longer than `threshold` ms (default 60): its
 * phase, length, and the PGlite statements run in it, each with the JS time before it. A stall
 * with no statement is JS alone. The bench's own row generation runs between phases of its own
 * and is never reported. `started_at_ms` is when the stall began, in ms since the epoch: under
 * `bun --cpu-prof` (whose profile's `startTime` is in µs since the epoch) it finds the stall's samples.
 *
 * With STALL_TRACE_DATA_DIR set it works on that database as it is (e.g. the one bench/scale.ts
 * keeps in SCALE_DATA_DIR), ingesting `outcomes` more rows from chunk STALL_TRACE_FIRST_CHUNK
 * (default 0; 100 follows a 1M scale run) on top, and reconciles before ingesting too.
 *
 *   bun run bench/stall-trace.ts [outcomes] [threshold]
 */
const OUTCOMES = Number(process.argv[2] ?? 30_000);
const THRESHOLD = Number(process.argv[3] ?? 60);
const CHUNK = 10_000;
const FIRST_CHUNK = Number(process.env.STALL_TRACE_FIRST_CHUNK ?? 0);

function chunkText(chunk: number): string {
  return generateOutcomes(CHUNK, 1_000 + chunk)
    .map((r, i) => JSON.stringify({ ...r, finding_key: `c${chunk}-${r.finding_key}`, project: `${r.project}-${Math.floor((chunk * CHUNK + i) / 200)}` }))
    .join('\n');
}

routeConsoleToStderr();
const inDataDir = <T>(work: (dir: string) => Promise<T>) => (process.env.STALL_TRACE_DATA_DIR ? work(process.env.STALL_TRACE_DATA_DIR) : withTempDir('self-improve-bench-stalls-', work));
await inDataDir(async (dataDir) => {
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: { SELF_IMPROVE_LEDGER_SECRET: 'scale-benchmark-ledger-secret-0123456789' } });
  const tracer = new StallTracer('stall-trace', THRESHOLD);
  try {
    const service = await scanOutcomeServiceOf(runtime);
    await service.scanLessonsReady();
    tracer.install();
    const ledger = await rewardLedgerOf(runtime);
    if (process.env.STALL_TRACE_DATA_DIR) {
      // What start-up left running in the background (nothing is asked of the agent meanwhile).
      tracer.enter('after-start');
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      tracer.enter('reconcile-incremental-before');
      await ledger.reconcile('incremental');
    }
    tracer.enter('ingest');
    for (let chunk = FIRST_CHUNK; chunk < FIRST_CHUNK + OUTCOMES / CHUNK; chunk++) {
      const text = tracer.untraced(() => chunkText(chunk));
      await ingestText(service, text);
      note(`ingested ${(chunk + 1 - FIRST_CHUNK) * CHUNK}`);
    }
    tracer.enter('learn');
    await service.learnPending({ asOf: Date.parse('2027-01-01T00:00:00Z') });
    tracer.enter('metrics-rollup');
    await service.metricsCaughtUp();
    tracer.enter('reconcile-incremental');
    await ledger.reconcile('incremental');
    tracer.enter('reconcile-full');
    await ledger.reconcile('full');
    tracer.turn();
    tracer.enter('done');
    report({ bench: 'stall-trace', outcomes: OUTCOMES, threshold_ms: THRESHOLD, stalls: tracer.stalls });
  } finally {
    tracer.stop();
    await close();
  }
});
