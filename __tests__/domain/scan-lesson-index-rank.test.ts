import { describe, expect, test } from 'bun:test';
import { ScanLessonIndex } from '../../src/scan/scan-lesson-index';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { referenceLessonRanking } from '../helpers/reference-lesson-ranking';

const NOW = Date.parse('2026-11-22T00:00:00Z');

describe('ScanLessonIndex.rank', () => {
  const lessons = Array.from({ length: 600 }, (_, i) => syntheticScanLesson(i));
  const index = new ScanLessonIndex();
  for (const lesson of lessons) index.put(lesson, lexicalVector(lesson.text));

  test.each([
    ['similarity only', 'semgrep xss near template code rejected', {}],
    ['similarity and context', 'is this finding real?', { project: 'billing', scanner: 'codeql' }],
    ['all four context fields', 'anything on this one', { project: 'mobile-app', scanner: 'semgrep', model_name: 'gpt-4o', category: 'ssrf' }],
  ] as const)('agrees with rankScanLessons, the reference, on the same lessons: %s', (_name, text, context) => {
    const query = lexicalVector(text);
    const minConfidence = 0.7;
    const held = lessons.map((lesson) => ({ lesson, vector: lexicalVector(lesson.text) }));
    const reference = referenceLessonRanking(held, { text, context, minConfidence, nowMs: NOW, halfLifeDays: 30 });
    const referenceScore = new Map(reference.map((r) => [r.id, r.score]));
    const actual = index.rank(query, { context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: minConfidence }, 25).map((l) => l.id);
    expect(actual).toHaveLength(25);
    // The index scores with Float32 similarities, the reference with doubles: lessons whose scores
    // differ by less than that rounding may swap places, so compare the score at each rank.
    actual.forEach((id, rank) => {
      const expected = reference[rank]?.score as number;
      expect(Math.abs((referenceScore.get(id) as number) - expected)).toBeLessThanOrEqual(1e-6 * expected);
    });
    expect(actual.filter((id, rank) => id === reference[rank]?.id).length).toBeGreaterThanOrEqual(20);
  });

  test('the warm-up after loading ranks and changes nothing: the same rankings after it, and an empty index warms up too', async () => {
    const query = { context: { project: 'billing' }, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.5 };
    const before = index.rankScored(lexicalVector('semgrep xss'), query, 25);
    await index.warmUp(5, NOW, 30);
    expect(index.rankScored(lexicalVector('semgrep xss'), query, 25)).toEqual(before);
    expect(index.size).toBe(600);
    await new ScanLessonIndex().warmUp(5, NOW, 30);
  });

  test('lessons below the minimum confidence and unrelated lessons are left out', () => {
    const ranked = index.rank(lexicalVector('zzz qqq'), { context: {}, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.9 }, 50);
    expect(ranked).toEqual([]);
    const some = index.rank(lexicalVector('semgrep'), { context: {}, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.9 }, 50);
    expect(some.length).toBeGreaterThan(0);
    for (const l of some) expect(l.metadata.confidence).toBeGreaterThanOrEqual(0.9);
  });

  test('after lessons are let go (the last slot moved into each freed one), it ranks as an index that never held them', () => {
    const kept = lessons.filter((_, i) => i % 3 !== 0);
    const fresh = new ScanLessonIndex();
    for (const lesson of kept) fresh.put(lesson, lexicalVector(lesson.text));
    const shrunk = new ScanLessonIndex();
    for (const lesson of lessons) shrunk.put(lesson, lexicalVector(lesson.text));
    for (const [i, lesson] of lessons.entries()) if (i % 3 === 0) shrunk.remove(lesson.id);
    expect(shrunk.size).toBe(kept.length);
    for (const [text, context] of [
      ['semgrep xss near template code rejected', {}],
      ['is this finding real?', { project: 'billing', scanner: 'codeql' }],
    ] as const) {
      const query = { context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.6, topical: true };
      const expected = fresh.rankScored(lexicalVector(text), query, 40);
      expect(expected).toHaveLength(40);
      expect(shrunk.rankScored(lexicalVector(text), query, 40)).toEqual(expected);
    }
    expect(shrunk.oldest(1)).toEqual(fresh.oldest(1));
    for (const [i, lesson] of lessons.entries()) expect(shrunk.has(lesson.id)).toBe(i % 3 !== 0);
  });
});
