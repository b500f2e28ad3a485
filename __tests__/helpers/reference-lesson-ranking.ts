import { CONTEXT_FIELDS, type ContextField, scanLessonContextValue } from '../../src/scan/scan-lesson-index';
import { rankScanLessons } from '../../src/scan/model/scan-lesson-ranking';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { cosineSimilarity } from '../../src/shared/similarity';

/** What a reference ranking is asked: the message's text and context, and the query's thresholds. */
export interface ReferenceQuery {
  text: string;
  context: Partial<Record<ContextField, string>>;
  /** The message is on a topic the lessons were learned from: every lesson counts one context match more. */
  topical?: boolean;
  /** Lessons with no context match need a similarity above this. */
  floor?: number;
  minConfidence: number;
  nowMs: number;
  halfLifeDays: number;
}

/**
 * The reference for `ScanLessonIndex`'s ranking: every lesson held (each with its vector) scored
 * by `rankScanLessons` with double-precision cosines, best first, with nothing skipped or bounded.
 */
export function referenceLessonRanking(held: readonly { lesson: ScanLesson; vector: number[] }[], query: ReferenceQuery) {
  const vector = lexicalVector(query.text);
  const { context, floor = 0 } = query;
  const candidates = held
    .filter(({ lesson }) => lesson.metadata.confidence >= query.minConfidence)
    .map(({ lesson, vector: lessonVector }) => ({
      id: lesson.id,
      item: lesson,
      similarity: cosineSimilarity(vector, lessonVector),
      scanLessonConfidence: lesson.metadata.confidence,
      avgReward: lesson.metadata.avg_reward,
      lastSeenMs: Date.parse(lesson.metadata.last_seen),
      contextMatches: (query.topical ? 1 : 0) + CONTEXT_FIELDS.filter((f) => context[f] !== undefined && scanLessonContextValue(lesson, f) === context[f]).length,
    }))
    .filter((c) => c.similarity > floor || c.contextMatches > 0);
  return rankScanLessons(candidates, query.nowMs, query.halfLifeDays);
}
