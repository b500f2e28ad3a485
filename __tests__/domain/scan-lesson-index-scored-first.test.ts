import { describe, expect, test } from 'bun:test';
import type { UUID } from '@elizaos/core';
import { CONTEXT_FIELDS, type ContextField, scanLessonContextValue, ScanLessonIndex } from '../../src/scan/scan-lesson-index';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { mulberry32 as seeded } from '../../examples/generate-outcomes';
import { ContextSets } from '../../src/scan/scan-lesson-context-sets';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { referenceLessonRanking } from '../helpers/reference-lesson-ranking';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const DAY = 86_400_000;
const WORDS = ['parser', 'template', 'router', 'client', 'sink', 'taint', 'regex', 'escape', 'query', 'token', 'secret', 'header'];

/** One of `count` values of a field, the first ones far more often. */
function pick(random: () => number, prefix: string, count: number): string {
  return `${prefix}-${Math.floor(random() ** 2 * count)}`;
}

interface Shape {
  projects: number;
  scanners: number;
  categories: number;
  models: number;
}

/** Lesson `i`: context values from a few (common) or many (rare) per field, skewed so some values are held by many lessons and some by few. */
function lesson(random: () => number, i: number, shape: Shape): ScanLesson {
  const base = syntheticScanLesson(i);
  const project = pick(random, 'project', shape.projects);
  const scanner = pick(random, 'scanner', shape.scanners);
  const category = pick(random, 'category', shape.categories);
  const model = pick(random, 'model', shape.models);
  const words = Array.from({ length: 4 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const lastSeen = new Date(NOW - Math.floor(random() * 200) * DAY).toISOString();
  return {
    ...base,
    text: `${scanner} ${category} on ${project}: ${words} (variant ${i})`,
    metadata: {
      ...base.metadata,
      project,
      scanner,
      finding_category: category,
      model_name: model,
      confidence: 0.4 + random() * 0.6,
      avg_reward: -1 + random() * 2,
      last_seen: lastSeen,
      group_id: JSON.stringify([project, scanner, 'openai', model, category, i]),
    },
  };
}

describe('ScanLessonIndex.rankScored: lessons holding rarely held values the message names are scored first', () => {
  const shapes: Shape[] = [
    // Many projects (each held by a few lessons), few scanners and categories: projects scored first, the scanner+category pairs too.
    { projects: 400, scanners: 3, categories: 6, models: 2 },
    // Few values everywhere: nothing is rare, nothing scored first.
    { projects: 4, scanners: 2, categories: 3, models: 2 },
    // Many values everywhere: every named field is scored first.
    { projects: 300, scanners: 200, categories: 250, models: 150 },
    // In between: some pairs scored first, some not.
    { projects: 40, scanners: 8, categories: 30, models: 3 },
  ];

  test.each(shapes.map((shape, i) => [i, shape] as const))('shape %i: the same best lessons as scoring every lesson, after adds, replacements and removals', (seed, shape) => {
    const random = seeded(7_000 + seed);
    const index = new ScanLessonIndex();
    const held = new Map<string, ScanLesson>();
    const put = (l: ScanLesson) => {
      index.put(l, lexicalVector(l.text));
      held.set(l.id, l);
    };
    for (let i = 0; i < 2_400; i++) put(lesson(random, i, shape));
    // Replaced (same id and group, new figures and text) and let go: the sets must follow both.
    for (let i = 0; i < 2_400; i += 7) {
      const old = held.get(syntheticScanLesson(i).id) as ScanLesson;
      const again = lesson(random, i, shape);
      put({ ...again, metadata: { ...again.metadata, project: old.metadata.project, scanner: old.metadata.scanner, finding_category: old.metadata.finding_category, model_name: old.metadata.model_name, group_id: old.metadata.group_id } });
    }
    for (let i = 3; i < 2_400; i += 5) {
      const id = syntheticScanLesson(i).id;
      index.remove(id);
      held.delete(id);
    }
    expect(index.size).toBe(held.size);
    const lessons = [...held.values()];
    const withVectors = lessons.map((l) => ({ lesson: l, vector: lexicalVector(l.text) }));
    for (let q = 0; q < 60; q++) {
      const like = lessons[Math.floor(random() * lessons.length)] as ScanLesson;
      const context: Partial<Record<ContextField, string>> = {};
      for (const field of CONTEXT_FIELDS) {
        const roll = random();
        const value = scanLessonContextValue(like, field);
        if (roll < 0.5 && value) context[field] = value;
        else if (roll < 0.6) context[field] = `unheld-${field}`;
      }
      const text = `${WORDS[q % WORDS.length]} ${WORDS[(q * 5) % WORDS.length]} finding ${q}`;
      const topical = random() < 0.5;
      const floor = random() < 0.5 ? 0 : random() * 0.3;
      const limit = 1 + Math.floor(random() * 60);
      const all = referenceLessonRanking(withVectors, { text, context, topical, floor, minConfidence: 0.5, nowMs: NOW, halfLifeDays: 30 });
      const expected = all.slice(0, limit);
      const actual = index.rankScored(lexicalVector(text), { context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.5, minSimilarity: floor, topical }, limit);
      expect(actual.length).toBe(expected.length);
      const expectedScore = new Map(all.map((r) => [r.id, r.score]));
      // Float32 cosines in the index, doubles in the reference: compare the score at each rank, and
      // that each lesson given is the one the index holds now (not a replaced or removed one).
      actual.forEach((r, rank) => {
        const want = (expected[rank] as { score: number }).score;
        expect(Math.abs((expectedScore.get(r.id) as number) - want)).toBeLessThanOrEqual(1e-6 * want);
        expect(r.item).toBe(index.get(r.id as UUID) as ScanLesson);
      });
    }
  });
});

describe('ContextSets', () => {
  test('keeps each item under each of its values and each pair, forgets emptied sets, and refuses to let go of what it does not keep', () => {
    const [a, b, c, d] = [{ n: 'a' }, { n: 'b' }, { n: 'c' }, { n: 'd' }];
    const sets = new ContextSets<{ n: string }>(3);
    sets.add(a, [1, 2, 0]);
    sets.add(b, [1, 3, 4]);
    sets.add(c, [5, 2, 4]);
    expect(sets.single(0, 1)).toEqual([a, b]);
    expect(sets.single(1, 2)).toEqual([a, c]);
    // Code 1 of field 0 is not code 1 of field 1.
    expect(sets.single(1, 1)).toBeUndefined();
    expect(sets.pair(0, 1, 1, 2)).toEqual([a]);
    expect(sets.pair(1, 3, 2, 4)).toEqual([b]);
    expect(sets.pair(0, 5, 2, 4)).toEqual([c]);
    // No value (0) is kept under nothing.
    expect(sets.single(2, 0)).toBeUndefined();
    expect(sets.pair(0, 1, 2, 0)).toBeUndefined();
    sets.delete(a, [1, 2, 0]);
    expect(sets.single(0, 1)).toEqual([b]);
    expect(sets.pair(0, 1, 1, 2)).toBeUndefined();
    sets.delete(b, [1, 3, 4]);
    sets.delete(c, [5, 2, 4]);
    for (const [f, code] of [[0, 1], [1, 2], [1, 3], [2, 4], [0, 5]] as const) expect(sets.single(f, code)).toBeUndefined();
    expect(sets.pair(1, 3, 2, 4)).toBeUndefined();
    // An item let go that was never kept is a broken index, not a silent no-op.
    expect(() => sets.delete(d, [1, 0, 0])).toThrow('not kept');
    // Kept alone, then with another, then alone again: each way it is found, and let go once only.
    sets.add(a, [7, 0, 0]);
    sets.add(b, [7, 0, 0]);
    expect(sets.single(0, 7)).toEqual([a, b]);
    sets.delete(a, [7, 0, 0]);
    expect(sets.single(0, 7)).toEqual([b]);
    expect(() => sets.delete(a, [7, 0, 0])).toThrow('not kept');
    sets.delete(b, [7, 0, 0]);
    expect(sets.single(0, 7)).toBeUndefined();
  });
});
