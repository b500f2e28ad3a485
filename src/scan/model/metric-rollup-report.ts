import { compareText } from './findings';
import { DRIFT_DAYS, driftOf, type DriftWindow, type MetricSet, type ScanMetricsReport } from './metrics';
import { deltasOfPairs, ratio, type Tally as PairTally } from './metric-slices';
import { FLAG, LABEL_BY_RANK, locateRanks, medianRanks, TALLY_KIND } from './metric-rollup';
import { LIFECYCLE_RANK } from './findings';

/**
 * `computeScanMetrics`' report from rolled-up counts instead of outcome rows. Figures are the
 * same; sums (rewards, calibration gaps) are exact sums rounded once, where the row path adds
 * doubles, so they may differ from it in the last bits.
 */

/** A slice of the report: every finding ('overall'), or one project, scanner or model. */
export type SliceDim = 'overall' | 'project' | 'scanner' | 'model';
export const SLICE_DIMS: readonly SliceDim[] = ['overall', 'project', 'scanner', 'model'];

/** A summed tally row of one slice (`value` '' for overall); `p` and `gap` (= p − y) exact sums rounded. */
export interface SliceTallyRow {
  dim: SliceDim | 'triple';
  value: string;
  project?: string;
  scanner?: string;
  model?: string;
  kind: number;
  bucket: number;
  n: number;
  p: number;
  gap: number;
}

/** What one slice's figures are computed from. */
export interface SliceCounts {
  outcomes: number;
  rewardSum: number;
  findingsByRank: number[];
  flags: [number, number][];
  eceGaps: [number, number][];
  eceN: number;
  /** Fix-time buckets, ascending, with their counts. */
  fixBuckets: [number, number][];
}

export const sliceId = (dim: SliceDim, value: string): string => `${dim}\u0000${value}`;

export const emptyCounts = (): SliceCounts => ({ outcomes: 0, rewardSum: 0, findingsByRank: LABEL_BY_RANK.map(() => 0), flags: [], eceGaps: [], eceN: 0, fixBuckets: [] });

/** Adds `value` to the entry of `bucket`. */
function addTo(entries: [number, number][], bucket: number, value: number): void {
  const entry = entries.find(([b]) => b === bucket);
  if (entry) entry[1] += value;
  else entries.push([bucket, value]);
}

/** Folds tally rows into counts per slice (`sliceId`); slices are those with outcomes. */
export function sliceCounts(rows: readonly SliceTallyRow[]): Map<string, SliceCounts> {
  const slices = new Map<string, SliceCounts>();
  for (const r of rows) {
    if (r.dim === 'triple') continue;
    const id = sliceId(r.dim, r.value);
    const c = slices.get(id) ?? emptyCounts();
    slices.set(id, c);
    if (r.kind === TALLY_KIND.outcome) {
      c.outcomes += r.n;
      c.rewardSum += r.p;
    } else if (r.kind === TALLY_KIND.label) c.findingsByRank[r.bucket] = (c.findingsByRank[r.bucket] ?? 0) + r.n;
    else if (r.kind === TALLY_KIND.flags) addTo(c.flags, r.bucket, r.n);
    else if (r.kind === TALLY_KIND.ece) {
      addTo(c.eceGaps, r.bucket, r.gap);
      c.eceN += r.n;
    } else if (r.kind === TALLY_KIND.fix && r.n !== 0) addTo(c.fixBuckets, r.bucket, r.n);
  }
  for (const [id, c] of slices) {
    if (c.outcomes === 0 && !id.startsWith('overall')) slices.delete(id);
    c.eceGaps.sort((a, b) => a[0] - b[0]);
    c.fixBuckets = c.fixBuckets.filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0]);
  }
  return slices;
}

/** The ranks of a slice's median time to fix, located in its buckets. */
export const medianPlan = (c: SliceCounts) => locateRanks(c.fixBuckets, medianRanks(c.fixBuckets.reduce((sum, [, n]) => sum + n, 0)));

/** What a slice needs beyond its counts: its top-k and median values, read from findings, and its drift windows. */
export interface SliceReads {
  topConfirmed: number;
  topTaken: number;
  medianValues: number[];
  /** d7 recent, d7 previous, d28 recent, d28 previous. */
  drift: DriftWindow[];
}

/** Calibration error from per-bin gaps: Σ|gap| / N, capped at 1; null for N = 0 (as `expectedCalibrationError`). */
export const calibrationOf = (gaps: readonly [number, number][], n: number): number | null =>
  n === 0 ? null : Math.min(1, gaps.reduce((sum, [, g]) => sum + Math.abs(g), 0) / n);

/** A slice's `MetricSet`, each figure as `computeMetricSet` defines it. */
export function metricSetOf(c: SliceCounts, reads: SliceReads): MetricSet {
  const findings = c.findingsByRank.reduce((sum, n) => sum + n, 0);
  const withFlag = (mask: number) => c.flags.reduce((sum, [flags, n]) => sum + ((flags & mask) === mask ? n : 0), 0);
  const [a, b] = reads.medianValues;
  const none: DriftWindow = { n: 0, rejected: 0, rewardSum: 0 };
  const [d7r = none, d7p = none, d28r = none, d28p = none] = reads.drift;
  return {
    findings,
    outcomes: c.outcomes,
    precision_at_k: ratio(reads.topConfirmed, reads.topTaken),
    precision_k: reads.topTaken,
    false_positive_rate: ratio(c.findingsByRank[LIFECYCLE_RANK.rejected_fp] ?? 0, findings),
    accepted_to_fixed: ratio(withFlag(FLAG.accepted | FLAG.fixedAfterAccepted), withFlag(FLAG.accepted)),
    reopened_rate: ratio(withFlag(FLAG.fixed | FLAG.reopened), withFlag(FLAG.fixed)),
    median_time_to_fix_hours: a === undefined ? null : b === undefined ? a : (a + b) / 2,
    calibration_error: calibrationOf(c.eceGaps, c.eceN),
    avg_reward: ratio(c.rewardSum, c.outcomes),
    drift: { d7: driftOf(DRIFT_DAYS[0], d7r, d7p), d28: driftOf(DRIFT_DAYS[1], d28r, d28p) },
  };
}

/** Model deltas from the per-(project, scanner, model) tally rows. */
function modelDeltasOf(rows: readonly SliceTallyRow[]) {
  const pairs = new Map<string, Map<string, Map<string, PairTally>>>();
  for (const r of rows) {
    if (r.dim !== 'triple' || (r.kind !== TALLY_KIND.outcome && r.kind !== TALLY_KIND.label)) continue;
    const [project, scanner, model] = [r.project ?? '', r.scanner ?? '', r.model ?? ''];
    const scanners = pairs.get(project) ?? new Map<string, Map<string, PairTally>>();
    pairs.set(project, scanners);
    const models = scanners.get(scanner) ?? new Map<string, PairTally>();
    scanners.set(scanner, models);
    const t = models.get(model) ?? { findings: 0, rejected: 0, outcomes: 0, rewardSum: 0 };
    models.set(model, t);
    if (r.kind === TALLY_KIND.outcome) {
      t.outcomes += r.n;
      t.rewardSum += r.p;
    } else {
      t.findings += r.n;
      if (r.bucket === LIFECYCLE_RANK.rejected_fp) t.rejected += r.n;
    }
  }
  return deltasOfPairs(pairs);
}

/** The report from slice counts and reads (both by `sliceId`) and the per-triple rows. */
export function reportOf(
  asOfMs: number,
  k: number,
  counts: ReadonlyMap<string, SliceCounts>,
  reads: ReadonlyMap<string, SliceReads>,
  rows: readonly SliceTallyRow[],
): Omit<ScanMetricsReport, 'slice_totals' | 'slice_limit'> {
  const setOf = (dim: SliceDim, value: string) => {
    const id = sliceId(dim, value);
    return metricSetOf(counts.get(id) ?? emptyCounts(), reads.get(id) ?? { topConfirmed: 0, topTaken: 0, medianValues: [], drift: [] });
  };
  const record = (dim: SliceDim) => {
    const values = [...counts.keys()].filter((id) => id.startsWith(`${dim}\u0000`)).map((id) => id.slice(dim.length + 1)).sort(compareText);
    return Object.fromEntries(values.map((value) => [value, setOf(dim, value)]));
  };
  return {
    as_of: new Date(asOfMs).toISOString(),
    k,
    overall: setOf('overall', ''),
    by_project: record('project'),
    by_scanner: record('scanner'),
    by_model: record('model'),
    model_deltas: modelDeltasOf(rows),
  };
}
