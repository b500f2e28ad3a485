import '../src/cli/quiet';
import type { UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { stableId } from '../src/shared/ids';
import { lexicalVector } from '../src/shared/lexical-vector';
import selfImprovePlugin from '../src/index';
import { scanLessonsProvider } from '../src/scan/surfaces/scan-lessons-provider';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { chatMessage } from '../__tests__/helpers/runtime';
import { SYNTHETIC_CATEGORIES, SYNTHETIC_PROJECTS, SYNTHETIC_SCANNERS, syntheticScanLesson } from '../__tests__/helpers/synthetic-scan-lessons';
import { percentile, report, round } from './lib';

/**
 * One SCAN_LESSONS `get` with N lessons in the index, no language or embedding model (lexical
 * vectors: no model call to exclude). Each call is for a new message, so nothing is cached.
 */
const SIZE = Number(process.argv[2] ?? 10_000);
const CALLS = 1_000;
/** Calls for messages that name a known finding: each also looks the finding up in the database. */
const FINDING_CALLS = 200;

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin] });
try {
  const service = await scanOutcomeServiceOf(runtime);
  for (let i = 0; i < SIZE; i++) {
    const lesson = syntheticScanLesson(i);
    service.scanLessons.index.put(lesson, lexicalVector(lesson.text));
  }
  const messages = [];
  for (let c = 0; c < CALLS; c++) {
    messages.push(await chatMessage(runtime, `${SYNTHETIC_SCANNERS[c % 3]} found ${SYNTHETIC_CATEGORIES[c % 7]} in ${SYNTHETIC_PROJECTS[c % 4]} handler number ${c}, is it real?`));
  }
  const state = { values: {}, data: {}, text: '' };
  for (const m of messages.slice(0, 20)) await scanLessonsProvider.get(runtime, { ...m, id: stableId('warm', String(m.id)) as UUID }, state);
  const times: number[] = [];
  let chars = 0;
  for (const m of messages) {
    const start = performance.now();
    const result = await scanLessonsProvider.get(runtime, m, state);
    times.push(performance.now() - start);
    chars = Math.max(chars, result.text?.length ?? 0);
  }
  await service.recordFindings([
    { finding_key: 'bench-finding-1', ts: '2026-11-20T10:00:00Z', project: 'payments-api', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' },
  ]);
  const findingTimes: number[] = [];
  for (let c = 0; c < FINDING_CALLS; c++) {
    const m = await chatMessage(runtime, `what about finding bench-finding-1, call ${c}?`);
    const start = performance.now();
    const result = await scanLessonsProvider.get(runtime, m, state);
    findingTimes.push(performance.now() - start);
    if (!result.text?.includes('Triage prior')) throw new Error('the finding message got no triage prior');
  }
  const p99 = percentile(times, 99);
  report({
    bench: 'scan-lessons-provider',
    lessons: SIZE,
    calls: CALLS,
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(p99),
    goal_p99_ms: 2,
    goal_ratio: round(2 / p99, 2),
    max_text_chars: chars,
    finding_message_calls: FINDING_CALLS,
    finding_message_p50_ms: round(percentile(findingTimes, 50)),
    finding_message_p99_ms: round(percentile(findingTimes, 99)),
  });
} finally {
  await close();
}
