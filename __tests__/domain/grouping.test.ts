import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  coveringWindowEnds,
  DAY_MS,
  describeGroup,
  dominantValue,
  type GroupKey,
  groupId,
  groupKeyOf,
  parseGroupId,
  windowEndingAt,
} from '../../src/scan/model/grouping';

const KEY: GroupKey = { project: 'payments', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: null };

describe('groupKeyOf / groupId / parseGroupId', () => {
  test('a row without category gets category null', () => {
    expect(groupKeyOf({ project: 'payments', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o' })).toEqual(KEY);
  });

  test('golden id', () => {
    expect(groupId(KEY)).toBe('["payments","semgrep","openai","gpt-4o",null]');
    expect(groupId({ ...KEY, category: 'xss' })).toBe('["payments","semgrep","openai","gpt-4o","xss"]');
  });

  test('commas and quotes cannot make two keys collide', () => {
    const a = groupId({ ...KEY, project: 'a,b', scanner: 'c' });
    const b = groupId({ ...KEY, project: 'a', scanner: 'b,c' });
    const c = groupId({ ...KEY, project: 'a","b', scanner: 'c' });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  test('category null and category "null" are different groups', () => {
    expect(groupId({ ...KEY, category: 'null' })).not.toBe(groupId(KEY));
  });

  test('property: parseGroupId(groupId(key)) round-trips, including null category', () => {
    const key = fc.record({
      project: fc.string(),
      scanner: fc.string(),
      model_provider: fc.oneof(fc.string(), fc.constantFrom('a,b', '"', '\\', '","', '[null]')),
      model_name: fc.string({ unit: 'binary' }),
      category: fc.option(fc.string(), { nil: null }),
    });
    fc.assert(
      fc.property(key, (k) => {
        expect(parseGroupId(groupId(k))).toEqual(k);
      }),
    );
  });

  test('property: different keys give different ids', () => {
    const key = fc.record({
      project: fc.string({ maxLength: 3 }),
      scanner: fc.string({ maxLength: 3 }),
      model_provider: fc.constant('p'),
      model_name: fc.constant('m'),
      category: fc.option(fc.string({ maxLength: 3 }), { nil: null }),
    });
    fc.assert(
      fc.property(key, key, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        expect(groupId(a)).not.toBe(groupId(b));
      }),
    );
  });
});

describe('describeGroup / windowEndingAt', () => {
  test('describes scope with and without category', () => {
    expect(describeGroup(KEY)).toBe('semgrep with openai/gpt-4o on project payments');
    expect(describeGroup({ ...KEY, category: 'xss' })).toBe('semgrep with openai/gpt-4o on project payments, category xss');
  });

  test('a 7-day window ending at a time', () => {
    const now = Date.parse('2026-11-10T00:00:00Z');
    expect(windowEndingAt(now, 7)).toEqual({ startMs: Date.parse('2026-11-03T00:00:00Z'), endMs: now });
  });
});

describe('coveringWindowEnds', () => {
  const W = 7 * DAY_MS;
  const day = (d: number) => Date.parse('2026-11-01T12:00:00Z') + d * DAY_MS;

  const table: [string, number[], number, number[]][] = [
    ['empty', [], W, []],
    ['all in one window, any order', [day(2), day(5), day(0), day(5)], W, [day(5)]],
    ['three-week backlog, one outcome a day', Array.from({ length: 21 }, (_, d) => day(d)), W, [day(20), day(13), day(6)]],
    ['22 days need a fourth window', Array.from({ length: 22 }, (_, d) => day(d)), W, [day(21), day(14), day(7), day(0)]],
    ['exactly one window apart: the older one opens a new window', [0, W], W, [W, 0]],
    ['just inside one window', [1, W], W, [W]],
    ['a gap: windows start at the next pending outcome, not on a grid', [day(0), day(30)], W, [day(30), day(0)]],
  ];
  test.each(table)('%s', (_name, ts, windowMs, ends) => {
    expect(coveringWindowEnds(ts, windowMs)).toEqual(ends);
  });

  test('does not reorder its input', () => {
    const ts = [3, 1, 2];
    coveringWindowEnds(ts, 1);
    expect(ts).toEqual([3, 1, 2]);
  });

  test('property: every timestamp lies in exactly one window (end - w, end], ends newest first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 * DAY_MS }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 30 * DAY_MS }),
        (ts, w) => {
          const ends = coveringWindowEnds(ts, w);
          for (const t of ts) {
            expect(ends.filter((end) => t > end - w && t <= end).length).toBe(1);
          }
          for (let i = 1; i < ends.length; i++) expect(ends[i]!).toBeLessThanOrEqual(ends[i - 1]! - w);
          for (const end of ends) expect(ts).toContain(end);
        },
      ),
    );
  });
});

describe('dominantValue', () => {
  const table: [string, (string | undefined)[], string | null][] = [
    ['nothing', [], null],
    ['only empty values', [undefined, '', undefined], null],
    ['a clear majority', ['a', 'b', 'a'], 'a'],
    ['empties do not count', ['a', undefined, '', '', 'a', 'b'], 'a'],
    ['a tie goes to the one seen last', ['a', 'b'], 'b'],
    ['a tie goes to the one seen last, reversed', ['b', 'b', 'a', 'a'], 'a'],
    ['a late majority wins', ['a', 'b', 'b', 'c', 'b'], 'b'],
  ];
  test.each(table)('%s', (_name, values, expected) => {
    expect(dominantValue(values)).toBe(expected);
  });

  test('property: the result has the highest count', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', '', undefined), { minLength: 1, maxLength: 30 }), (values) => {
        const counts = new Map<string, number>();
        for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
        const top = Math.max(0, ...counts.values());
        const got = dominantValue(values);
        expect(got === null ? 0 : counts.get(got)).toBe(top);
      }),
    );
  });
});
