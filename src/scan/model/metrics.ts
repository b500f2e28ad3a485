import { DAY_MS, HOUR_MS } from './grouping';
import { difference, type ModelDelta, modelDeltas, pickSlices, ratio, type SliceFields, sliceRecord } from './metric-slices';
import { compareOutcomes, compareText, type FindingSummary, type MetricOutcome, summarizeFindings } from './findings';

export type { ModelDelta } from './metric-slices';
export type { FindingSummary, MetricOutcome } from './findings';

/** Windows, in days, over which `drift` compares the newest outcomes with the ones before. */
export const DRIFT_DAYS = [7, 28] as const;

export interface MetricOptions {
  asOfMs: number;
  /** How many of the most confident findings `precision_at_k` looks at; a positive integer. */
  k: number;
  /** The most slices per dimension (project, scanner, model) the report shows (`pickSlices`); every slice when absent. */
  slices?: number;
}

/**
 * Outcome-level change over `days`, in whole UTC hours: with H the start of as_of's hour, recent =
 * outcomes with ts in [H − days, H), previous = [H − 2·days, H − days) (the outcomes of as_of's
 * own hour wait for the next report; so the rollup reads drift from hour and day tallies alone, at
 * a cost that does not grow with the outcomes per hour). false_positive_rate = rejected_fp outcomes / outcomes in the
 * window, avg_reward = mean outcome reward; null for an empty window; delta = recent − previous,
 * null when either is null.
 */
export interface Drift {
  days: number;
  recent_outcomes: number;
  previous_outcomes: number;
  false_positive_rate_recent: number | null;
  false_positive_rate_previous: number | null;
  false_positive_rate_delta: number | null;
  avg_reward_recent: number | null;
  avg_reward_previous: number | null;
  avg_reward_delta: number | null;
}

/** Quality of one slice of findings; each figure is defined in `computeMetricSet`. */
export interface MetricSet {
  findings: number;
  outcomes: number;
  precision_at_k: number | null;
  precision_k: number;
  false_positive_rate: number | null;
  accepted_to_fixed: number | null;
  reopened_rate: number | null;
  median_time_to_fix_hours: number | null;
  calibration_error: number | null;
  avg_reward: number | null;
  drift: { d7: Drift; d28: Drift };
}

export interface ScanMetricsReport {
  as_of: string;
  k: number;
  overall: MetricSet;
  by_project: Record<string, MetricSet>;
  by_scanner: Record<string, MetricSet>;
  by_model: Record<string, MetricSet>;
  /** Per-model deltas: for each shown project's (project, scanner) pairs with two or more models, each model against that pair's pooled figures. */
  model_deltas: ModelDelta[];
  /** How many slices each dimension has in all: `by_*` show at most `slice_limit` of them, those with the most outcomes. */
  slice_totals: { project: number; scanner: number; model: number };
  /** The most slices per dimension shown; null: every one. */
  slice_limit: number | null;
}

/**
 * Expected calibration error of predicted probabilities `p` in [0,1] against outcomes `y`:
 * `bins` equal-width bins on [0,1] (p = 1 goes in the last bin), then
 * ECE = Σ over non-empty bins (n_b / N)·|mean p_b − mean y_b| = Σ_b |Σp_b − Σy_b| / N.
 * In [0,1]; 0 for perfect calibration; null for no pairs. Throws on p outside [0,1].
 */
export function expectedCalibrationError(pairs: readonly { p: number; y: 0 | 1 }[], bins = 10): number | null {
  const calibration = new CalibrationBins(bins);
  for (const { p, y } of pairs) calibration.add(p, y);
  return calibration.error();
}

/** `expectedCalibrationError` added to one pair at a time (the same sums in the same order). */
export class CalibrationBins {
  private readonly gap: Float64Array;
  private pairs = 0;

  constructor(private readonly bins = 10) {
    if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`bins must be a positive integer, got ${bins}`);
    this.gap = new Float64Array(bins);
  }

  add(p: number, y: 0 | 1): void {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0,1], got ${p}`);
    const bin = Math.min(Math.floor(p * this.bins), this.bins - 1);
    this.gap[bin] = (this.gap[bin] as number) + p - y;
    this.pairs++;
  }

  /** The error of the pairs added; null for none. */
  error(): number | null {
    if (this.pairs === 0) return null;
    let total = 0;
    for (const g of this.gap) total += Math.abs(g);
    return Math.min(1, total / this.pairs);
  }
}

/** Median: the middle value, or the mean of the two middle values for an even count; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
}

/** Outcomes of one drift window: how many, how many rejected_fp, their reward sum. */
export interface DriftWindow {
  n: number;
  rejected: number;
  rewardSum: number;
}

/** The two windows of drift over `days` at `asOfMs`, each [loMs, hiMs): whole UTC hours ending at the start of as_of's hour (see `Drift`). */
export function driftWindows(asOfMs: number, days: number): { recent: { loMs: number; hiMs: number }; previous: { loMs: number; hiMs: number } } {
  const end = Math.floor(asOfMs / HOUR_MS) * HOUR_MS;
  const spanMs = days * DAY_MS;
  return { recent: { loMs: end - spanMs, hiMs: end }, previous: { loMs: end - 2 * spanMs, hiMs: end - spanMs } };
}

/**
 * The times a report kept for reuse must be computed for, seen at `nowMs`: a report depends on the
 * hour of its as_of (`driftWindows`), so now's hour, and the next one when it starts within
 * `aheadMs` (a read just after the hour turns then finds it computed).
 */
export function reportHoursAhead(nowMs: number, aheadMs: number): number[] {
  const nextHourMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  return nextHourMs - nowMs <= aheadMs ? [nowMs, nextHourMs] : [nowMs];
}

/** The first time after `nowMs` that is `aheadMs` before an hour turns: when `reportHoursAhead` next adds an hour. */
export function nextHourAheadAt(nowMs: number, aheadMs: number): number {
  const at = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS - aheadMs;
  return at > nowMs ? at : at + HOUR_MS;
}

/** Drift of `outcomes` over `days` at `asOfMs`; see `Drift`. */
export function driftOver(outcomes: readonly MetricOutcome[], asOfMs: number, days: number): Drift {
  const windows = driftWindows(asOfMs, days);
  const within = (ts: number, w: { loMs: number; hiMs: number }) => ts >= w.loMs && ts < w.hiMs;
  const recent = { n: 0, rejected: 0, rewardSum: 0 };
  const previous = { n: 0, rejected: 0, rewardSum: 0 };
  for (const o of outcomes) {
    const window = within(o.tsMs, windows.recent) ? recent : within(o.tsMs, windows.previous) ? previous : null;
    if (!window) continue;
    window.n++;
    if (o.label === 'rejected_fp') window.rejected++;
    window.rewardSum += o.reward;
  }
  return driftOf(days, recent, previous);
}

/** `Drift` over `days` from its two windows' counts. */
export function driftOf(days: number, recent: DriftWindow, previous: DriftWindow): Drift {
  const fpRecent = ratio(recent.rejected, recent.n);
  const fpPrevious = ratio(previous.rejected, previous.n);
  const rewardRecent = ratio(recent.rewardSum, recent.n);
  const rewardPrevious = ratio(previous.rewardSum, previous.n);
  return {
    days,
    recent_outcomes: recent.n,
    previous_outcomes: previous.n,
    false_positive_rate_recent: fpRecent,
    false_positive_rate_previous: fpPrevious,
    false_positive_rate_delta: difference(fpRecent, fpPrevious),
    avg_reward_recent: rewardRecent,
    avg_reward_previous: rewardPrevious,
    avg_reward_delta: difference(rewardRecent, rewardPrevious),
  };
}

/**
 * The metrics of one slice. A finding is confirmed when its final label is fixed, accepted or
 * reopened (ignored: unconfirmed, rejected_fp: refuted).
 * - precision_at_k: of findings with a confidence, sorted by confidence desc then findingKey asc,
 *   the top precision_k = min(k, available): confirmed / precision_k; null when precision_k = 0.
 * - false_positive_rate: findings whose final label is rejected_fp / findings.
 * - accepted_to_fixed: of findings with an accepted outcome, the fraction with a fixed outcome
 *   at or after the first accepted one.
 * - reopened_rate: of findings with a fixed outcome, the fraction with a reopened outcome.
 * - median_time_to_fix_hours: median of (first fixed − first seen) over fixed findings, zero
 *   durations excluded (see `summarizeFindings`).
 * - calibration_error: `expectedCalibrationError` of (confidence, confirmed ? 1 : 0) per finding.
 * - avg_reward: mean reward over outcomes. drift: `driftOver` for 7 and 28 days.
 * Any figure with an empty denominator is null.
 */
export function computeMetricSet(
  findings: readonly FindingSummary[],
  outcomes: readonly MetricOutcome[],
  options: MetricOptions,
): MetricSet {
  let rejected = 0;
  let accepted = 0;
  let acceptedThenFixed = 0;
  let fixed = 0;
  let fixedThenReopened = 0;
  const hoursToFix: number[] = [];
  const confident: { findingKey: string; p: number; y: 0 | 1 }[] = [];
  for (const f of findings) {
    if (f.finalLabel === 'rejected_fp') rejected++;
    if (f.hasAccepted) {
      accepted++;
      if (f.fixedAfterAccepted) acceptedThenFixed++;
    }
    if (f.hasFixed) {
      fixed++;
      if (f.hasReopened) fixedThenReopened++;
    }
    if (f.hoursToFix !== null) hoursToFix.push(f.hoursToFix);
    if (f.scannerConfidence !== undefined) confident.push({ findingKey: f.findingKey, p: f.scannerConfidence, y: f.confirmed ? 1 : 0 });
  }
  confident.sort((a, b) => b.p - a.p || compareText(a.findingKey, b.findingKey));
  const top = confident.slice(0, Math.max(0, Math.min(options.k, confident.length)));
  let rewardSum = 0;
  for (const o of outcomes) rewardSum += o.reward;
  return {
    findings: findings.length,
    outcomes: outcomes.length,
    precision_at_k: ratio(top.reduce((sum, c) => sum + c.y, 0), top.length),
    precision_k: top.length,
    false_positive_rate: ratio(rejected, findings.length),
    accepted_to_fixed: ratio(acceptedThenFixed, accepted),
    reopened_rate: ratio(fixedThenReopened, fixed),
    median_time_to_fix_hours: median(hoursToFix),
    calibration_error: expectedCalibrationError(confident),
    avg_reward: ratio(rewardSum, outcomes.length),
    drift: { d7: driftOver(outcomes, options.asOfMs, DRIFT_DAYS[0]), d28: driftOver(outcomes, options.asOfMs, DRIFT_DAYS[1]) },
  };
}

/**
 * Quality metrics of scan findings from their labelled outcomes, overall and per project,
 * scanner and model, plus per-model deltas within each (project, scanner) pair. A finding = all
 * outcomes with one findingKey; its final label, slice and confidence are those of its latest
 * outcome (`compareOutcomes`; confidence from the latest outcome that has one). Findings go to
 * the slice of their latest outcome; outcome-level figures (outcomes, avg_reward, drift) use
 * each outcome's own slice. `firstSeenMs`: when a finding was first seen, where known. Outcomes
 * are first sorted into a canonical order (findingKey, then `compareOutcomes`) so that float sums
 * do not depend on input order; with map keys and rows sorted too, the JSON is the same for any
 * input order. O(n log n).
 * Throws RangeError when k is not a positive integer or asOfMs is not a valid time.
 */
export function computeScanMetrics(
  outcomes: readonly MetricOutcome[],
  firstSeenMs: ReadonlyMap<string, number>,
  options: MetricOptions,
): ScanMetricsReport {
  const asOf = checkMetricOptions(options);
  const ordered = [...outcomes].sort((a, b) => compareText(a.findingKey, b.findingKey) || compareOutcomes(a, b));
  const findings = summarizeFindings(ordered, firstSeenMs);
  const compute = (f: readonly FindingSummary[], o: readonly MetricOutcome[]) => computeMetricSet(f, o, options);
  const limit = options.slices ?? Number.POSITIVE_INFINITY;
  const shown = {
    project: pickSlices(ordered, (x) => x.project, limit),
    scanner: pickSlices(ordered, (x) => x.scanner, limit),
    model: pickSlices(ordered, (x) => x.model, limit),
  };
  const record = (dim: keyof typeof shown) => {
    const keep = (x: SliceFields) => shown[dim].keys.has(x[dim]);
    return sliceRecord(findings.filter(keep), ordered.filter(keep), (x) => x[dim], compute);
  };
  const inShownProject = (x: SliceFields) => shown.project.keys.has(x.project);
  return {
    as_of: asOf.toISOString(),
    k: options.k,
    overall: compute(findings, ordered),
    by_project: record('project'),
    by_scanner: record('scanner'),
    by_model: record('model'),
    model_deltas: modelDeltas(findings.filter(inShownProject), ordered.filter(inShownProject)),
    slice_totals: { project: shown.project.total, scanner: shown.scanner.total, model: shown.model.total },
    slice_limit: options.slices ?? null,
  };
}

/** Checks `computeScanMetrics`' options (throws RangeError); returns as-of as a Date. */
export function checkMetricOptions(options: MetricOptions): Date {
  if (!Number.isInteger(options.k) || options.k < 1) throw new RangeError(`k must be a positive integer, got ${options.k}`);
  if (options.slices !== undefined && (!Number.isInteger(options.slices) || options.slices < 1)) throw new RangeError(`slices must be a positive integer, got ${options.slices}`);
  const asOf = new Date(options.asOfMs);
  if (Number.isNaN(asOf.getTime())) throw new RangeError(`asOfMs must be a valid time, got ${options.asOfMs}`);
  return asOf;
}
