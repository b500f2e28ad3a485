import { z } from 'zod';
import { parseEloLogs, type SkippedEntries } from './model/log-entries';
import { DEFAULT_BUCKET_WIDTH, eloStats, eloStatsOf, type EloStatsReport } from './model/stats';
import { metricItems } from './model/success-metrics';
import { REPORT_LOG_SAMPLE } from './elo-log-samples';
import type { EloBookService } from './elo-book-service';
import { yieldToEventLoop } from '../shared/event-loop';
import { checkLogEntriesInTurns } from './elo-items';

/** Newest entries read from each ELO log when none is given: the sample the log figures use (kept between reports, `EloLogSamples`). */
export const DEFAULT_LOG_LIMIT = REPORT_LOG_SAMPLE;
/** Top items per kind when none is given. */
export const DEFAULT_TOP_K = 10;
/** The most top items per kind a caller may ask for (HTTP `k`, CLI `--k`). */
export const MAX_TOP_K = 100;

const topKSchema = z
  .string()
  .regex(/^[0-9]+$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(MAX_TOP_K));

/**
 * A caller's `k` (top items per kind) from its text: `DEFAULT_TOP_K` when absent, else an integer
 * from 1 to `MAX_TOP_K`; otherwise an error message naming `name` and the allowed values.
 */
export function parseTopK(raw: string | undefined, name: string): { ok: true; k: number } | { ok: false; message: string } {
  if (raw === undefined) return { ok: true, k: DEFAULT_TOP_K };
  const parsed = topKSchema.safeParse(raw);
  return parsed.success ? { ok: true, k: parsed.data } : { ok: false, message: `${name} must be an integer from 1 to ${MAX_TOP_K} (got ${JSON.stringify(raw)})` };
}

export interface EloReportOptions {
  k?: number;
  nowMs?: number;
  /** Newest entries read from each of the three logs. */
  logLimit?: number;
  bucketWidth?: number;
}

/** `eloStats` plus how many log entries failed their schema (left out of every figure). */
export interface EloReport extends EloStatsReport {
  skipped: SkippedEntries;
}

/**
 * The ELO book's report at `nowMs`: `eloStats` of every item's rating then (drift applied) and the
 * newest `logLimit` entries of the update, search and session logs, checked with zod. The figures
 * over every item come from the counted buckets and an index (`countedFigures`), not from reading
 * every item: the same figures, at a cost that does not grow with the book. Only when they cannot
 * (a histogram width not a multiple of 100, or a failed write that left changes only in memory)
 * is every item read.
 */
export async function eloReport(book: EloBookService, options: EloReportOptions = {}): Promise<EloReport> {
  const key = reportKey(book, options);
  const kept = recentReports.get(book);
  if (options.nowMs === undefined && kept && kept.key === key && Date.now() - kept.atMs < REPORT_REUSE_MS) {
    kept.readAtMs = Date.now();
    return kept.report;
  }
  const report = await buildReport(book, options);
  if (options.nowMs === undefined) recentReports.set(book, { key, atMs: Date.now(), readAtMs: Date.now(), report });
  return report;
}

const reportKey = (book: EloBookService, options: EloReportOptions) =>
  `${book.version}:${options.k ?? DEFAULT_TOP_K}:${options.logLimit ?? DEFAULT_LOG_LIMIT}:${options.bucketWidth ?? ''}`;

/**
 * A report is reused while the book has not changed and it is younger than this: only drift, a
 * slow function of time, could move it meanwhile (at the default 1% a day, ten minutes move a
 * rating by 0.007% of its distance from its start). The dashboard asks every 5 s, and each report
 * reads three logs.
 */
export const REPORT_REUSE_MS = 10 * 60_000;
/** A kept report read within this long is computed again before it expires (`refreshDefaultReport`). */
const READ_RECENTLY_MS = 10 * 60_000;
const recentReports = new WeakMap<EloBookService, { key: string; atMs: number; readAtMs: number; report: EloReport }>();

/**
 * Computes the default report (the dashboard's) ahead of the next read when the one kept is of an
 * older book or none is kept, or when it will expire within `marginMs` and was read within
 * READ_RECENTLY_MS (someone is polling). The book calls it when it has been quiet for a while, so
 * the first read after a burst of use, and every poll after, finds a report ready. Returns the
 * report computed, or undefined when the kept one stands.
 */
export async function refreshDefaultReport(book: EloBookService, marginMs: number): Promise<EloReport | undefined> {
  const kept = recentReports.get(book);
  const key = reportKey(book, {});
  const nowMs = Date.now();
  if (kept && kept.key === key && (nowMs - kept.atMs < REPORT_REUSE_MS - marginMs || nowMs - kept.readAtMs > READ_RECENTLY_MS)) return undefined;
  const report = await buildReport(book, {});
  recentReports.set(book, { key, atMs: Date.now(), readAtMs: kept?.readAtMs ?? 0, report });
  return report;
}

async function buildReport(book: EloBookService, options: EloReportOptions): Promise<EloReport> {
  const nowMs = options.nowMs ?? Date.now();
  const logLimit = options.logLimit ?? DEFAULT_LOG_LIMIT;
  if (!Number.isSafeInteger(logLimit) || logLimit < 1) throw new RangeError(`logLimit must be an integer >= 1, got ${logLimit}`);
  const sampled = logLimit === REPORT_LOG_SAMPLE;
  const [updates, searches, sessions] = sampled
    ? [await book.reportLogSample('updates'), await book.reportLogSample('searches'), await book.reportLogSample('sessions')]
    : [await book.updateLogEntries(logLimit), await book.searchLogEntries(logLimit), await book.sessionLogEntries(logLimit)];
  // Turns of the event loop between the reads and the figures: a report computed in the background
  // (`refreshDefaultReport`) holds it for one at a time. The entries are checked a slice at a time
  // first, so parsing them is a lookup each (checked in the parse, 15,000 entries were one turn:
  // twenty reports in a row on the 1M bench database stalled up to 17 ms, against 10 ms now).
  await checkLogEntriesInTurns('updates', updates);
  await checkLogEntriesInTurns('searches', searches);
  await checkLogEntriesInTurns('sessions', sessions);
  const { logs, skipped } = parseEloLogs({ updates, searches, sessions });
  const input = { ...logs, k: options.k ?? DEFAULT_TOP_K, nowMs, ...(options.bucketWidth === undefined ? {} : { bucketWidth: options.bucketWidth }) };
  const refs = metricItems(logs.searches, logs.sessions);
  await yieldToEventLoop();
  const figures = await book.countedFigures(nowMs, input.k, options.bucketWidth ?? DEFAULT_BUCKET_WIDTH, refs);
  await yieldToEventLoop();
  const stats = figures ? eloStatsOf(figures, input) : eloStats({ items: await book.ratings(nowMs), ...input });
  return { ...stats, skipped };
}
