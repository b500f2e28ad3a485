import { type Convergence, convergenceOf } from './convergence';
import { byKind, type Distribution, distributionOf, type RatedItem, type TopItem, topItems } from './distribution';
import type { EloUpdateEntry, SearchLogEntry } from './log-entries';
import type { SessionAuditEntry } from './sessions';
import { type SuccessMetrics, successMetrics, type TierNow } from './success-metrics';
import { tierOf } from './tiers';

export type { Convergence } from './convergence';
export type { Distribution, HistogramBucket, RatedItem, TopItem } from './distribution';
export type { SuccessMetric, SuccessMetrics } from './success-metrics';

/** Histogram bucket width when none is given, in rating points. */
export const DEFAULT_BUCKET_WIDTH = 100;

export interface EloStatsInput {
  /** Every rated item with its rating at `nowMs` (drift applied). */
  items: readonly RatedItem[];
  /** Update, search and session log entries: the sample the log figures are computed from. */
  updates: readonly EloUpdateEntry[];
  searches: readonly SearchLogEntry[];
  sessions: readonly SessionAuditEntry[];
  /** Items listed per kind in `top`. */
  k: number;
  nowMs: number;
  bucketWidth?: number;
}

/** The ELO book's statistics (seed 002 Phase 5 and Success Metrics), ready to be sent as JSON. */
export interface EloStatsReport {
  as_of: string;
  k: number;
  bucket_width: number;
  distribution: { overall: Distribution; by_kind: Record<string, Distribution> };
  /** The top `k` items of each kind. */
  top: Record<string, TopItem[]>;
  convergence: Convergence;
  success_metrics: SuccessMetrics;
  /** How many log entries the log figures were computed from. */
  sample: { updates: number; searches: number; sessions: number };
}

/** The figures of the report that are over every item: what a book too large to read whole computes apart (`elo-counted-report`). */
export interface ItemFigures {
  distribution: { overall: Distribution; by_kind: Record<string, Distribution> };
  top: Record<string, TopItem[]>;
  tierNow: TierNow;
}

/**
 * The report: tier counts and a histogram overall and per kind (`distributionOf`), the top `k`
 * items per kind (`topItems`), convergence of the update log (`convergenceOf`) and seed 002's
 * Success Metrics (`successMetrics`), all against the ratings items have at `nowMs`. Kinds are in
 * code-point order. Pure: `nowMs` only stamps `as_of`; the ratings come in already drifted to it.
 */
export function eloStats(input: EloStatsInput): EloStatsReport {
  const bucketWidth = input.bucketWidth ?? DEFAULT_BUCKET_WIDTH;
  if (!Number.isSafeInteger(input.k) || input.k < 1) throw new RangeError(`k must be an integer >= 1, got ${input.k}`);
  if (!Number.isFinite(input.nowMs)) throw new RangeError(`nowMs must be a finite number, got ${input.nowMs}`);
  const kinds = byKind(input.items);
  const eloByKey = new Map(input.items.map((i) => [`${i.kind}\u0000${i.id}`, i.elo]));
  return eloStatsOf(
    {
      distribution: {
        overall: distributionOf(input.items, bucketWidth),
        by_kind: Object.fromEntries(kinds.map(([kind, items]) => [kind, distributionOf(items, bucketWidth)])),
      },
      top: Object.fromEntries(kinds.map(([kind, items]) => [kind, topItems(items, input.k)])),
      tierNow: (ref) => {
        const elo = eloByKey.get(`${ref.kind}\u0000${ref.id}`);
        return elo === undefined ? undefined : tierOf(elo);
      },
    },
    input,
  );
}

/** The report from the figures over every item (as `eloStats` computes them from the items) and the logs. */
export function eloStatsOf(figures: ItemFigures, input: Omit<EloStatsInput, 'items'>): EloStatsReport {
  const bucketWidth = input.bucketWidth ?? DEFAULT_BUCKET_WIDTH;
  if (!Number.isSafeInteger(input.k) || input.k < 1) throw new RangeError(`k must be an integer >= 1, got ${input.k}`);
  if (!Number.isFinite(input.nowMs)) throw new RangeError(`nowMs must be a finite number, got ${input.nowMs}`);
  const convergence = convergenceOf(input.updates, input.sessions);
  return {
    as_of: new Date(input.nowMs).toISOString(),
    k: input.k,
    bucket_width: bucketWidth,
    distribution: figures.distribution,
    top: figures.top,
    convergence,
    success_metrics: successMetrics(input.searches, input.sessions, figures.tierNow, convergence),
    sample: { updates: input.updates.length, searches: input.searches.length, sessions: input.sessions.length },
  };
}
