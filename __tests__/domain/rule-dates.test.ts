import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { isoDay, isoSeconds, isoWeek, isoWeekStartMs, parseWireTimeMs } from '../../src/rules/model/dates';

describe('isoWeek', () => {
  const table: [string, string][] = [
    ['2026-01-01', '2026-W01'], // a Thursday: week 1 holds it
    ['2025-12-29', '2026-W01'], // the Monday of that week, still in 2025
    ['2025-12-28', '2025-W52'],
    ['2026-02-11', '2026-W07'],
    ['2026-12-31', '2026-W53'], // 2026 has 53 weeks (starts on a Thursday)
    ['2027-01-01', '2026-W53'], // a Friday: belongs to the last week of 2026
    ['2027-01-03', '2026-W53'],
    ['2027-01-04', '2027-W01'],
    ['2024-12-30', '2025-W01'],
    ['2021-01-03', '2020-W53'],
  ];
  test.each(table)('%s is in %s', (day, week) => {
    expect(isoWeek(Date.parse(`${day}T12:00:00Z`))).toBe(week);
    expect(isoWeek(Date.parse(`${day}T00:00:00Z`))).toBe(week);
    expect(isoWeek(Date.parse(`${day}T23:59:59.999Z`))).toBe(week);
  });

  test('property: a week starts on Monday, holds 7 days, and the next week has another name', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
        const start = isoWeekStartMs(ms);
        expect(new Date(start).getUTCDay()).toBe(1);
        expect(start).toBeLessThanOrEqual(ms);
        expect(ms - start).toBeLessThan(7 * 86_400_000);
        expect(isoWeek(start)).toBe(isoWeek(ms));
        expect(isoWeek(start + 7 * 86_400_000)).not.toBe(isoWeek(ms));
      }),
    );
  });
});

describe('parseWireTimeMs', () => {
  const table: [string, number | null][] = [
    ['2026-02-11', Date.UTC(2026, 1, 11)],
    ['2026-02-11T10:30:00', Date.UTC(2026, 1, 11, 10, 30)], // the seed's zone-less form: UTC
    ['2026-02-11T10:30:00Z', Date.UTC(2026, 1, 11, 10, 30)],
    ['2026-02-11T12:30:00+02:00', Date.UTC(2026, 1, 11, 10, 30)],
    ['2026-02-30', null],
    ['2026-02-11T24:00:00Z', null],
    ['yesterday', null],
    ['2026-2-11', null],
  ];
  test.each(table)('%s => %p', (text, ms) => {
    expect(parseWireTimeMs(text)).toBe(ms);
  });
});

test('isoDay and isoSeconds are UTC', () => {
  const ms = Date.UTC(2026, 1, 11, 23, 59, 58, 700);
  expect(isoDay(ms)).toBe('2026-02-11');
  expect(isoSeconds(ms)).toBe('2026-02-11T23:59:58Z');
});
