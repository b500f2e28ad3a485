import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { blockBudget } from '../../src/context/context-budget';
import { EVERYDAY_SENTENCES } from '../../src/shared/everyday-sentences';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { maxPerQuery, relevanceFloor } from '../../src/shared/relevance-floor';
import { mentionsScanTopic } from '../../src/scan/model/topic';
import { cosineSimilarity } from '../../src/shared/similarity';
import { denseVector } from '../helpers/dense-embedding';

describe('relevanceFloor: the percentile (nearest rank) of the highest similarity each everyday sentence reaches', () => {
  test.each([
    [[0.1, 0.5, 0.3, 0.2], 1, 0.5],
    [[0.1, 0.5, 0.3, 0.2], 0.75, 0.3],
    [[0.1, 0.5, 0.3, 0.2], 0.5, 0.2],
    [[0.1, 0.5, 0.3, 0.2], 0.01, 0.1],
    [Array.from({ length: 100 }, (_, i) => i / 100), 0.99, 0.98],
    [[0.4, Number.NEGATIVE_INFINITY, 0.2], 1, 0.4],
    [[], 0.99, Number.POSITIVE_INFINITY],
    [[Number.NEGATIVE_INFINITY], 0.99, Number.POSITIVE_INFINITY],
  ])('%j at %p is %p', (maxima, p, floor) => {
    expect(relevanceFloor(maxima, p)).toBe(floor);
  });

  test('a percentile outside (0, 1] is a programmer error', () => {
    expect(() => relevanceFloor([0.1], 0)).toThrow(RangeError);
    expect(() => relevanceFloor([0.1], 1.5)).toThrow(RangeError);
  });

  test('property: the floor is one of the maxima, and at most the given share of them lies above it', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.double({ min: 0.01, max: 1, noNaN: true }), (maxima, p) => {
        const floor = relevanceFloor(maxima, p);
        expect(maxima).toContain(floor);
        expect(maxima.filter((m) => m > floor).length).toBeLessThanOrEqual(Math.floor((1 - p) * maxima.length) + 1e-9);
      }),
    );
  });

  test('maxPerQuery takes each query\'s best similarity; −∞ without items', () => {
    expect(maxPerQuery(['a', 'b'], (q) => (q === 'a' ? [0.1, 0.7, -0.2] : [-0.3]))).toEqual([0.7, -0.3]);
    expect(maxPerQuery(['a'], () => [])).toEqual([Number.NEGATIVE_INFINITY]);
  });

  const LESSONS = [
    'For semgrep with anthropic/claude-3-5-haiku on project mobile-app, category dependency-version: 85% of dependency-version findings were rejected as false positives; treat such findings with scepticism.',
    'For codeql with openai/gpt-4o-mini on project payments-api, category sql-injection: 92% of sql-injection findings were fixed or accepted; this is a reliable signal worth reporting with confidence.',
  ];
  const floorFor = (embed: (t: string) => number[]) => {
    const lessons = LESSONS.map(embed);
    return relevanceFloor(maxPerQuery(EVERYDAY_SENTENCES.map(embed), (s) => lessons.map((l) => cosineSimilarity(s, l))));
  };

  test('calibrated per vector source: a dense embedding, where unrelated text has a positive cosine, gets a higher floor than hashed words', () => {
    const lexical = floorFor(lexicalVector);
    const dense = floorFor(denseVector);
    expect(cosineSimilarity(denseVector('Good job, that worked.'), denseVector(LESSONS[0] as string))).toBeGreaterThan(0);
    expect(dense).toBeGreaterThan(lexical);
    for (const [embed, floor] of [[lexicalVector, lexical], [denseVector, dense]] as const) {
      const lesson = embed(LESSONS[0] as string);
      expect(cosineSimilarity(embed('Good job, that worked.'), lesson)).toBeLessThanOrEqual(floor);
      expect(cosineSimilarity(embed('semgrep dependency-version findings rejected as false positives on mobile-app'), lesson)).toBeGreaterThan(floor);
    }
  });
});

describe('mentionsScanTopic: whole words about scan findings', () => {
  test.each([
    ['Is this scanner finding a false positive?', true],
    ['What did the SAST scan say?', true],
    ['Any new vulnerabilities?', true],
    ['Good job, that worked.', false],
    ['Can I force-push my hotfix branch to main?', false],
    ['I was finding my keys', true],
    ['The scanning electron microscope is booked', true],
    ['falsehood and positivity', false],
  ])('%p → %p', (text, expected) => {
    expect(mentionsScanTopic(text)).toBe(expected);
  });
});

describe('blockBudget: min(cap, total − used), never below 0', () => {
  test.each([
    [1000, 400, 0, 400],
    [1000, 400, 800, 200],
    [1000, 400, 1000, 0],
    [1000, 400, 1200, 0],
    [300, 400, 0, 300],
  ])('total %p, cap %p, used %p → %p', (total, cap, used, expected) => {
    expect(blockBudget(total, cap, used)).toBe(expected);
  });
});
