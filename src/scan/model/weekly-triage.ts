import { DAY_MS } from './grouping';
import { computeMetricSet } from './metrics';
import { compareOutcomes, compareText, type MetricOutcome, summarizeFindings } from './findings';

export const WEEK_MS = 7 * DAY_MS;
/** Weeks a weekly series has when the caller names none. */
export const DEFAULT_WEEKS = 12;
/** The most weeks a caller may ask for: a series stays bounded however long the agent has run. */
export const MAX_WEEKS = 52;
/** 1970-01-01 was a Thursday: the Monday of its week was three days before. */
const FIRST_MONDAY_MS = -3 * DAY_MS;

/** Start (Monday 00:00 UTC) of the UTC week that holds `ms`. */
export function utcWeekStartMs(ms: number): number {
  return ms - ((((ms - FIRST_MONDAY_MS) % WEEK_MS) + WEEK_MS) % WEEK_MS);
}

/** Triage quality of the findings labelled in one UTC week; figures as in `computeMetricSet`. */
export interface WeeklyTriagePoint {
  /** Monday 00:00 UTC, inclusive. */
  week_start: string;
  /** The next Monday 00:00 UTC, exclusive. */
  week_end: string;
  outcomes: number;
  findings: number;
  false_positive_rate: number | null;
  precision_at_k: number | null;
  precision_k: number;
  calibration_error: number | null;
  avg_reward: number | null;
}

export interface WeeklyTriageReport {
  as_of: string;
  k: number;
  weeks: number;
  /** Oldest week first; the last one holds `as_of`. */
  series: WeeklyTriagePoint[];
}

export interface WeeklyTriageOptions {
  asOfMs: number;
  /** 1 to MAX_WEEKS. */
  weeks: number;
  /** A positive integer, as for `computeScanMetrics`. */
  k: number;
}

/**
 * Triage quality week by week: the `weeks` UTC weeks (Monday to Monday) ending with the one that
 * holds `asOfMs`, outcomes after `asOfMs` left out. Each week's figures are `computeMetricSet`'s
 * over the outcomes labelled that week alone: a finding counts in every week it got a label, with
 * the final label and confidence of its latest outcome of that week. So the weekly false-positive
 * rate is the share of that week's labelled findings whose last label that week was rejected_fp;
 * precision@k looks at that week's k most confident findings; the calibration error compares
 * that week's confidences with that week's verdicts. Empty weeks have null figures. O(n log n).
 * Throws RangeError for weeks outside 1..MAX_WEEKS, a bad k or an invalid time.
 */
export function weeklyTriage(outcomes: readonly MetricOutcome[], options: WeeklyTriageOptions): WeeklyTriageReport {
  const { asOf, firstStartMs } = checkWeeklyOptions(options);
  const byWeek: MetricOutcome[][] = Array.from({ length: options.weeks }, () => []);
  for (const o of outcomes) {
    if (o.tsMs < firstStartMs || o.tsMs > options.asOfMs) continue;
    byWeek[Math.floor((o.tsMs - firstStartMs) / WEEK_MS)]?.push(o);
  }
  const series = byWeek.map((week, i) => weekPoint(week, firstStartMs + i * WEEK_MS, options));
  return { as_of: asOf.toISOString(), k: options.k, weeks: options.weeks, series };
}

/** Checks `weeklyTriage`'s options (throws RangeError); returns as-of and the first week's start. */
export function checkWeeklyOptions(options: WeeklyTriageOptions): { asOf: Date; firstStartMs: number } {
  if (!Number.isInteger(options.weeks) || options.weeks < 1 || options.weeks > MAX_WEEKS) throw new RangeError(`weeks must be an integer from 1 to ${MAX_WEEKS}, got ${options.weeks}`);
  if (!Number.isInteger(options.k) || options.k < 1) throw new RangeError(`k must be a positive integer, got ${options.k}`);
  const asOf = new Date(options.asOfMs);
  if (Number.isNaN(asOf.getTime())) throw new RangeError(`asOfMs must be a valid time, got ${options.asOfMs}`);
  return { asOf, firstStartMs: utcWeekStartMs(options.asOfMs) - (options.weeks - 1) * WEEK_MS };
}


/** One week's point from the outcomes labelled in it (those after `asOfMs` already left out). */
export function weekPoint(week: MetricOutcome[], startMs: number, options: WeeklyTriageOptions): WeeklyTriagePoint {
  const ordered = week.sort((a, b) => compareText(a.findingKey, b.findingKey) || compareOutcomes(a, b));
  const set = computeMetricSet(summarizeFindings(ordered, new Map()), ordered, { asOfMs: Math.min(startMs + WEEK_MS, options.asOfMs), k: options.k });
  return pointOf(startMs, set);
}

/** A week's point from its figures. */
export function pointOf(startMs: number, set: Omit<WeeklyTriagePoint, 'week_start' | 'week_end'>): WeeklyTriagePoint {
  return {
    week_start: new Date(startMs).toISOString(),
    week_end: new Date(startMs + WEEK_MS).toISOString(),
    outcomes: set.outcomes,
    findings: set.findings,
    false_positive_rate: set.false_positive_rate,
    precision_at_k: set.precision_at_k,
    precision_k: set.precision_k,
    calibration_error: set.calibration_error,
    avg_reward: set.avg_reward,
  };
}
