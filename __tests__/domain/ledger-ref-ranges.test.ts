import { describe, expect, test } from 'bun:test';
import { prefixDigits, refRanges, sameSummary, uuidBound } from '../../src/ledger/model/ref-ranges';

/** The range of `ranges` that holds `ref` by text comparison (as the database compares source_ref). */
function holders(ranges: ReturnType<typeof refRanges>, ref: string): number {
  return ranges.filter((r) => (r.lo === null || ref >= r.lo) && (r.hi === null || ref < r.hi)).length;
}

describe('ranges of record ids', () => {
  test('the prefix length grows with the rows, one hex digit per 16x, from 1 to 4', () => {
    expect(prefixDigits(0)).toBe(1);
    expect(prefixDigits(16 * 128)).toBe(1);
    expect(prefixDigits(16 * 128 + 1)).toBe(2);
    expect(prefixDigits(100_000)).toBe(3);
    expect(prefixDigits(1_000_000)).toBe(4);
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
});
