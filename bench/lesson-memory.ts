import { randomUUID } from 'node:crypto';
import { ScanLessonIndex } from '../src/scan/scan-lesson-index';
import { lexicalVector } from '../src/shared/lexical-vector';
import { syntheticScanLesson } from '../__tests__/helpers/synthetic-scan-lessons';
import { collectedHeapStats, round } from './lib';

/**
 * What one held lesson costs the process: `bun run bench/lesson-memory.ts [lessons]` (default
 * 10,000, the default SELF_IMPROVE_LESSONS_IN_MEMORY) puts that many lessons, each stored with 200
 * evidence ids (the most a lesson's metadata keeps), into a ScanLessonIndex with their lexical
 * vectors, and prints the growth of the live heap (JS heap plus array buffers, after a full
 * collection) in all and per lesson.
 */
const live = () => {
  const stats = collectedHeapStats();
  return stats.heapSize + stats.extraMemorySize;
};
const n = Number(process.argv[2] ?? 10_000);
const lessons = Array.from({ length: n }, (_, i) => {
  const l = syntheticScanLesson(i);
  return { lesson: { ...l, metadata: { ...l.metadata, outcome_ids: Array.from({ length: 200 }, () => randomUUID()) } }, vector: lexicalVector(l.text) };
});
const before = live();
const index = new ScanLessonIndex();
for (const { lesson, vector } of lessons) index.put(lesson, vector);
const grown = live() - before;
process.stdout.write(`${JSON.stringify({ bench: 'lesson-memory', lessons: index.size, mb: round(grown / 1_048_576, 1), kb_per_lesson: round(grown / n / 1024, 1) })}\n`);
