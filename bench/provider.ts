import '../src/cli/quiet';
import type { UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { stableId } from '../src/domain/ids';
import { lexicalVector } from '../src/domain/lexical-vector';
import selfImprovePlugin from '../src/index';
import { scanLessonsProvider } from '../src/providers/scan-lessons';
import { bootRuntime } from '../src/runtime/boot';
import type { Lesson } from '../src/services/lesson-metadata';
import { scanOutcomeServiceOf } from '../src/services/scan-outcome-service';
import { chatMessage } from '../__tests__/helpers/runtime';
import { percentile, report, round } from './lib';

/**
 * One SCAN_LESSONS `get` with N lessons in the index, no language or embedding model (lexical
 * vectors: no model call to exclude). Each call is for a new message, so nothing is cached.
 */
const SIZE = Number(process.argv[2] ?? 10_000);
const CALLS = 1_000;
/** Calls for messages that name a known finding: each also looks the finding up in the database. */
const FINDING_CALLS = 200;
const PROJECTS = ['payments-api', 'mobile-app', 'billing', 'auth-service'];
const SCANNERS = ['semgrep', 'codeql', 'snyk-code'];
const CATEGORIES = ['xss', 'sql-injection', 'path-traversal', 'hardcoded-secret', 'ssrf', 'weak-crypto', 'dependency-version'];
const PHRASES = ['were rejected as false positives', 'were fixed or accepted', 'were ignored without comment', 'fixes were reopened'];

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin] });
try {
  const service = await scanOutcomeServiceOf(runtime);
  for (let i = 0; i < SIZE; i++) {
    const project = PROJECTS[i % PROJECTS.length] as string;
    const scanner = SCANNERS[i % SCANNERS.length] as string;
    const category = CATEGORIES[i % CATEGORIES.length] as string;
    const text = `For ${scanner} on project ${project}, category ${category}: findings near ${['parser', 'template', 'router', 'client'][i % 4]} code ${PHRASES[i % PHRASES.length]} (variant ${i}).`;
    const iso = new Date(Date.UTC(2026, 10, 1 + (i % 20))).toISOString();
    const lesson: Lesson = {
      id: stableId('bench-provider', String(i)) as UUID,
      text,
      createdAt: 0,
      metadata: {
        type: 'scan-model-lesson', category: 'false-positive-pattern', confidence: 0.56 + (i % 40) / 100, avg_reward: -0.5 + (i % 10) / 10, sample_size: 20 + (i % 50),
        project, scanner, model_provider: 'openai', model_name: 'gpt-4o', prompt_version: null, strategy_version: null, window_start: iso, window_end: iso,
        created_from: 'scan_finding_outcomes', finding_category: category, group_id: JSON.stringify([project, scanner, 'openai', 'gpt-4o', category, i % 50]),
        outcome_ids: [], evidence_count: 20, label_counts: { fixed: 5, accepted: 0, ignored: 0, rejected_fp: 15, reopened: 0 }, false_positive_rate: 0.75,
        origin: 'statistics', stated_confidence: 1, reinforcements: 0, first_learned_at: iso, last_seen: iso, embedding_source: 'lexical',
      },
    };
    service.lessons.index.put(lesson, lexicalVector(text));
  }
  const messages = [];
  for (let c = 0; c < CALLS; c++) {
    messages.push(await chatMessage(runtime, `${SCANNERS[c % 3]} found ${CATEGORIES[c % 7]} in ${PROJECTS[c % 4]} handler number ${c}, is it real?`));
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
