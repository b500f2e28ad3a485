import '../src/cli/quiet';
import { toJsonl } from '../examples/generate-outcomes';
import { generateReplayStream, type StreamKind } from '../examples/generate-replay';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { replayOutcomes } from '../src/scan/replay';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { note, report, round } from './lib';

/**
 * Does learning help? Replays outcome streams (no language model) and prints, per stream, the
 * triage prior's scores next to the running global false-positive rate's, with the skill ratio
 * `1 - brier / brier_baseline` measured in the same run. Streams: generated ones with planted
 * structure ("pattern") and without ("noise"), several seeds each, and examples/outcomes.jsonl.
 */
const ROWS = Number(process.argv[2] ?? 3_000);
const SEEDS = [1, 2, 3];

async function replayOne(name: string, text: string): Promise<void> {
  const booted = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin], settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
  try {
    const service = await scanOutcomeServiceOf(booted.runtime);
    const start = performance.now();
    const r = await replayOutcomes(service, text);
    const seconds = (performance.now() - start) / 1000;
    report({
      bench: 'replay',
      stream: name,
      rows: r.rows,
      rows_per_s: round(r.rows / seconds, 0),
      brier: round(r.brier ?? Number.NaN, 4),
      brier_baseline: round(r.brier_baseline ?? Number.NaN, 4),
      brier_skill: round(r.brier_skill ?? Number.NaN, 3),
      auc: round(r.auc ?? Number.NaN, 3),
      auc_baseline: round(r.auc_baseline ?? Number.NaN, 3),
      log_loss: round(r.log_loss ?? Number.NaN, 4),
      log_loss_baseline: round(r.log_loss_baseline ?? Number.NaN, 4),
      ece: round(r.ece ?? Number.NaN, 4),
      lessons_created: r.lessons_created,
    });
  } finally {
    await booted.close();
  }
}

routeConsoleToStderr();
for (const kind of ['pattern', 'noise'] as StreamKind[]) {
  for (const seed of SEEDS) {
    note(`replaying ${kind} seed ${seed} (${ROWS} rows)`);
    await replayOne(`${kind}-${seed}`, toJsonl(generateReplayStream(ROWS, seed, kind)));
  }
}
await replayOne('examples/outcomes.jsonl', await Bun.file(new URL('../examples/outcomes.jsonl', import.meta.url)).text());
