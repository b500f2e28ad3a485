import { describe, expect, test } from 'bun:test';
import { addSummaries, partsFor, prefixDigits, refRanges, sameSummary, splitRange, uuidBound } from '../../src/ledger/model/ref-ranges';

/** The range of `ranges` that holds `ref` by text comparison (as the database compares source_ref). */
function holders(ranges: ReturnType<typeof refRanges>, ref: string): number {
  return ranges.filter((r) => (r.lo === null || ref >= r.lo) && (r.hi === null || ref < r.hi)).length;
}

describe('ranges of record ids', () => {
  test('the prefix length grows with the rows, one hex digit per 16x, from 1 to 4', () => {
    expect(prefixDigits(0)).toBe(1);
    expect(prefixDigits(16 * 2_048)).toBe(1);
    expect(prefixDigits(16 * 2_048 + 1)).toBe(2);
    expect(prefixDigits(1_000_000)).toBe(3);
    expect(prefixDigits(1e12)).toBe(4);
  });

  test('16^digits contiguous ranges, open at both ends: every id, UUID or not, is in exactly one', () => {
    for (const digits of [1, 2]) {
      const ranges = refRanges(digits);
      expect(ranges.length).toBe(16 ** digits);
      expect(ranges[0]?.lo).toBeNull();
      expect(ranges.at(-1)?.hi).toBeNull();
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.lo).toBe(ranges[i - 1]?.hi as string);
      for (const ref of ['', '0', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '7f3a', 'ZZZ', 'A1', '\u0000', '~~~', crypto.randomUUID()]) {
        expect(holders(ranges, ref)).toBe(1);
      }
    }
  });

  test('a UUID bound is the lowest UUID with that prefix', () => {
    expect(uuidBound('3f')).toBe('3f000000-0000-0000-0000-000000000000');
    expect(uuidBound('abc')).toBe('abc00000-0000-0000-0000-000000000000');
  });

  test('summaries are the same only when count, points and checksum all are', () => {
    const a = { count: 3, points: 130, checksum: '-12345' };
    expect(sameSummary(a, { ...a })).toBe(true);
    expect(sameSummary(a, { ...a, count: 4 })).toBe(false);
    expect(sameSummary(a, { ...a, points: 131 })).toBe(false);
    expect(sameSummary(a, { ...a, checksum: '12345' })).toBe(false);
  });

  test('a range split in parts: contiguous, inside the range, and every id of the range in exactly one part', () => {
    const refs = ['', '0', '0000', '0004', '000f', '001', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'fff', 'fff8', 'ZZZ', 'A1', '\u0000', '~~~', 'abc', 'abc7', 'abc8', 'abcf', 'abd'];
    for (let i = 0; i < 200; i++) refs.push(crypto.randomUUID());
    for (const digits of [1, 3]) {
      const ranges = refRanges(digits);
      for (const range of [ranges[0], ranges[1], ranges[Math.floor(ranges.length / 2)], ranges.at(-1)]) {
        if (!range) throw new Error('no range');
        for (const parts of [1, 2, 4, 8, 16]) {
          const split = splitRange(range, digits, parts);
          expect(split.length).toBe(parts);
          expect(split[0]?.lo).toBe(range.lo);
          expect(split.at(-1)?.hi).toBe(range.hi);
          for (let p = 1; p < split.length; p++) expect(split[p]?.lo).toBe(split[p - 1]?.hi as string);
          for (const ref of refs) expect(holders(split, ref)).toBe(holders([range], ref));
        }
      }
    }
    expect(splitRange({ lo: 'abc', hi: 'abd' }, 3, 4)).toEqual([
      { lo: 'abc', hi: 'abc4' },
      { lo: 'abc4', hi: 'abc8' },
      { lo: 'abc8', hi: 'abcc' },
      { lo: 'abcc', hi: 'abd' },
    ]);
    expect(() => splitRange({ lo: 'a', hi: 'b' }, 1, 3)).toThrow(RangeError);
  });

  test('parts per range keep each statement near 64 rows, at most 16; summaries of parts add up exactly', () => {
    expect(partsFor(0)).toBe(1);
    expect(partsFor(64)).toBe(1);
    expect(partsFor(65)).toBe(2);
    expect(partsFor(244)).toBe(4);
    expect(partsFor(1e9)).toBe(16);
    const big = '9223372036854775807';
    expect(addSummaries([{ count: 2, points: 10, checksum: big }, { count: 1, points: -3, checksum: big }, { count: 0, points: 0, checksum: '-5' }])).toEqual({ count: 3, points: 7, checksum: '18446744073709551609' });
    expect(addSummaries([])).toEqual({ count: 0, points: 0, checksum: '0' });
  });
});
