import type { OutcomeLabel } from './outcome';

export const HOUR_MS = 3_600_000;

/** One labelled outcome of a scan finding, as the metrics see it. */
export interface MetricOutcome {
  findingKey: string;
  label: OutcomeLabel;
  tsMs: number;
  project: string;
  scanner: string;
  /** "provider/name". */
  model: string;
  /** The scanner's confidence in the finding, in [0,1] (the outcome row's `confidence`). */
  scannerConfidence?: number;
  reward: number;
}

/**
 * Lifecycle order of labels: of two outcomes of one finding at the same time, the one whose
 * label is later here is the later outcome (accepted < ignored < rejected_fp < fixed < reopened).
 */
export const LIFECYCLE_RANK: Record<OutcomeLabel, number> = {
  accepted: 0,
  ignored: 1,
  rejected_fp: 2,
  fixed: 3,
  reopened: 4,
};

/** A finding is confirmed when its final label is fixed, accepted or reopened. */
export const CONFIRMED_LABELS: Record<OutcomeLabel, boolean> = {
  fixed: true,
  accepted: true,
  reopened: true,
  ignored: false,
  rejected_fp: false,
};

/** What the metrics need of one finding (all outcomes sharing a `findingKey`). */
export interface FindingSummary {
  findingKey: string;
  /** Label of the latest outcome. */
  finalLabel: OutcomeLabel;
  /** Slice of the latest outcome. */
  project: string;
  scanner: string;
  model: string;
  /** The scanner's confidence of the latest outcome that has one. */
  scannerConfidence: number | undefined;
  confirmed: boolean;
  hasAccepted: boolean;
  /** A `fixed` outcome at or after the first `accepted` one. */
  fixedAfterAccepted: boolean;
  hasFixed: boolean;
  hasReopened: boolean;
  /** First fixed time − first seen; null when never fixed or fixed at first sight (0). */
  hoursToFix: number | null;
}

/** Code-unit order of strings: locale-independent, so output never depends on the machine. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Order of strings by Unicode code point, as PostgreSQL orders text `COLLATE "C"` in a UTF-8
 * database (byte order). It differs from `compareText` only where a character at or above U+E000
 * meets one beyond U+FFFF (a surrogate pair, which code units put first).
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const surrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
    // A surrogate (part of a character beyond U+FFFF) ranks above every other code unit.
    if (surrogate(x) !== surrogate(y)) return surrogate(x) ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Total order of a finding's outcomes, latest last: by time, then lifecycle rank, then (only so
 * that input order never matters) project, scanner, model, confidence (absent first), reward.
 */
export function compareOutcomes(a: MetricOutcome, b: MetricOutcome): number {
  return (
    a.tsMs - b.tsMs ||
    LIFECYCLE_RANK[a.label] - LIFECYCLE_RANK[b.label] ||
    compareText(a.project, b.project) ||
    compareText(a.scanner, b.scanner) ||
    compareText(a.model, b.model) ||
    (a.scannerConfidence ?? -1) - (b.scannerConfidence ?? -1) ||
    a.reward - b.reward
  );
}

/** A finding's latest outcome and its latest one with a confidence (`compareOutcomes` order). */
export interface LatestOutcomes {
  latest: MetricOutcome;
  latestConfident: MetricOutcome | undefined;
}

/** Keeps `o` as the latest outcome of `held`, and as its latest confident one, where it is later (outcomes may come in any order). */
export function keepLatest(held: LatestOutcomes, o: MetricOutcome): void {
  if (compareOutcomes(o, held.latest) > 0) held.latest = o;
  if (o.scannerConfidence !== undefined && (!held.latestConfident || compareOutcomes(o, held.latestConfident) > 0)) held.latestConfident = o;
}

interface FindingFold extends LatestOutcomes {
  earliestMs: number;
  firstAcceptedMs: number;
  firstFixedMs: number;
  lastFixedMs: number;
  hasReopened: boolean;
}

function foldOutcome(fold: FindingFold, o: MetricOutcome): void {
  keepLatest(fold, o);
  fold.earliestMs = Math.min(fold.earliestMs, o.tsMs);
  if (o.label === 'accepted') fold.firstAcceptedMs = Math.min(fold.firstAcceptedMs, o.tsMs);
  if (o.label === 'fixed') {
    fold.firstFixedMs = Math.min(fold.firstFixedMs, o.tsMs);
    fold.lastFixedMs = Math.max(fold.lastFixedMs, o.tsMs);
  }
  if (o.label === 'reopened') fold.hasReopened = true;
}

/**
 * Groups outcomes into findings in one pass, sorted by `findingKey`. First seen = min(the
 * finite `firstSeenMs` entry of the key, the earliest outcome time); `hoursToFix` = (first
 * fixed time − first seen) / 1 h, null when it is 0 (fixed at first sight: start unknown).
 */
export function summarizeFindings(
  outcomes: readonly MetricOutcome[],
  firstSeenMs: ReadonlyMap<string, number>,
): FindingSummary[] {
  const folds = new Map<string, FindingFold>();
  for (const o of outcomes) {
    const fold = folds.get(o.findingKey);
    if (fold) foldOutcome(fold, o);
    else {
      const fresh: FindingFold = {
        latest: o,
        latestConfident: undefined,
        earliestMs: o.tsMs,
        firstAcceptedMs: Number.POSITIVE_INFINITY,
        firstFixedMs: Number.POSITIVE_INFINITY,
        lastFixedMs: Number.NEGATIVE_INFINITY,
        hasReopened: false,
      };
      foldOutcome(fresh, o);
      folds.set(o.findingKey, fresh);
    }
  }
  const keys = [...folds.keys()].sort(compareText);
  return keys.map((findingKey) => {
    const f = folds.get(findingKey) as FindingFold;
    const seenEntry = firstSeenMs.get(findingKey);
    const seenMs = seenEntry !== undefined && Number.isFinite(seenEntry) ? Math.min(seenEntry, f.earliestMs) : f.earliestMs;
    const hasFixed = f.firstFixedMs !== Number.POSITIVE_INFINITY;
    const fixMs = f.firstFixedMs - seenMs;
    return {
      findingKey,
      finalLabel: f.latest.label,
      project: f.latest.project,
      scanner: f.latest.scanner,
      model: f.latest.model,
      scannerConfidence: f.latestConfident?.scannerConfidence,
      confirmed: CONFIRMED_LABELS[f.latest.label],
      hasAccepted: f.firstAcceptedMs !== Number.POSITIVE_INFINITY,
      fixedAfterAccepted: f.lastFixedMs >= f.firstAcceptedMs,
      hasFixed,
      hasReopened: f.hasReopened,
      hoursToFix: hasFixed && fixMs > 0 ? fixMs / HOUR_MS : null,
    };
  });
}
