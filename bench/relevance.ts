import '../src/cli/quiet';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { eloBlock } from '../src/elo/surfaces/elo-block';
import { scanContextOfMessage } from '../src/scan/surfaces/scan-lesson-lines';
import { scanLessonsBlock } from '../src/scan/surfaces/scan-lesson-block';
import { bootRuntime } from '../src/cli/boot';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { denseEmbeddingPlugin } from '../__tests__/helpers/dense-embedding';
import { chatMessage } from '../__tests__/helpers/runtime';
import { note, report, round } from './lib';

/**
 * Relevance of injection: does a message get scan lessons (SCAN_LESSONS' block) or ELO content
 * (HIGH_ELO_CONTEXT's block, measured alone: nothing left out for the blocks before it) exactly when it
 * is about the stored lessons? The lessons are those learned from examples/outcomes.jsonl; the
 * messages are bench/data/relevance-messages.jsonl, each labelled on-topic or not by hand. Run
 * with the built-in lexical vectors and with a dense test embedding (random projection of
 * character trigrams, `denseVector`), where unrelated texts have positive cosines. Also reports
 * what the calibrated floor alone lets through (no names, no topic words), and what the old rule
 * (any positive cosine, or a named scope) would have injected.
 */
interface Labelled {
  text: string;
  on_topic: boolean;
  kind: string;
}

const ROOT = path.resolve(import.meta.dir, '..');
const MESSAGES = readFileSync(path.join(ROOT, 'bench', 'data', 'relevance-messages.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Labelled);
const OUTCOMES = readFileSync(path.join(ROOT, 'examples', 'outcomes.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);
const LEARN_AS_OF = Date.parse('2026-11-20T00:00:00Z');

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  false_positives: string[];
  misses: string[];
}

const counts = (): Counts => ({ tp: 0, fp: 0, fn: 0, tn: 0, false_positives: [], misses: [] });

function tally(c: Counts, m: Labelled, injected: boolean): void {
  if (injected && m.on_topic) c.tp++;
  else if (injected) {
    c.fp++;
    c.false_positives.push(m.text);
  } else if (m.on_topic) {
    c.fn++;
    c.misses.push(m.text);
  } else c.tn++;
}

function scores(c: Counts) {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
  return { precision: round(precision), recall: round(recall), tp: c.tp, fp: c.fp, fn: c.fn, tn: c.tn };
}

routeConsoleToStderr();
for (const source of ['lexical', 'dense'] as const) {
  const plugins: Plugin[] = [selfImprovePlugin, ...(source === 'dense' ? [denseEmbeddingPlugin()] : [])];
  const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins, settings: { EMBEDDING_DIMENSION: '384', SELF_IMPROVE_LESSON_MODEL: 'off' } });
  try {
    const service = await scanOutcomeServiceOf(runtime);
    await service.ingest(OUTCOMES);
    await service.learnPending({ asOf: LEARN_AS_OF });
    const floor = await service.scanLessons.relevance.floor();
    const lessons = counts();
    const elo = counts();
    const before = counts();
    const similarityOnly = counts();
    for (const m of MESSAGES) {
      const message = await chatMessage(runtime, m.text);
      const block = await scanLessonsBlock(runtime, message, Date.now(), 100_000);
      tally(lessons, m, ((block.result.values?.scanLessonIds as string[] | undefined) ?? []).length > 0);
      const related = new Set(block.related);
      tally(elo, m, ((await eloBlock(runtime, message, Date.now(), 10_000, new Set(), related)).result.values?.highEloContextIds as string[]).length > 0);
      const vector = await service.scanLessons.vectorForMessage(message);
      const context = scanContextOfMessage(message, service.scanLessons.index);
      const old = service.scanLessons.index.rankScored(vector, { context, nowMs: Date.now(), halfLifeDays: 30, minScanLessonConfidence: service.settings.SELF_IMPROVE_MIN_CONFIDENCE, minSimilarity: 0 }, 50);
      tally(before, m, old.length > 0);
      const bySimilarity = service.scanLessons.index.rankScored(vector, { context: {}, nowMs: Date.now(), halfLifeDays: 30, minScanLessonConfidence: service.settings.SELF_IMPROVE_MIN_CONFIDENCE, minSimilarity: floor }, 50);
      tally(similarityOnly, m, bySimilarity.length > 0);
    }
    for (const [name, c] of [['scan_lessons', lessons], ['high_elo_context', elo]] as const) {
      if (c.false_positives.length > 0) note(`${source} ${name} injected into off-topic: ${JSON.stringify(c.false_positives)}`);
      if (c.misses.length > 0) note(`${source} ${name} missed on-topic: ${JSON.stringify(c.misses)}`);
    }
    report({
      bench: 'relevance',
      vector_source: source,
      lessons: service.scanLessons.index.size,
      messages: MESSAGES.length,
      on_topic: MESSAGES.filter((m) => m.on_topic).length,
      lesson_floor: round(floor, 4),
      scan_lessons: scores(lessons),
      high_elo_context: scores(elo),
      similarity_beyond_floor_only: scores(similarityOnly),
      old_rule_positive_cosine: scores(before),
      goal: { precision: 0.95, recall: 0.9 },
    });
  } finally {
    await close();
  }
}
