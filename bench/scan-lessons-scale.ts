import '../src/cli/quiet';
import type { Memory, RouteRequest } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { scanLessonsProvider } from '../src/scan/surfaces/scan-lessons-provider';
import { handleGetScanLessons } from '../src/scan/surfaces/learning-routes';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { recordingResponse } from '../__tests__/helpers/route-response';
import { chatMessage } from '../__tests__/helpers/runtime';
import { percentile, report, round, timeMs } from './lib';
import { seedLessons } from './lesson-seeding';

/**
 * SCAN_LESSONS and GET /self-improve/lessons as the lessons grow (default 1k, 10k, 50k; sizes as
 * arguments). Lessons are written through ScanLessonStore as a learning pass writes them: texts and
 * metadata from the statistics of a group (`draftStatisticalScanLessons`, `scanLessonMetadataFor`),
 * groups named as bench/scale.ts names them (a new project name every few lessons, so the number of
 * projects grows with the lessons). No language or embedding model: lexical vectors. Each provider
 * call is for a new message (nothing cached): a message naming a known project, a scanner and a
 * category as scale.ts sends; one about findings in general; an unrelated one. The last line gives
 * each p99 at the largest size as a ratio to the smallest, measured in this run.
 */
const SIZES = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1_000, 10_000, 50_000];
const PROVIDER_CALLS = 200;
const ROUTE_CALLS = 50;

async function timeCalls(calls: number, call: (i: number) => Promise<void>): Promise<{ p50_ms: number; p99_ms: number }> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call(i);
    times.push(performance.now() - start);
  }
  return { p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) };
}

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin] });
const steps: Record<string, { p50_ms: number; p99_ms: number } | number>[] = [];
try {
  const service = await scanOutcomeServiceOf(runtime);
  await service.scanLessonsReady();
  let nextGroup = 0;
  for (const size of SIZES) {
    const built = await timeMs(() => seedLessons(service, size, nextGroup));
    nextGroup = built.value;
    const kinds: Record<string, (i: number) => string> = {
      names_project: (i) => `semgrep found sql-injection in payments-api-${(i * 37) % Math.max(1, Math.floor(nextGroup / 6))} handler ${i}, is it a false positive?`,
      topical: (i) => `is this scanner alert number ${i} a false positive?`,
      unrelated: (i) => `what should we cook for dinner tonight, option ${i}?`,
    };
    // What storing the lessons started in the background (the ELO book's content) settles first.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    Bun.gc(true);
    const step: Record<string, { p50_ms: number; p99_ms: number } | number> = { lessons: service.scanLessons.count(), held: service.scanLessons.index.size, build_s: round(built.ms / 1000, 1) };
    for (const [kind, text] of Object.entries(kinds)) {
      const messages: Memory[] = [];
      for (let i = 0; i < PROVIDER_CALLS; i++) messages.push(await chatMessage(runtime, `${text(i)} (${size})`));
      await scanLessonsProvider.get(runtime, await chatMessage(runtime, `warm ${kind} ${size}`), { values: {}, data: {}, text: '' });
      step[`provider_${kind}`] = await timeCalls(PROVIDER_CALLS, async (i) => {
        await scanLessonsProvider.get(runtime, messages[i] as Memory, { values: {}, data: {}, text: '' });
      });
    }
    for (const [name, query] of Object.entries({ route_lessons: {}, route_lessons_elo: { sort: 'elo' }, route_lessons_100: { limit: '100' } })) {
      step[name] = await timeCalls(ROUTE_CALLS, async () => {
        const { res, sent } = recordingResponse();
        await handleGetScanLessons({ method: 'GET', path: '/lessons', query, params: {}, headers: {} } as unknown as RouteRequest, res, runtime);
        if (sent.status !== 200) throw new Error(`GET /lessons answered ${sent.status}`);
      });
    }
    Bun.gc(true);
    step.heap_mb = Math.round(process.memoryUsage().heapUsed / 1_048_576);
    steps.push(step);
    report({ bench: 'scan-lessons-scale-step', ...step });
  }
} finally {
  await close();
}

const first = steps[0] as Record<string, { p99_ms: number } | number>;
const last = steps[steps.length - 1] as Record<string, { p99_ms: number } | number>;
const ratios: Record<string, number> = {};
for (const [name, value] of Object.entries(last)) {
  if (typeof value === 'object') ratios[name] = round(value.p99_ms / (first[name] as { p99_ms: number }).p99_ms, 2);
}
report({ bench: 'scan-lessons-scale', from_lessons: first.lessons, to_lessons: last.lessons, p99_ratio_largest_to_smallest: ratios, goals: { provider_p99_under_2_ms: Object.entries(last).every(([k, v]) => !k.startsWith('provider') || (v as { p99_ms: number }).p99_ms < 2), within_2x: Object.values(ratios).every((r) => r <= 2) } });
