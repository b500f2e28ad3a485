import '../src/cli/quiet';
import type { Memory, RouteRequest, UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { stableId } from '../src/shared/ids';
import selfImprovePlugin from '../src/index';
import { scanLessonsProvider } from '../src/scan/surfaces/scan-lessons-provider';
import { handleGetScanLessons } from '../src/scan/surfaces/learning-routes';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { draftStatisticalScanLessons, scanLessonConfidence } from '../src/scan/model/scan-lesson';
import { groupId, type GroupKey } from '../src/scan/model/grouping';
import { summarizeOutcomes } from '../src/shared/stats';
import { scanLessonMetadataFor } from '../src/scan/scan-lesson-metadata';
import type { OutcomeLabel } from '../src/scan/model/outcome';
import { recordingResponse } from '../__tests__/helpers/route-response';
import { mulberry32 } from '../examples/generate-outcomes';
import { chatMessage } from '../__tests__/helpers/runtime';
import { note, percentile, report, round, timeMs } from './lib';

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
const BASES = ['payments-api', 'mobile-app'];
const SCANNERS = ['semgrep', 'codeql', 'snyk-code'];
const MODELS = [
  ['openai', 'gpt-4o-mini'],
  ['anthropic', 'claude-3-5-haiku'],
];
const CATEGORIES = ['sql-injection', 'xss', 'path-traversal', 'hardcoded-secret', 'insecure-deserialization', 'dependency-version', 'weak-crypto', 'ssrf'];
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');

/** Group number `g`: a project name every 3 groups (as scale.ts: a new project every 200 rows). */
function groupKey(g: number): GroupKey {
  const [provider, model] = MODELS[g % 2] as [string, string];
  return { project: `${BASES[Math.floor(g / 3) % 2]}-${Math.floor(g / 6)}`, scanner: SCANNERS[g % 3] as string, model_provider: provider, model_name: model, category: CATEGORIES[(g * 7) % 8] as string };
}

/** Writes lessons until the agent has `target`, one group after another; returns the next group number. */
async function grow(service: Awaited<ReturnType<typeof scanOutcomeServiceOf>>, target: number, firstGroup: number): Promise<number> {
  let g = firstGroup;
  let stored = service.scanLessons.count();
  const random = mulberry32(7);
  while (stored < target) {
    const key = groupKey(g);
    const n = 20 + Math.floor(random() * 60);
    const endMs = START + Math.floor((g / 40) * DAY);
    const outcomes = Array.from({ length: n }, (_, i) => {
      const r = random();
      const label: OutcomeLabel = r < 0.5 ? 'rejected_fp' : r < 0.8 ? 'fixed' : r < 0.95 ? 'ignored' : 'accepted';
      return { id: stableId('bench-outcome', String(g), String(i)) as UUID, label, reward: label === 'rejected_fp' ? -0.6 : label === 'fixed' ? 1 : 0, tsMs: endMs - i * 3_600_000 };
    });
    const stats = summarizeOutcomes(outcomes);
    for (const draft of draftStatisticalScanLessons(key, stats, { startMs: endMs - 7 * DAY, endMs })) {
      if (stored >= target) break;
      const metadata = scanLessonMetadataFor({
        category: draft.category,
        origin: 'statistics',
        statedConfidence: 1,
        scanLessonConfidence: scanLessonConfidence(draft, stats),
        groupId: groupId(key),
        key,
        evidence: [...outcomes].reverse(),
        stats,
        windowStartMs: endMs - 7 * DAY,
        windowEndMs: endMs,
        asOfMs: endMs,
        embeddingSource: 'lexical',
      });
      const id = stableId('bench-lesson', String(g), draft.category) as UUID;
      await service.scanLessons.create(id, draft.text, metadata, await service.scanLessons.vectorizer.embed(draft.text), endMs);
      stored++;
    }
    g++;
    if (g % 2_000 === 0) note(`${stored}/${target} lessons`);
  }
  return g;
}

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
    const built = await timeMs(() => grow(service, size, nextGroup));
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
