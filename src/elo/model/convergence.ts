import { ELO_SCALE } from './elo';
import { roundTo } from './distribution';
import type { EloUpdateEntry } from './log-entries';
import type { SessionAuditEntry } from './sessions';

/** The update-log reason of a disuse drift (the book's `touch`). */
export const DRIFT_REASON = 'disuse_drift';
/** The convergence window: the updates since the oldest of the newest this-many sessions began. */
export const CONVERGENCE_SESSIONS = 10;
/** Seed 002 "variance < 10%", read as `relative_change < 0.10` (see `convergenceOf`). */
export const CONVERGENCE_THRESHOLD = 0.1;

export interface DeltaStats {
  count: number;
  /** Mean delta, points. */
  mean: number;
  /** Mean |delta|, points. */
  mean_abs: number;
  /** Population variance of the deltas, points². */
  variance: number;
  std_dev: number;
}

export interface Convergence {
  window: {
    /** Sessions the window spans (at most `CONVERGENCE_SESSIONS`); 0 = the whole log sample. */
    sessions: number;
    /** ISO start of the window; null = the whole log sample. */
    since: string | null;
  };
  /** Learning deltas in the window: every update but disuse drift. */
  deltas: DeltaStats;
  /** Disuse drift in the window, reported apart: it is decay toward the start, not learning. */
  drift: { count: number; mean_abs: number };
  /** Items with a learning delta in the window. */
  items_moved: number;
  /** `sqrt(mean over moved items of (Σ their learning deltas in the window)²)`, points. */
  rms_net_change: number;
  /** `rms_net_change / ELO_SCALE` (400 points: one tier's width). */
  relative_change: number | null;
  /** `relative_change < CONVERGENCE_THRESHOLD`; null when nothing moved in the window. */
  stable: boolean | null;
}

function deltaStats(deltas: readonly number[]): DeltaStats {
  const n = deltas.length;
  if (n === 0) return { count: 0, mean: 0, mean_abs: 0, variance: 0, std_dev: 0 };
  const mean = deltas.reduce((s, d) => s + d, 0) / n;
  const variance = deltas.reduce((s, d) => s + (d - mean) ** 2, 0) / n;
  return { count: n, mean: roundTo(mean, 2), mean_abs: roundTo(deltas.reduce((s, d) => s + Math.abs(d), 0) / n, 2), variance: roundTo(variance, 2), std_dev: roundTo(Math.sqrt(variance), 2) };
}

/** The window start: the earliest `start_time` among the `CONVERGENCE_SESSIONS` sessions that ended last; null without sessions. */
export function convergenceWindow(sessions: readonly SessionAuditEntry[]): { sessions: number; sinceMs: number | null } {
  const newest = [...sessions].sort((a, b) => Date.parse(b.end_time) - Date.parse(a.end_time)).slice(0, CONVERGENCE_SESSIONS);
  if (newest.length === 0) return { sessions: 0, sinceMs: null };
  return { sessions: newest.length, sinceMs: Math.min(...newest.map((s) => Date.parse(s.start_time))) };
}

/**
 * Seed 002's "ELO scores stabilize (variance < 10%)", made precise: over the window (the updates
 * timestamped at or after the start of the oldest of the last `CONVERGENCE_SESSIONS` sessions, or
 * every given update when there are no sessions), each item's net learning change is the sum of
 * its non-drift deltas; `relative_change` is their root mean square over the items that moved,
 * divided by `ELO_SCALE`. Stable when it is below 0.10: a typical rated item moved less than 40
 * points (a tenth of a tier) over the last ten sessions. Disuse drift is left out of the learning
 * figures and reported apart. Spread of single deltas (`deltas.variance`) is reported too, but is
 * not the criterion: it measures step size (K and rank boosts), not whether ratings settle.
 */
export function convergenceOf(updates: readonly EloUpdateEntry[], sessions: readonly SessionAuditEntry[]): Convergence {
  const window = convergenceWindow(sessions);
  const inWindow = window.sinceMs === null ? updates : updates.filter((u) => Date.parse(u.timestamp) >= (window.sinceMs as number));
  const learning = inWindow.filter((u) => u.reason !== DRIFT_REASON);
  const drift = inWindow.filter((u) => u.reason === DRIFT_REASON);
  const net = new Map<string, number>();
  for (const u of learning) {
    const key = `${u.entity_type}\u0000${u.entity_id}`;
    net.set(key, (net.get(key) ?? 0) + u.delta);
  }
  const rms = net.size === 0 ? 0 : Math.sqrt([...net.values()].reduce((s, d) => s + d * d, 0) / net.size);
  const relative = net.size === 0 ? null : rms / ELO_SCALE;
  return {
    window: { sessions: window.sessions, since: window.sinceMs === null ? null : new Date(window.sinceMs).toISOString() },
    deltas: deltaStats(learning.map((u) => u.delta)),
    drift: { count: drift.length, mean_abs: drift.length === 0 ? 0 : roundTo(drift.reduce((s, u) => s + Math.abs(u.delta), 0) / drift.length, 2) },
    items_moved: net.size,
    rms_net_change: roundTo(rms, 2),
    relative_change: relative === null ? null : roundTo(relative, 4),
    stable: relative === null ? null : relative < CONVERGENCE_THRESHOLD,
  };
}
