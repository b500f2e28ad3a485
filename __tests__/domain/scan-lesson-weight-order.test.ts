import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { WeightOrder } from '../../src/scan/scan-lesson-weight-order';
import { ScanLessonIndex } from '../../src/scan/scan-lesson-index';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';

const NOW = Date.parse('2026-11-22T00:00:00Z');

describe('WeightOrder: slots by weight in buckets, with each bucket\'s greatest weight', () => {
  const weights = fc.array(fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(0, 1, Number.NaN, -0.5, Number.POSITIVE_INFINITY)), { maxLength: 300 });

  test('property: every slot once; no weight in a bucket or after it exceeds the bucket\'s ceiling; an infinite weight is in the first bucket, NaN or a negative one in the last', () => {
    fc.assert(
      fc.property(weights, fc.integer({ min: 1, max: 64 }), (w, buckets) => {
        const order = new WeightOrder(w, w.length, buckets);
        expect([...order.slots].sort((a, b) => a - b)).toEqual(w.map((_, i) => i));
        expect(order.starts[buckets]).toBe(w.length);
        for (let b = 0; b < buckets; b++) {
          const inBucket = [...order.slots.subarray(order.starts[b], order.starts[b + 1])].map((s) => w[s] as number);
          for (const later of [...order.slots.subarray(order.starts[b])].map((s) => w[s] as number)) {
            if (inBucket.length > 0 && later >= 0) expect(later).toBeLessThanOrEqual(order.ceilings[b] as number);
          }
          if (inBucket.length > 0) expect(order.ceilings[b]).toBe(Math.max(0, ...inBucket.filter((x) => x >= 0)));
        }
        const last = new Set(order.slots.subarray(order.starts[buckets - 1]));
        for (const [i, x] of w.entries()) if (!(x >= 0)) expect(last.has(i)).toBe(true);
        const first = new Set(order.slots.subarray(0, order.starts[1]));
        for (const [i, x] of w.entries()) if (x === Number.POSITIVE_INFINITY) expect(first.has(i)).toBe(true);
      }),
    );
  });

  test('the heaviest slot comes first; equal weights keep the newest (highest) slot first', () => {
    const order = new WeightOrder([0.2, 0.9, 0.2, 0.5], 4, 4);
    expect([...order.slots]).toEqual([1, 3, 2, 0]);
  });
});

describe('ScanLessonIndex.rankScored stops early and ranks as a visit of every lesson does', () => {
  // Some queries are a lesson's own text: one light lesson with a cosine of 1 must beat heavier ones.
  const texts = ['semgrep xss near template code rejected', 'is this finding real?', 'zzz unrelated', ...[3, 77, 150, 301].map((i) => syntheticScanLesson(i).text)];
  const contexts = [{}, { project: 'billing', scanner: 'codeql' }, { scanner: 'semgrep', category: 'xss' }, { project: 'mobile-app', scanner: 'semgrep', model_name: 'gpt-4o', category: 'ssrf' }];

  test('property: the top k is the first k of the whole ranking (a ranking whose top never fills visits every lesson), through puts, replacements and removals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ lesson: fc.integer({ min: 0, max: 400 }), reward: fc.double({ min: -1, max: 1, noNaN: true }), remove: fc.boolean() }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(...texts),
        fc.constantFrom(...contexts),
        fc.boolean(),
        fc.constantFrom(0, 0.2, 0.6),
        (ops, k, text, context, topical, minSimilarity) => {
          const index = new ScanLessonIndex();
          const query = { context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.6, minSimilarity, topical };
          for (const [i, op] of ops.entries()) {
            const base = syntheticScanLesson(op.lesson);
            if (op.remove) index.remove(base.id);
            else index.put({ ...base, metadata: { ...base.metadata, avg_reward: op.reward } }, lexicalVector(base.text));
            // Rankings between changes: the order is built again when the lessons moved.
            if (i % 50 === 0 || i === ops.length - 1) {
              const whole = index.rankScored(lexicalVector(text), query, index.size + 1);
              expect(index.rankScored(lexicalVector(text), query, k)).toEqual(whole.slice(0, k));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a light lesson the message names in every field and word for word outranks heavier ones visited before it', () => {
    const index = new ScanLessonIndex();
    const lesson = (i: number, confidence: number, avgReward: number, fields: Partial<Record<'project' | 'scanner' | 'model_name' | 'finding_category', string>>) => {
      const base = syntheticScanLesson(i);
      return { ...base, metadata: { ...base.metadata, confidence, avg_reward: avgReward, ...fields } };
    };
    // 300 heavy lessons about other things: 0.25 (topical) × 0.9 = 0.225 each.
    for (let i = 0; i < 300; i++) index.put(lesson(i, 0.9, 1, { project: 'other', scanner: 'other', model_name: 'other', finding_category: 'other' }), lexicalVector(`unrelated words number ${i}`));
    // One light lesson: (1 + 0.25 × 5) × 0.6 × 0.25 = 0.3375.
    const light = lesson(1_000, 0.6, 0.25, { project: 'billing', scanner: 'codeql', model_name: 'gpt-4o', finding_category: 'ssrf' });
    index.put(light, lexicalVector('ssrf through the billing webhook proxy'));
    const ranked = index.rankScored(
      lexicalVector('ssrf through the billing webhook proxy'),
      { context: { project: 'billing', scanner: 'codeql', model_name: 'gpt-4o', category: 'ssrf' }, nowMs: Date.parse(light.metadata.last_seen), halfLifeDays: 30, minScanLessonConfidence: 0.5, topical: true },
      5,
    );
    expect(ranked.map((r) => r.id)[0]).toBe(light.id);
    expect(ranked[0]?.score).toBeCloseTo(0.3375, 3);
  });

  test('the visit stops by the greatest cosine the message has with any lesson, not by a cosine of 1: a light lesson holding that cosine still gets in when it beats the top by a little', () => {
    const index = new ScanLessonIndex();
    const seen = '2026-11-20T00:00:00.000Z';
    const lesson = (i: number, confidence: number, avgReward: number) => {
      const base = syntheticScanLesson(i);
      return { ...base, metadata: { ...base.metadata, confidence, avg_reward: avgReward, last_seen: seen } };
    };
    // 200 heavy lessons the message shares no word with: 0.25 (topical) × 1 = 0.25 each.
    for (let i = 0; i < 200; i++) index.put(lesson(i, 1, 1), lexicalVector(`unrelated words number ${i}`));
    // One light lesson (weight 0.21) in a bucket of its own, with the message's own words: (1 + 0.25) × 0.21 = 0.2625.
    const light = lesson(1_000, 0.7, 0.3);
    index.put(light, lexicalVector('ssrf through the billing webhook proxy'));
    const query = { context: {}, nowMs: Date.parse(seen), halfLifeDays: 30, minScanLessonConfidence: 0.5, topical: true };
    const ranked = index.rankScored(lexicalVector('ssrf through the billing webhook proxy'), query, 1);
    expect(ranked.map((r) => r.id)).toEqual([light.id]);
    expect(ranked[0]?.score).toBeCloseTo(0.2625, 4);
  });
});
