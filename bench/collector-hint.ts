import '../src/cli/quiet';
import type { UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { stableId } from '../src/shared/ids';
import { yieldToEventLoop } from '../src/shared/event-loop';
import { peakRssMb, report, round, withStallMeter, withTempDir } from './lib';

/**
 * What turns of the event loop and the collector hint in `yieldToEventLoop` do to the process's
 * memory: 5,000 memories shaped like lessons (a text, metadata with 50 outcome ids) written through
 * plugin-sql to a PGlite database on disk, in chunks of 10, three ways: with no turn of the event
 * loop between chunks (awaited queries alone), with a bare `setImmediate` turn, and with
 * `yieldToEventLoop` (a turn, and a hint to Bun's collector at most every 250 ms). Each runs in a
 * process of its own (the peak RSS, VmHWM, only grows). Prints each peak, the RSS at the end, the
 * longest event-loop stall (the collector's pauses included), and the ratios to the first way.
 */
const WRITES = Number(process.argv[3] ?? 5_000);
const MODES = ['no_turn', 'set_immediate', 'yield_to_event_loop'] as const;
type Mode = (typeof MODES)[number];
const mb = (bytes: number) => Math.round(bytes / 1_048_576);

async function child(mode: Mode): Promise<void> {
  routeConsoleToStderr();
  await withTempDir('self-improve-bench-collector-', async (dataDir) => {
    const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin] });
    try {
      const before = { rss: mb(process.memoryUsage().rss), peak: peakRssMb() };
      const metadata = { type: 'bench', outcome_ids: Array.from({ length: 50 }, (_, i) => stableId('collector-bench-outcome', String(i))) };
      const run = await withStallMeter(async () => {
        for (let i = 0; i < WRITES; i++) {
          const id = stableId('collector-bench', String(i)) as UUID;
          await runtime.createMemory({ id, agentId: runtime.agentId, entityId: runtime.agentId, roomId: runtime.agentId, content: { text: `lesson ${i}: sql-injection findings in payments-api-${i} are mostly fixed` }, metadata: metadata as never, createdAt: Date.now() }, 'custom');
          if (i % 10 === 9 && mode === 'set_immediate') await new Promise((resolve) => setImmediate(resolve));
          if (i % 10 === 9 && mode === 'yield_to_event_loop') await yieldToEventLoop();
        }
      });
      process.stdout.write(`${JSON.stringify({ s: round(run.ms / 1000, 1), longest_stall_ms: run.stall_ms, rss_before_mb: before.rss, peak_before_mb: before.peak, rss_after_mb: mb(process.memoryUsage().rss), peak_mb: peakRssMb() })}\n`);
    } finally {
      await close();
    }
  });
}

async function run(mode: Mode): Promise<Record<string, number>> {
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path, mode, String(WRITES)], { stdout: 'pipe', stderr: 'ignore' });
  const text = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`the ${mode} run failed`);
  return JSON.parse(text.trim().split('\n').pop() as string);
}

const asked = process.argv[2] as Mode | undefined;
if (asked !== undefined && MODES.includes(asked)) await child(asked);
else {
  const runs: Record<string, Record<string, number>> = {};
  for (const mode of MODES) runs[mode] = await run(mode);
  const first = runs.no_turn as Record<string, number>;
  report({
    bench: 'collector-hint',
    writes: WRITES,
    ...runs,
    peak_rss_ratio_to_no_turn: Object.fromEntries(MODES.map((m) => [m, round((runs[m]?.peak_mb as number) / (first.peak_mb as number), 2)])),
    time_ratio_to_no_turn: Object.fromEntries(MODES.map((m) => [m, round((runs[m]?.s as number) / (first.s as number), 2)])),
  });
}
