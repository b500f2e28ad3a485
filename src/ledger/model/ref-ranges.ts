// Ranges of source record ids (seed 000 §4, balance reconciliation at any length): reconciliation
// compares a count, a points sum and a checksum of record ids per range, and reads rows only in a
// range whose figures differ.

/**
 * Record ids from `lo` (inclusive) to `hi` (exclusive), compared as text; null is unbounded. The
 * ranges of one split are contiguous from the lowest text to the highest, so every id (a UUID, or
 * anything else a hostile row holds) falls in exactly one of them.
 */
export interface RefRange {
  lo: string | null;
  hi: string | null;
}

/** What the entries in one range add up to. `checksum`: a sum of hashes of their record ids, as text (compared, never added to). */
export interface RangeSummary {
  count: number;
  points: number;
  checksum: string;
}

/**
 * Rows a range is sized for: a range's two summaries each read about this many rows. Each read is
 * one statement on the main thread, and its rows are scattered (record ids are random), so on a
 * cold cache a range costs a page read per row: at 2,048 (about 200 rows per range at 1M records)
 * the longest range of a full reconciliation stalled 0.28–0.49 s. At 128, 1M records make 65,536
 * ranges of about 15 rows.
 */
export const ROWS_PER_RANGE = 128;

/** The prefix length (in hex digits, 1–4) that splits `rows` records into ranges of about `perRange`. */
export function prefixDigits(rows: number, perRange = ROWS_PER_RANGE): number {
  let digits = 1;
  while (digits < 4 && rows / 16 ** digits > perRange) digits++;
  return digits;
}

/**
 * The ranges that split lowercase hex record ids (UUIDs as text) by their first `digits` hex
 * digits: 16^digits ranges, the first open below and the last open above.
 */
export function refRanges(digits: number): RefRange[] {
  const n = 16 ** digits;
  const prefix = (i: number) => i.toString(16).padStart(digits, '0');
  return Array.from({ length: n }, (_, i) => ({ lo: i === 0 ? null : prefix(i), hi: i === n - 1 ? null : prefix(i + 1) }));
}

/** A text bound as the lowest UUID it starts (`'3f'` → `3f000000-0000-0000-0000-000000000000`), for ranges over a uuid column. */
export function uuidBound(prefix: string): string {
  const hex = prefix.padEnd(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function sameSummary(a: RangeSummary, b: RangeSummary): boolean {
  return a.count === b.count && a.points === b.points && a.checksum === b.checksum;
}
