import { DAY_MS } from '../../scan/model/grouping';
import { isIsoDateTime } from '../../scan/model/outcome';

/**
 * Dates of the rules system's wire formats (seed 003). Inside, times are epoch milliseconds;
 * on the wire, `created`, `last_checked`, `last_validated` and `started` are `YYYY-MM-DD` (UTC
 * day), event and log times are ISO-8601 date-times, and weeks are ISO weeks `YYYY-Www`.
 */

/** The UTC day of `ms` as `YYYY-MM-DD`. */
export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ZONELESS_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Epoch ms of a wire time, or null when it is not one. Accepted: `YYYY-MM-DD` (midnight UTC),
 * an ISO-8601 date-time with a zone, and one without a zone, read as UTC (the seed's own
 * examples, e.g. `2026-02-11T10:30:00`, carry none). Impossible calendar values (30 February,
 * hour 24) are refused, not rolled over.
 */
export function parseWireTimeMs(text: string): number | null {
  const day = ISO_DAY.exec(text);
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    // setUTCFullYear, not Date.UTC, which reads years 0..99 as 1900..1999.
    const ms = new Date(0).setUTCFullYear(year, month - 1, date);
    const back = new Date(ms);
    return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === date ? ms : null;
  }
  const zoned = ZONELESS_DATE_TIME.test(text) ? `${text}Z` : text;
  return isIsoDateTime(zoned) ? Date.parse(zoned) : null;
}

/** Seconds-precision UTC time for logs: `2026-02-11T10:30:52Z`. */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * The ISO-8601 week of the UTC day of `ms`, as `YYYY-Www`. Weeks start on Monday; week 1 is the
 * week holding the year's first Thursday, so the week-year is the year of that week's Thursday:
 * `thursday = day − ((weekday + 6) mod 7) + 3 days`, `week = 1 + ⌊(thursday − 1 January of
 * thursday's year) / 7 days⌋`. 2026-01-01 (a Thursday) is 2026-W01; 2027-01-01 (a Friday) is 2026-W53.
 */
export function isoWeek(ms: number): string {
  const dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
  const weekday = (new Date(dayStart).getUTCDay() + 6) % 7;
  const thursday = new Date(dayStart + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Epoch ms of 00:00 UTC on the Monday of the ISO week holding `ms`. */
export function isoWeekStartMs(ms: number): number {
  const dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
  const weekday = (new Date(dayStart).getUTCDay() + 6) % 7;
  return dayStart - weekday * DAY_MS;
}
