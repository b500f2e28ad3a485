import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { SCAN_LESSON_MEMORY_TYPE, SCAN_LESSONS_TABLE, scanLessonMetadataSchema } from '../../src/scan/scan-lesson-metadata';
import { learningProgress, outcomeLearned } from '../../src/scan/tables';
import { dbOf } from '../../src/shared/sql';
import { LEARN_TASK_NAME } from '../../src/scan/surfaces/learn-pending-task';
import { makeRows } from '../helpers/rows';
import { chatMessage, emptyState, startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

/** Every metadata field seed 001 §5 requires, plus provenance. */
const SEED_FIELDS = [
  'type', 'category', 'confidence', 'avg_reward', 'sample_size', 'project', 'scanner', 'model_provider', 'model_name',
  'prompt_version', 'strategy_version', 'window_start', 'window_end', 'created_from', 'outcome_ids',
];

// 40 semgrep xss findings on payments, 30 rejected as false positives: a clear pattern.
const FP_ROWS = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'xss' });

async function lessonMemories(agent: TestAgent) {
  const all = await agent.runtime.getMemories({ tableName: SCAN_LESSONS_TABLE, roomId: agent.runtime.agentId });
  return all.filter((m) => (m.metadata as { type?: string }).type === SCAN_LESSON_MEMORY_TYPE);
}

describe('learning through runtime.evaluate (embedding model, no language model)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
  });
  afterAll(async () => {
    await agent.close();
  });

  test('validate is false with nothing pending: the evaluator does not run', async () => {
    const ran = await agent.runtime.evaluate(await chatMessage(agent.runtime, 'hello'), emptyState(), false);
    expect((ran ?? []).map((e) => e.name)).not.toContain('SCAN_OUTCOME_EXTRACTOR');
  });

  test('outcomes in, evaluate after a message, lessons in the memories table with the full contract', async () => {
    const ingested = await agent.service.ingest(FP_ROWS);
    expect(agent.service.hasPendingWork()).toBe(true);
    const ran = await agent.runtime.evaluate(await chatMessage(agent.runtime, 'labels are in'), emptyState(), false);
    expect((ran ?? []).map((e) => e.name)).toContain('SCAN_OUTCOME_EXTRACTOR');
    // The evaluator starts the pass and returns; the pass runs on in the background.
    await agent.service.learningIdle();
    expect(agent.service.hasPendingWork()).toBe(false);

    const memories = await lessonMemories(agent);
    expect(memories).toHaveLength(1);
    const [memory] = memories;
    expect(memory?.entityId).toBe(agent.runtime.agentId);
    expect(memory?.roomId).toBe(agent.runtime.agentId);
    expect(memory?.embedding).toHaveLength(384);
    for (const field of SEED_FIELDS) expect(Object.keys(memory?.metadata ?? {})).toContain(field);
    const metadata = scanLessonMetadataSchema.parse(memory?.metadata);
    expect(metadata).toMatchObject({
      category: 'false-positive-pattern',
      sample_size: 40,
      evidence_count: 40,
      project: 'payments',
      scanner: 'semgrep',
      model_provider: 'openai',
      model_name: 'gpt-4o',
      finding_category: 'xss',
      prompt_version: 'p1',
      strategy_version: null,
      created_from: 'scan_finding_outcomes',
      origin: 'statistics',
      label_counts: { fixed: 10, accepted: 0, ignored: 0, rejected_fp: 30, reopened: 0 },
    });
    // avg reward: (30 * -0.7 + 10 * 1.0) / 40
    expect(metadata.avg_reward).toBeCloseTo(-0.275, 10);
    // confidence capped by support: 1 - width of the Wilson interval for 30 of 40 (0.5981..0.8581)
    expect(metadata.confidence).toBeCloseTo(0.7399, 4);
    expect(new Set(metadata.outcome_ids)).toEqual(new Set(ingested.outcomes.map((o) => o.id)));
    expect(memory?.content.text).toContain('30 of 40');
  });

  test('a second run makes no duplicates; new evidence for the same pattern reinforces the lesson', async () => {
    const before = await lessonMemories(agent);
    await agent.runtime.evaluate(await chatMessage(agent.runtime, 'again'), emptyState(), false);
    await agent.service.learningIdle();
    expect(await lessonMemories(agent)).toHaveLength(before.length);

    const more = makeRows({ n: 20, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'xss-more', startIso: '2026-11-11T16:00:00Z' });
    const moreIngested = await agent.service.ingest(more);
    await agent.runtime.evaluate(await chatMessage(agent.runtime, 'more labels'), emptyState(), false);
    await agent.service.learningIdle();
    const after = await lessonMemories(agent);
    expect(after).toHaveLength(1);
    const metadata = scanLessonMetadataSchema.parse(after[0]?.metadata);
    expect(metadata.evidence_count).toBe(60);
    expect(metadata.sample_size).toBe(60);
    expect(metadata.reinforcements).toBe(1);
    expect(after[0]?.content.text).toContain('45 of 60');
    // The lesson held in memory has no evidence ids (most of its memory); the stored one keeps the
    // newest of them through a reinforcement made from the held lesson.
    expect(new Set(metadata.outcome_ids).size).toBe(60);
    for (const o of moreIngested.outcomes) expect(metadata.outcome_ids).toContain(o.id);
    const [held] = agent.service.listScanLessons();
    expect(held?.id).toBe(after[0]?.id);
    expect(Object.keys(held?.metadata ?? {})).not.toContain('outcome_ids');
    expect(held?.metadata.evidence_count).toBe(60);
  });

  test('groups below the minimum sample teach nothing', async () => {
    const small = makeRows({ n: 5, labels: ['rejected_fp'], category: 'ssrf', keyPrefix: 'ssrf' });
    await agent.service.ingest(small);
    const report = await agent.service.learnPending({ asOf: Date.parse('2026-11-20T00:00:00Z') });
    expect(report).toMatchObject({ pending_outcomes: 5, lessons_created: 0, skipped_low_sample: 1 });
  });

  test('the periodic task is stored for bootstrap\'s TaskService and its worker learns pending outcomes', async () => {
    const tasks = await agent.runtime.getTasksByName(LEARN_TASK_NAME);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]?.tags).toEqual(expect.arrayContaining(['queue', 'repeat']));
    expect(tasks[0]?.worldId).toBe(agent.runtime.agentId);
    expect(tasks[0]?.metadata?.updateInterval).toBe(300_000);
    await agent.service.ingest(makeRows({ n: 12, labels: ['fixed'], category: 'weak-crypto', keyPrefix: 'crypto' }));
    const worker = agent.runtime.getTaskWorker(LEARN_TASK_NAME);
    await worker?.execute(agent.runtime, {}, tasks[0] as never);
    expect((await agent.service.counts()).pending).toBe(0);
    const crypto = (await lessonMemories(agent)).filter((m) => (m.metadata as { finding_category?: string }).finding_category === 'weak-crypto');
    expect(crypto.map((m) => scanLessonMetadataSchema.parse(m.metadata).category)).toEqual(['signal-quality']);
  });
});

describe('each outcome is learned from once', () => {
  test('concurrent evaluate calls learn each outcome once', async () => {
    const agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
    try {
      await agent.service.ingest(FP_ROWS);
      const messages = [];
      for (const i of [1, 2, 3, 4]) messages.push(await chatMessage(agent.runtime, `msg ${i}`));
      await Promise.all(messages.map((m) => agent.runtime.evaluate(m, emptyState(), false)));
      await agent.service.learningIdle();
      const memories = await lessonMemories(agent);
      expect(memories).toHaveLength(1);
      expect(scanLessonMetadataSchema.parse(memories[0]?.metadata)).toMatchObject({ evidence_count: 40, reinforcements: 0 });
    } finally {
      await agent.close();
    }
  });

  test('a restart loses nothing, and a pass cut off before it marked its outcomes does not count them twice', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'self-improve-restart-'));
    try {
      const first = await startAgent({ dataDir, plugins: [createTestModelsPlugin().plugin] });
      await first.service.ingest(FP_ROWS);
      await first.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
      const lessonId = first.service.listScanLessons()[0]?.id;
      // Simulate a crash after the lessons were written but before the outcomes were marked learned (and so before the pass recorded how far it got).
      await dbOf(first.runtime).execute(sql`DELETE FROM ${outcomeLearned}`);
      await dbOf(first.runtime).execute(sql`DELETE FROM ${learningProgress}`);
      await first.close();

      const second = await startAgent({ dataDir, plugins: [createTestModelsPlugin().plugin] });
      try {
        expect(second.service.listScanLessons().map((l) => l.id)).toEqual([lessonId as (typeof second.runtime)['agentId']]);
        expect(second.service.hasPendingWork()).toBe(true);
        const report = await second.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
        // The re-run links the same evidence again: nothing new, so no reinforcement either.
        expect(report).toMatchObject({ pending_outcomes: 40, lessons_created: 0, lessons_reinforced: 0 });
        const memories = await lessonMemories(second);
        expect(memories).toHaveLength(1);
        expect(scanLessonMetadataSchema.parse(memories[0]?.metadata)).toMatchObject({ evidence_count: 40, sample_size: 40, reinforcements: 0 });
        expect((await second.service.counts()).outcomes).toBe(40);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

test('without any model, lessons are written from statistics and deduplicated with the lexical vector', async () => {
  const agent = await startAgent({ settings: { EMBEDDING_DIMENSION: '' } });
  try {
    expect(agent.service.scanLessons.vectorizer.source).toBe('lexical');
    await agent.service.ingest(FP_ROWS);
    await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
    await agent.service.ingest(makeRows({ n: 20, labels: ['rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'lex-more', startIso: '2026-11-11T16:00:00Z' }));
    const report = await agent.service.learnPending({ asOf: Date.parse('2026-11-13T00:00:00Z') });
    expect(report).toMatchObject({ lessons_created: 0, lessons_reinforced: 1 });
    const memories = await lessonMemories(agent);
    expect(memories).toHaveLength(1);
    expect(memories[0]?.embedding).toBeUndefined();
    expect(scanLessonMetadataSchema.parse(memories[0]?.metadata)).toMatchObject({ embedding_source: 'lexical', evidence_count: 60 });
  } finally {
    await agent.close();
  }
});

test('one pass over several windows of a group names each lesson it wrote once', async () => {
  const agent = await startAgent({ settings: { EMBEDDING_DIMENSION: '' } });
  try {
    // 90 outcomes 8 hours apart: 30 days, windows of 7 days, the same pattern in each.
    await agent.service.ingest(makeRows({ n: 90, labels: ['rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'windows', startIso: '2026-10-01T00:00:00Z', stepMinutes: 8 * 60 }));
    const report = await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
    expect(report.windows).toBeGreaterThan(1);
    expect(report.lessons_created + report.lessons_reinforced).toBeGreaterThan(report.lesson_ids.length);
    expect(new Set(report.lesson_ids).size).toBe(report.lesson_ids.length);
    expect([...report.lesson_ids].sort()).toEqual((await lessonMemories(agent)).map((m) => m.id as (typeof report.lesson_ids)[number]).sort());
  } finally {
    await agent.close();
  }
});
