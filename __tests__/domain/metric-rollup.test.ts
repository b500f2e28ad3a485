import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { DAY_MS } from '../../src/scan/model/grouping';
import { OUTCOME_LABELS } from '../../src/scan/model/outcome';
import { compareCodePoints, compareText, type MetricOutcome, summarizeFindings } from '../../src/scan/model/findings';
import { rankSlices } from '../../src/scan/model/metric-slices';
import { computeMetricSet, median } from '../../src/scan/model/metrics';
import { dayScope, hourScope, wholeHourScopes, findingState, findingTallies, fixBucket, keyOrderHex, locateRanks, medianRanks, type Tally } from '../../src/scan/model/metric-rollup';
import { emptyCounts, metricSetOf, sliceCounts, sliceId, type SliceTallyRow } from '../../src/scan/model/metric-rollup-report';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

const HOUR = 3_600_000;

describe('metrics rollup model', () => {
  test('fixBucket is in the order of the values it buckets', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1e9, noNaN: true }), fc.double({ min: 1e-12, max: 1e9, noNaN: true }), (a, b) => {
        if (a < b) expect(fixBucket(a)).toBeLessThanOrEqual(fixBucket(b));
      }),
    );
    expect(fixBucket(1)).toBeLessThan(fixBucket(1.3));
    expect(fixBucket(1.3)).toBeLessThan(fixBucket(2));
  });

  test('compareCodePoints orders strings as their UTF-8 bytes (PostgreSQL\'s COLLATE "C"); rankSlices breaks ties by it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(sign(compareCodePoints(a, b))).toBe(sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
    );
    expect(compareCodePoints('\uE000', '\u{1F600}')).toBeLessThan(0);
    expect(compareText('\uE000', '\u{1F600}')).toBeGreaterThan(0);
    const sizes = new Map([
      ['\u{1F600}y', 10],
      ['\uE000x', 10],
      ['a', 5],
      ['big', 11],
    ]);
    expect(rankSlices(sizes, 2)).toEqual(['big', '\uE000x']);
    expect(rankSlices(sizes, 9)).toEqual(['big', '\uE000x', '\u{1F600}y', 'a']);
  });

  test('keyOrderHex orders keys as compareText does (code units, astral after U+E000..U+FFFF)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(sign(compareText(keyOrderHex(a), keyOrderHex(b)))).toBe(sign(compareText(a, b)));
      }),
    );
    expect(keyOrderHex('\u{1F600}') < keyOrderHex('\uE000')).toBe(true);
  });

  test('a drift window of whole hours is its whole days and the hours of its partial days: each time inside in exactly one, each time outside in none', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 60 * 24 }), fc.array(fc.double({ min: -0.1, max: 1.1, noNaN: true }), { maxLength: 20 }), (loHour, hours, at) => {
        const lo = loHour * HOUR;
        const hi = lo + hours * HOUR;
        const scopes = wholeHourScopes(lo, hi);
        expect(new Set(scopes).size).toBe(scopes.length);
        for (const f of [...at, 0, 1]) {
          // Times at any point (to 2038), sub-millisecond ones too: outcome times keep microseconds.
          const t = lo + f * (hi - lo) + (f === 1 ? -0.001 : 0);
          const inScopes = [scopes.includes(dayScope(t)), scopes.includes(hourScope(t))].filter(Boolean).length;
          expect(inScopes).toBe(t >= lo && t < hi ? 1 : 0);
        }
        expect(scopes.includes(hourScope(hi)) || scopes.includes(dayScope(hi))).toBe(false);
      }),
    );
  });

  test('a week-long drift window reads whole days and the hours of its partial days; a window not on whole hours is refused', () => {
    const lo = Date.parse('2026-11-10T03:00:00Z');
    const scopes = wholeHourScopes(lo, lo + 7 * DAY_MS);
    expect(scopes.filter((s) => s.startsWith('d:'))).toHaveLength(6);
    expect(scopes.filter((s) => s.startsWith('h:'))).toHaveLength(21 + 3);
    expect(() => wholeHourScopes(lo + 1, lo + DAY_MS)).toThrow(RangeError);
  });

  test('the median from bucket counts and the located ranks is the median of the values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), { maxLength: 60 }), (values) => {
        const sorted = [...values].sort((a, b) => a - b);
        const buckets = new Map<number, number>();
        for (const v of sorted) buckets.set(fixBucket(v), (buckets.get(fixBucket(v)) ?? 0) + 1);
        const located = locateRanks([...buckets].sort((a, b) => a[0] - b[0]), medianRanks(values.length));
        const picked = located.map(({ bucket, offset }) => sorted.filter((v) => fixBucket(v) === bucket)[offset] as number);
        const [a, b] = picked;
        expect(a === undefined ? null : b === undefined ? a : (a + b) / 2).toBe(median(values));
      }),
    );
  });

  const outcomeArb = fc.record({
    findingKey: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
    label: fc.constantFrom(...OUTCOME_LABELS),
    tsMs: fc.integer({ min: 0, max: 40 }).map((h) => h * 3_600_000),
    project: fc.constantFrom('p', 'q'),
    scanner: fc.constant('s'),
    model: fc.constant('m'),
    reward: fc.double({ min: -1, max: 1, noNaN: true }),
    scannerConfidence: fc.option(fc.constantFrom(0, 0.25, 0.5, 1), { nil: undefined }),
  });

  test('a slice\'s figures from its finding tallies equal computeMetricSet\'s over its rows', () => {
    fc.assert(
      fc.property(fc.array(outcomeArb, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (raw, k) => {
        const outcomes = raw.map((o) => (o.scannerConfidence === undefined ? { ...o, scannerConfidence: undefined } : o)) as MetricOutcome[];
        const findings = summarizeFindings(outcomes, new Map());
        const tallies: Tally[] = findings.flatMap((f) => findingTallies(findingState(f), 1));
        const rows: SliceTallyRow[] = tallies.map((t) => ({ dim: 'overall', value: '', kind: t.kind, bucket: t.bucket, n: t.n, p: t.p, gap: t.p - t.y }));
        for (const o of outcomes) rows.push({ dim: 'overall', value: '', kind: 0, bucket: 0, n: 1, p: o.reward, gap: o.reward });
        const counts = sliceCounts(rows).get(sliceId('overall', ''));
        const confident = findings.filter((f) => f.scannerConfidence !== undefined).sort((a, b) => (b.scannerConfidence as number) - (a.scannerConfidence as number) || compareText(a.findingKey, b.findingKey));
        const top = confident.slice(0, k);
        const hours = findings.flatMap((f) => (f.hoursToFix === null ? [] : [f.hoursToFix])).sort((a, b) => a - b);
        const fromTallies = metricSetOf(counts ?? emptyCounts(), {
          topConfirmed: top.filter((f) => f.confirmed).length,
          topTaken: top.length,
          medianValues: medianRanks(hours.length).map((r) => hours[r] as number),
          drift: [],
        });
        const expected = computeMetricSet(findings, outcomes, { asOfMs: -1e12, k });
        const { drift: _d, ...figures } = fromTallies;
        const { drift: _e, ...want } = expected;
        for (const [name, value] of Object.entries(want)) {
          const got = (figures as Record<string, unknown>)[name];
          if (typeof value === 'number') expect(got as number).toBeCloseTo(value, 9);
          else expect(got).toEqual(value);
        }
      }),
    );
  });
});
