import { z } from 'zod';
import { parseEloLogs, type SkippedEntries } from './model/log-entries';
import { DEFAULT_BUCKET_WIDTH, eloStats, eloStatsOf, type EloStatsReport } from './model/stats';
import { metricItems } from './model/success-metrics';
import { REPORT_LOG_SAMPLE } from './elo-log-samples';
import type { EloBookService } from './elo-book-service';

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
  const key = `${book.version}:${options.k ?? DEFAULT_TOP_K}:${options.logLimit ?? DEFAULT_LOG_LIMIT}:${options.bucketWidth ?? ''}`;
  const cached = recentReports.get(book);
  if (options.nowMs === undefined && cached && cached.key === key && Date.now() - cached.atMs < REPORT_REUSE_MS) return cached.report;
  const report = await buildReport(book, options);
  if (options.nowMs === undefined) recentReports.set(book, { key, atMs: Date.now(), report });
  return report;
}

/**
 * A report is reused while the book has not changed and it is younger than this (only drift, a
 * slow function of time, could move it meanwhile): the dashboard asks every 5 s, and each report
 * reads three logs.
 */
const REPORT_REUSE_MS = 60_000;
const recentReports = new WeakMap<EloBookService, { key: string; atMs: number; report: EloReport }>();

async function buildReport(book: EloBookService, options: EloReportOptions): Promise<EloReport> {
  const nowMs = options.nowMs ?? Date.now();
  const logLimit = options.logLimit ?? DEFAULT_LOG_LIMIT;
  if (!Number.isSafeInteger(logLimit) || logLimit < 1) throw new RangeError(`logLimit must be an integer >= 1, got ${logLimit}`);
  const [updates, searches, sessions] = [await book.updateLogEntries(logLimit), await book.searchLogEntries(logLimit), await book.sessionLogEntries(logLimit)];
  const { logs, skipped } = parseEloLogs({ updates, searches, sessions });
  const input = { ...logs, k: options.k ?? DEFAULT_TOP_K, nowMs, ...(options.bucketWidth === undefined ? {} : { bucketWidth: options.bucketWidth }) };
  const figures = await book.countedFigures(nowMs, input.k, options.bucketWidth ?? DEFAULT_BUCKET_WIDTH, metricItems(logs.searches, logs.sessions));
  const stats = figures ? eloStatsOf(figures, input) : eloStats({ items: await book.ratings(nowMs), ...input });
  return { ...stats, skipped };
}
