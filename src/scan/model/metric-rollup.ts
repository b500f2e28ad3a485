import { DAY_MS, HOUR_MS } from './grouping';
import { CONFIRMED_LABELS, type FindingSummary, LIFECYCLE_RANK, type MetricOutcome, summarizeFindings } from './findings';
import type { OutcomeLabel } from './outcome';
import { utcWeekStartMs } from './weekly-triage';

/**
 * What the metrics rollup stores, as pure functions: the state of a finding, its contributions
 * to the rolled-up counts (`Tally`), the buckets those counts use, and the day windows of drift.
 * `metric-rollup-report.ts` turns read counts back into `computeScanMetrics`' figures.
 */

/** What a tally row counts. `size`: a slice's outcomes in all (bucket 0), in rollups of format 1 and 2 only (now `metric_slice_sizes`). */
export const TALLY_KIND = { outcome: 0, label: 1, flags: 2, ece: 3, fix: 4, size: 5 } as const;

/**
 * Which slice a tally row counts for: every finding, one project, one scanner, one model (the
 * other slice columns ''), or one (project, scanner, model) triple (only outcome and label
 * counts, for the model deltas). So the report reads the rows of the slices it shows, never a
 * sum over every triple.
 */
export const GRAIN = { overall: 0, project: 1, scanner: 2, model: 3, triple: 4 } as const;

/** The grains whose slices have sizes (`metric_slice_sizes`), each with its dimension: also the name of the tally column that names its slice. */
export const SIZED_GRAINS = [
  { dim: 'project', grain: GRAIN.project },
  { dim: 'scanner', grain: GRAIN.scanner },
  { dim: 'model', grain: GRAIN.model },
] as const;

/** A tally row as stored: a `Tally` at one grain. */
export interface GrainTally extends Tally {
  grain: number;
}

/**
 * The stored rows of an all-time or weekly tally: weekly ones count for every finding only;
 * all-time ones for every finding, its project, scanner and model, and (label counts) its triple.
 */
export function grainsOf(t: Tally): GrainTally[] {
  const blank = { project: '', scanner: '', model: '' };
  if (t.scope !== ALL_SCOPE) return [{ ...t, ...blank, grain: GRAIN.overall }];
  const rows: GrainTally[] = [
    { ...t, ...blank, grain: GRAIN.overall },
    { ...t, ...blank, project: t.project, grain: GRAIN.project },
    { ...t, ...blank, scanner: t.scanner, grain: GRAIN.scanner },
    { ...t, ...blank, model: t.model, grain: GRAIN.model },
  ];
  if (t.kind === TALLY_KIND.label) rows.push({ ...t, grain: GRAIN.triple });
  return rows;
}
/** Bins of `expectedCalibrationError` as the metrics use it. */
export const ECE_BINS = 10;
/** The all-time scope of a tally. */
export const ALL_SCOPE = 'all';
/** The scope of the slices' sizes in a rollup of format 2 (`ROLLUP_FORMAT`); format 3 keeps them in `metric_slice_sizes`. */
export const SIZE_SCOPE = 'size';

/** Labels by `LIFECYCLE_RANK`. */
export const LABEL_BY_RANK = Object.entries(LIFECYCLE_RANK)
  .sort((a, b) => a[1] - b[1])
  .map(([label]) => label as OutcomeLabel);

/** Flag bits of a finding (`FindingSummary`). */
export const FLAG = { accepted: 1, fixedAfterAccepted: 2, fixed: 4, reopened: 8 } as const;

/** The scope of a UTC day, 'd:YYYY-MM-DD' (the outcome tallies of drift). */
export const dayScope = (ms: number): string => `d:${new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10)}`;
/** The scope of the UTC week holding `ms`, 'w:' + its Monday. */
export const weekScope = (ms: number): string => `w:${new Date(utcWeekStartMs(ms)).toISOString().slice(0, 10)}`;

/** Bin of `expectedCalibrationError` (p = 1 in the last). */
export const eceBin = (p: number): number => Math.min(Math.floor(p * ECE_BINS), ECE_BINS - 1);

/**
 * Bucket of a positive time to fix: the exponent and top two mantissa bits of the double, so
 * buckets are in the order of the values (four per doubling) and a value's bucket is exact.
 */
export function fixBucket(hours: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, hours);
  return view.getUint32(0) >>> 18;
}

/** A finding key as UTF-16 code units, big-endian, in hex: byte order = code-unit order (`compareText`). */
export function keyOrderHex(key: string): string {
  let hex = '';
  for (let i = 0; i < key.length; i++) hex += key.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}

/** What the rollup keeps of a finding: its slice, final label, flags, confidence and time to fix. */
export interface FindingMetricState {
  project: string;
  scanner: string;
  model: string;
  finalRank: number;
  confirmed: boolean;
  flags: number;
  confidence: number | null;
  hoursToFix: number | null;
}

export function findingState(f: FindingSummary): FindingMetricState {
  return {
    project: f.project,
    scanner: f.scanner,
    model: f.model,
    finalRank: LIFECYCLE_RANK[f.finalLabel],
    confirmed: f.confirmed,
    flags: (f.hasAccepted ? FLAG.accepted : 0) | (f.hasAccepted && f.fixedAfterAccepted ? FLAG.fixedAfterAccepted : 0) | (f.hasFixed ? FLAG.fixed : 0) | (f.hasFixed && f.hasReopened ? FLAG.reopened : 0),
    confidence: f.scannerConfidence ?? null,
    hoursToFix: f.hoursToFix,
  };
}

/** One counted contribution to a tally row; `n` is +1 or −1 (a finding moving), `p` an exact-summed value. */
export interface Tally {
  scope: string;
  project: string;
  scanner: string;
  model: string;
  kind: number;
  bucket: number;
  n: number;
  p: number;
  y: number;
}

/** The all-time tallies a finding adds (sign +1) or takes back (sign −1). */
export function findingTallies(s: FindingMetricState, sign: 1 | -1): Tally[] {
  const at = (kind: number, bucket: number, p = 0, y = 0): Tally => ({ scope: ALL_SCOPE, project: s.project, scanner: s.scanner, model: s.model, kind, bucket, n: sign, p: sign * p, y: sign * y });
  const tallies = [at(TALLY_KIND.label, s.finalRank), at(TALLY_KIND.flags, s.flags)];
  if (s.confidence !== null) tallies.push(at(TALLY_KIND.ece, eceBin(s.confidence), s.confidence, s.confirmed ? 1 : 0));
  if (s.hoursToFix !== null) tallies.push(at(TALLY_KIND.fix, fixBucket(s.hoursToFix)));
  return tallies;
}

/** A finding within one UTC week: the label and confidence of its latest outcome that week. */
export interface WeekFindingState {
  week: string;
  finalRank: number;
  confirmed: boolean;
  confidence: number | null;
}

/** The weekly tallies (no slice) a finding's week adds or takes back. */
export function weekFindingTallies(s: WeekFindingState, sign: 1 | -1): Tally[] {
  const at = (kind: number, bucket: number, p = 0, y = 0): Tally => ({ scope: s.week, project: '', scanner: '', model: '', kind, bucket, n: sign, p: sign * p, y: sign * y });
  const tallies = [at(TALLY_KIND.label, s.finalRank)];
  if (s.confidence !== null) tallies.push(at(TALLY_KIND.ece, eceBin(s.confidence), s.confidence, s.confirmed ? 1 : 0));
  return tallies;
}

/**
 * The rollup state of one finding from all its outcomes (`summarizeFindings`, first seen from
 * `firstSeenMs` when known) and its state in each UTC week it has outcomes in.
 */
export function statesOfFinding(outcomes: readonly MetricOutcome[], firstSeenMs: number | undefined): { finding: FindingMetricState; weeks: WeekFindingState[] } | null {
  const key = outcomes[0]?.findingKey;
  if (key === undefined) return null;
  const [summary] = summarizeFindings(outcomes, firstSeenMs === undefined ? new Map() : new Map([[key, firstSeenMs]]));
  const byWeek = new Map<string, MetricOutcome[]>();
  for (const o of outcomes) {
    const week = weekScope(o.tsMs);
    byWeek.set(week, [...(byWeek.get(week) ?? []), o]);
  }
  const weeks = [...byWeek].map(([week, inWeek]): WeekFindingState => {
    const [s] = summarizeFindings(inWeek, new Map()) as [FindingSummary];
    return { week, finalRank: LIFECYCLE_RANK[s.finalLabel], confirmed: CONFIRMED_LABELS[s.finalLabel], confidence: s.scannerConfidence ?? null };
  });
  return { finding: findingState(summary as FindingSummary), weeks };
}

/** Same state (so no tally moves). */
export const sameState = <T extends object>(a: T | undefined, b: T | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The scope of a UTC hour, 'h:YYYY-MM-DDTHH' (the outcome tallies of drift's partial days). */
export const hourScope = (ms: number): string => `h:${new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13)}`;

/**
 * The scopes whose outcome tallies make up the window [loMs, hiMs) of drift (both on whole UTC
 * hours, `driftWindows`): its whole UTC days, and the hours of its partial days. Each time in the
 * window is in exactly one of them.
 */
export function wholeHourScopes(loMs: number, hiMs: number): string[] {
  if (loMs % HOUR_MS !== 0 || hiMs % HOUR_MS !== 0) throw new RangeError(`a drift window starts and ends on whole hours, got ${loMs}..${hiMs}`);
  const scopes: string[] = [];
  const hours = (from: number, to: number) => {
    for (let h = from; h < to; h += HOUR_MS) scopes.push(hourScope(h));
  };
  const d1 = Math.ceil(loMs / DAY_MS) * DAY_MS;
  const d2 = Math.floor(hiMs / DAY_MS) * DAY_MS;
  if (d2 > d1) {
    hours(loMs, d1);
    for (let d = d1; d < d2; d += DAY_MS) scopes.push(dayScope(d));
    hours(d2, hiMs);
  } else hours(loMs, hiMs);
  return scopes;
}

/**
 * Where the `ranks` (0-based, ascending) of a sorted list fall among bucket counts (ascending
 * buckets): for each rank, its bucket and its offset within the bucket.
 */
export function locateRanks(buckets: readonly (readonly [number, number])[], ranks: readonly number[]): { bucket: number; offset: number }[] {
  return ranks.map((rank) => {
    let before = 0;
    for (const [bucket, n] of buckets) {
      if (rank < before + n) return { bucket, offset: rank - before };
      before += n;
    }
    throw new RangeError(`rank ${rank} is past the ${before} counted values`);
  });
}

/** The 0-based ranks whose values make the median of `n` sorted values: one for odd n, two for even, none for 0. */
export const medianRanks = (n: number): number[] => (n === 0 ? [] : n % 2 === 1 ? [n >> 1] : [(n >> 1) - 1, n >> 1]);
