import { describe, expect, test } from 'bun:test';
import { bucketSpan, COUNTED_BUCKET_WIDTH, DAY_MS, driftOrder, ratingAt, storedSpan } from '../../src/elo/model/bucket-span';
import { bucketFrom } from '../../src/elo/model/distribution';
import { seededRandom } from '../helpers/random';


const bucketAt = (item: { elo: number; startElo: number; lastUsedMs: number }, t: number, rate: number) => bucketFrom(ratingAt(item, t, rate), COUNTED_BUCKET_WIDTH);
const STARTS = [400, 800, 1200, 1600];
const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('bucketSpan: the bucket holds from the time asked until before untilMs', () => {
  test('random items and rates: the bucket at atMs, and the same bucket at times up to untilMs − 1 ms', () => {
    const next = seededRandom(7);
    let finite = 0;
    for (let n = 0; n < 3_000; n++) {
      const startElo = STARTS[n % 4] as number;
      const elo = n % 11 === 0 ? startElo : startElo + (next() - 0.5) * 1_600;
      const rate = [0.01, 0.05, 0.3, 1e-6, 0][n % 5] as number;
      const item = { elo, startElo, lastUsedMs: T0 };
      const atMs = T0 + Math.floor(next() * 400 * DAY_MS);
      const span = bucketSpan(item, atMs, rate);
      expect(span.bucket).toBe(bucketAt(item, atMs, rate));
      if (Number.isFinite(span.untilMs)) finite++;
      const end = Number.isFinite(span.untilMs) ? span.untilMs - 1 : atMs + 20_000 * DAY_MS;
      for (const f of [0, 0.25, 0.5, 0.9, 0.999, 1]) {
        const t = Math.floor(atMs + (end - atMs) * f);
        if (t >= atMs) expect([n, t, bucketAt(item, t, rate)]).toEqual([n, t, span.bucket]);
      }
    }
    expect(finite).toBeGreaterThan(1_000);
  });

  test('the bucket left at untilMs is left soon after: the promise is not much shorter than the truth', () => {
    const item = { elo: 1750, startElo: 1200, lastUsedMs: T0 };
    const span = bucketSpan(item, T0, 0.01);
    expect(span.bucket).toBe(1700);
    expect(bucketAt(item, span.untilMs + 60_000, 0.01)).toBe(1600);
  });

  test('a rating below a start that is a bucket edge reaches the start only by rounding, and the span ends before that', () => {
    const item = { elo: 1100, startElo: 1200, lastUsedMs: T0 };
    const span = bucketSpan(item, T0, 0.01);
    expect(span.bucket).toBe(1100);
    expect(Number.isFinite(span.untilMs)).toBe(true);
    const later = T0 + 20_000 * DAY_MS;
    expect(ratingAt(item, later, 0.01)).toBe(1200);
    expect(later).toBeGreaterThan(span.untilMs);
    expect(bucketSpan(item, later, 0.01)).toEqual({ bucket: 1200, untilMs: Number.POSITIVE_INFINITY });
  });

  test('no drift, an item at its start, or a start inside the bucket: the bucket holds for ever', () => {
    expect(bucketSpan({ elo: 1750, startElo: 1200, lastUsedMs: T0 }, T0, 0).untilMs).toBe(Number.POSITIVE_INFINITY);
    expect(bucketSpan({ elo: 1200, startElo: 1200, lastUsedMs: T0 }, T0, 0.01).untilMs).toBe(Number.POSITIVE_INFINITY);
    expect(bucketSpan({ elo: 1250, startElo: 1200, lastUsedMs: T0 }, T0, 0.01).untilMs).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('driftOrder: one order of the items of a start that holds at every time after their last uses', () => {
  test('random items of one start, used at different times: ordered by (above, key) descending, their ratings descend at any later time', () => {
    const next = seededRandom(11);
    for (const rate of [0.01, 0.2, 0]) {
      const items = Array.from({ length: 400 }, (_, i) => ({ elo: i % 13 === 0 ? 1200 : 1200 + (next() - 0.5) * 900, startElo: 1200, lastUsedMs: T0 + Math.floor(next() * 300 * DAY_MS) }));
      const ordered = [...items].sort((a, b) => {
        const [x, y] = [driftOrder(a, rate), driftOrder(b, rate)];
        return Number(y.above) - Number(x.above) || y.key - x.key;
      });
      for (const days of [300, 301.5, 400, 2_000]) {
        const ratings = ordered.map((item) => ratingAt(item, T0 + days * DAY_MS, rate));
        for (let i = 1; i < ratings.length; i++) expect((ratings[i] as number) - 1e-9).toBeLessThanOrEqual(ratings[i - 1] as number);
      }
    }
  });
});

describe('storedSpan: the span kept for the database never ends before the floor, and holds at no time the computed span does not', () => {
  const holds = (span: { sinceMs: number; untilMs: number }, t: number) => span.sinceMs <= t && t < span.untilMs;
  test('a span after the floor is kept; one ending before its start is empty at its start; one ending before the floor is empty at the floor', () => {
    expect(storedSpan(T0, T0 + DAY_MS, T0 - 1)).toEqual({ sinceMs: T0, untilMs: T0 + DAY_MS });
    expect(storedSpan(T0, Number.POSITIVE_INFINITY, T0 + 9 * DAY_MS)).toEqual({ sinceMs: T0, untilMs: Number.POSITIVE_INFINITY });
    expect(storedSpan(T0, T0 - 500, Number.NEGATIVE_INFINITY)).toEqual({ sinceMs: T0, untilMs: T0 });
    expect(storedSpan(T0, T0 + DAY_MS, T0 + DAY_MS)).toEqual({ sinceMs: T0, untilMs: T0 + DAY_MS });
    expect(storedSpan(T0, T0 + DAY_MS, T0 + DAY_MS + 1)).toEqual({ sinceMs: T0 + DAY_MS + 1, untilMs: T0 + DAY_MS + 1 });
  });
  test('random spans and floors: until at or after the floor and the start; every time it holds, the computed span held', () => {
    const next = seededRandom(11);
    let moved = 0;
    for (let n = 0; n < 5_000; n++) {
      const sinceMs = T0 + Math.floor(next() * 100 * DAY_MS);
      const untilMs = n % 13 === 0 ? Number.POSITIVE_INFINITY : sinceMs + Math.floor((next() - 0.2) * 50 * DAY_MS);
      const floorMs = n % 7 === 0 ? Number.NEGATIVE_INFINITY : T0 + Math.floor(next() * 150 * DAY_MS);
      const stored = storedSpan(sinceMs, untilMs, floorMs);
      expect(stored.untilMs).toBeGreaterThanOrEqual(floorMs);
      expect(stored.untilMs).toBeGreaterThanOrEqual(stored.sinceMs);
      if (stored.sinceMs !== sinceMs) moved++;
      for (const t of [sinceMs - 1, sinceMs, floorMs, stored.sinceMs, stored.untilMs - 1, untilMs - 1, untilMs]) {
        if (Number.isFinite(t) && holds(stored, t)) expect([n, t, holds({ sinceMs, untilMs }, t)]).toEqual([n, t, true]);
      }
    }
    expect(moved).toBeGreaterThan(500);
  });
});
