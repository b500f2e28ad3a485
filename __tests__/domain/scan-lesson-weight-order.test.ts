import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { WeightOrder } from '../../src/scan/scan-lesson-weight-order';
import { ScanLessonIndex } from '../../src/scan/scan-lesson-index';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';

const NOW = Date.parse('2026-11-22T00:00:00Z');

const DAY = 86_400_000;
const freshness = (ageMs: number, halfLifeDays: number) => (ageMs <= 0 ? 1 : 0.5 ** (ageMs / (halfLifeDays * DAY)));

describe('WeightOrder: slots by decayed weight in buckets, each bucket with a ceiling on weight × freshness from it on', () => {
  const weights = fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(0, 1, Number.NaN, -0.5, Number.POSITIVE_INFINITY, 1e-300));
  const lastSeen = fc.oneof(fc.integer({ min: -400, max: 30 }).map((days) => NOW + days * DAY), fc.constantFrom(Number.NaN, NOW, NOW - 1));
  const slots = fc.array(fc.record({ weight: weights, lastSeenMs: lastSeen }), { maxLength: 300 });

  test('property: every slot once; at any time, no lesson in a bucket or after it has a weight × freshness above the bucket\'s ceiling; an infinite weight is in the first bucket, NaN, a negative weight or an unreadable last_seen in the last', () => {
    fc.assert(
      fc.property(slots, fc.integer({ min: 1, max: 64 }), fc.constantFrom(1, 30, 3650, Number.POSITIVE_INFINITY, 0), fc.integer({ min: -30, max: 400 }), (s, buckets, halfLifeDays, nowDays) => {
        const facts = { weight: s.map((x) => x.weight), lastSeenMs: s.map((x) => x.lastSeenMs) };
        const order = new WeightOrder(facts, s.length, halfLifeDays, buckets);
        const nowMs = NOW + nowDays * DAY;
        expect([...order.slots].sort((a, b) => a - b)).toEqual(s.map((_, i) => i));
        expect(order.starts[buckets]).toBe(s.length);
        for (let b = 0; b < buckets; b++) {
          for (const slot of order.slots.subarray(order.starts[b])) {
            const { weight, lastSeenMs } = s[slot] as { weight: number; lastSeenMs: number };
            const decayed = weight * freshness(nowMs - lastSeenMs, halfLifeDays);
            if (decayed > 0) expect(decayed).toBeLessThanOrEqual(order.ceiling(b, nowMs));
          }
        }
        const last = new Set(order.slots.subarray(order.starts[buckets - 1]));
        for (const [i, x] of s.entries()) if (!(x.weight >= 0) || Number.isNaN(x.lastSeenMs)) expect(last.has(i)).toBe(true);
        const first = new Set(order.slots.subarray(0, order.starts[1]));
        for (const [i, x] of s.entries()) if (x.weight === Number.POSITIVE_INFINITY && !Number.isNaN(x.lastSeenMs)) expect(first.has(i)).toBe(true);
      }),
    );
  });

  test('a subnormal weight (spaced Number.MIN_VALUE apart, where a relative slack rounds away) stays under its ceiling', () => {
    // The property's counterexample (seed 1478668007): 9e-323 decayed against a ceiling of 8.4e-323.
    const weight = 1.73e-322;
    const lastSeenMs = 1795305600000;
    const nowMs = NOW + DAY;
    const order = new WeightOrder({ weight: [weight], lastSeenMs: [lastSeenMs] }, 1, 1, 1);
    const decayed = weight * freshness(nowMs - lastSeenMs, 1);
    expect(decayed).toBeGreaterThan(0);
    expect(decayed).toBeLessThanOrEqual(order.ceiling(0, nowMs));
  });

  test('seen at the same time, the heaviest slot comes first; equal weights keep the newest (highest) slot first', () => {
    const order = new WeightOrder({ weight: [0.2, 0.9, 0.2, 0.5], lastSeenMs: [NOW, NOW, NOW, NOW] }, 4, 30, 4);
    expect([...order.slots]).toEqual([1, 3, 2, 0]);
  });

  test('a heavy lesson last seen ten half-lives ago comes after a light one seen today, and the ceiling from its bucket on is its decayed weight', () => {
    const order = new WeightOrder({ weight: [1, 0.25], lastSeenMs: [NOW - 300 * DAY, NOW] }, 2, 30, 4);
    expect([...order.slots]).toEqual([1, 0]);
    const secondBucket = [0, 1, 2, 3].find((b) => order.starts[b] === 1 && order.starts[b + 1] === 2) as number;
    expect(order.ceiling(secondBucket, NOW)).toBeCloseTo(2 ** -10, 8);
    expect(order.ceiling(0, NOW)).toBeCloseTo(0.25, 8);
  });

  test('with a half-life that is not a positive finite number the order is by weight alone', () => {
    for (const halfLifeDays of [Number.POSITIVE_INFINITY, 0, Number.NaN]) {
      const order = new WeightOrder({ weight: [1, 0.25], lastSeenMs: [NOW - 300 * DAY, NOW] }, 2, halfLifeDays, 4);
      expect([...order.slots]).toEqual([0, 1]);
      expect(order.ceiling(0, NOW)).toBe(1);
    }
  });
});

describe('ScanLessonIndex.rankScored stops early and ranks as a visit of every lesson does', () => {
  // Some queries are a lesson's own text: one light lesson with a cosine of 1 must beat heavier ones.
  const texts = ['semgrep xss near template code rejected', 'is this finding real?', 'zzz unrelated', ...[3, 77, 150, 301].map((i) => syntheticScanLesson(i).text)];
  const contexts = [{}, { project: 'billing', scanner: 'codeql' }, { scanner: 'semgrep', category: 'xss' }, { project: 'mobile-app', scanner: 'semgrep', model_name: 'gpt-4o', category: 'ssrf' }];

  test('property: the top k is the first k of the whole ranking (a ranking whose top never fills visits every lesson), through puts, replacements and removals, with lessons seen from a year ago to days ahead', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ lesson: fc.integer({ min: 0, max: 400 }), reward: fc.double({ min: -1, max: 1, noNaN: true }), seenDaysAgo: fc.integer({ min: -5, max: 400 }), remove: fc.boolean() }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(...texts),
        fc.constantFrom(...contexts),
        fc.boolean(),
        fc.constantFrom(0, 0.2, 0.6),
        fc.constantFrom(1, 30, 3650),
        (ops, k, text, context, topical, minSimilarity, halfLifeDays) => {
          const index = new ScanLessonIndex();
          const query = { context, nowMs: NOW, halfLifeDays, minScanLessonConfidence: 0.6, minSimilarity, topical };
          for (const [i, op] of ops.entries()) {
            const base = syntheticScanLesson(op.lesson);
            const lastSeen = new Date(NOW - op.seenDaysAgo * DAY).toISOString();
            if (op.remove) index.remove(base.id);
            else index.put({ ...base, metadata: { ...base.metadata, avg_reward: op.reward, last_seen: lastSeen } }, lexicalVector(base.text));
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
