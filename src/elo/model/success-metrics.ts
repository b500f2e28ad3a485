import { type Convergence, CONVERGENCE_THRESHOLD } from './convergence';
import { roundTo } from './distribution';
import type { SearchLogEntry } from './log-entries';
import type { ItemRef } from './exposures';
import { SEED_LIST_BY_KIND, type SessionAuditEntry } from './sessions';
import { checkedLogEntry } from './log-entries';
import type { EloTier } from './tiers';

/** One of seed 002's Success Metrics: its value, the seed's target, and whether it is met. */
export interface SuccessMetric {
  /** A share in [0, 1] (rounded to 4 decimals); null when there is nothing to measure. */
  value: number | null;
  target: number;
  /** `value >= target` or `value < target` meets it. */
  comparison: '>=' | '<';
  /** null when `value` is null. */
  met: boolean | null;
  /** How many observations `value` is computed from (results, session items, searches, sessions). */
  n: number;
}

export interface SuccessMetrics {
  search_efficiency: SuccessMetric;
  context_accuracy: SuccessMetric;
  token_savings: SuccessMetric;
  convergence_after_100_sessions: SuccessMetric;
}

/** Seed 002's targets. */
export const SUCCESS_TARGETS = { search_efficiency: 0.8, context_accuracy: 0.9, token_savings: 0.8, convergence: CONVERGENCE_THRESHOLD } as const;
/** Seed 002: convergence is judged "after 100 sessions". */
export const CONVERGENCE_AFTER_SESSIONS = 100;
/** Results at these ranks and better are the "top-5 search results". */
export const TOP_RESULTS = 5;
/**
 * The newest (search, top result) and (session, item) pairs search_efficiency and
 * context_accuracy are measured over, at most: each needs the tier of its item now, read from the
 * book, and one session can name any number of items (a sample whose cost grows with nothing).
 */
export const METRIC_PAIRS = 2_000;

/** The first `limit` of the lists' items in order, without building what comes after. */
function firstOf<T, L>(lists: readonly L[], itemsOf: (list: L) => Iterable<T>, limit: number): T[] {
  const out: T[] = [];
  for (const list of lists) {
    for (const item of itemsOf(list)) {
      if (out.length >= limit) return out;
      out.push(item);
    }
  }
  return out;
}

/** The top-5 results of the newest searches (newest first), METRIC_PAIRS at most. */
const topResultsOf = (searches: readonly SearchLogEntry[]) => firstOf(searches, (s) => s.results.filter((r) => r.rank <= TOP_RESULTS), METRIC_PAIRS);
/** The items the newest sessions used (newest first), METRIC_PAIRS at most. */
const usedItemsOf = (sessions: readonly SessionAuditEntry[]) => firstOf(sessions, sessionItems, METRIC_PAIRS);

/** The tier of an item now; undefined for an item the book has never rated. */
export type TierNow = (item: ItemRef) => EloTier | undefined;

function metric(raw: number | null, n: number, target: number, comparison: SuccessMetric['comparison']): SuccessMetric {
  const met = raw === null ? null : comparison === '>=' ? raw >= target : raw < target;
  return { value: raw === null ? null : roundTo(raw, 4), target, comparison, met, n };
}

const share = (hits: number, n: number) => (n === 0 ? null : hits / n);

/** The items one session used: the seed's three lists (kinds file, symbol, adr) and `items_used`, each once. */
export function sessionItems(session: SessionAuditEntry): ItemRef[] {
  const refs: ItemRef[] = [];
  for (const [kind, list] of Object.entries(SEED_LIST_BY_KIND)) for (const id of session[list]) refs.push({ kind, id });
  for (const [kind, ids] of Object.entries(session.items_used)) for (const id of ids) refs.push({ kind, id });
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.kind}\u0000${r.id}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * Session log entries (newest first) as the Success Metrics read them: the newest keep their items
 * until METRIC_PAIRS items are named (as `usedItemsOf` counts them), the ones after are copies with
 * empty item lists, their times and counts unchanged; an entry that does not match the log's schema
 * is left as it is (it stays skipped). What the ELO report's session sample holds between reports:
 * about METRIC_PAIRS items whatever the sessions' sizes (5,000 sessions of up to 500 items each
 * could name 2.5M), and the report made from it is the same. `namedBefore`: the items the entries
 * before these named (for a sample slimmed a slice at a time); returns the count after them too.
 */
export function sessionsForMetrics(entries: readonly Record<string, unknown>[], namedBefore = 0): { entries: Record<string, unknown>[]; named: number } {
  let named = namedBefore;
  const out = entries.map((entry) => {
    const session = checkedLogEntry('sessions', entry);
    if (!session) return entry;
    const items = sessionItems(session).length;
    if (named < METRIC_PAIRS) {
      named += items;
      return entry;
    }
    return items === 0 ? entry : { ...entry, files_accessed: [], symbols_expanded: [], adrs_read: [], items_used: {} };
  });
  return { entries: out, named };
}

/** The items whose tier now the Success Metrics need: the top-5 results of the newest searches and the items the newest sessions used, METRIC_PAIRS of each at most. */
export function metricItems(searches: readonly SearchLogEntry[], sessions: readonly SessionAuditEntry[]): ItemRef[] {
  return [...topResultsOf(searches).map((r) => ({ kind: r.entity_type, id: r.hash })), ...usedItemsOf(sessions)];
}

/**
 * Seed 002's Success Metrics, each against the tiers items are in NOW (not when they were used):
 * - search_efficiency: of the results at rank <= 5 in the search log (the newest METRIC_PAIRS), the share whose item is HIGH
 *   now (an item the book never rated counts as not HIGH). Target >= 0.8.
 * - context_accuracy (the seed's "LITE pack accuracy": the LITE pack holds HIGH items in full and
 *   MEDIUM ones summarised): of the (session, item) pairs in the session audit log (files,
 *   symbols, ADRs and `items_used`; the newest METRIC_PAIRS), the share whose item is HIGH or MEDIUM now. Target >= 0.9.
 * - token_savings: over the search-log entries that carry both `tokens_full > 0` and
 *   `tokens_packed`, `1 - Σ tokens_packed / Σ tokens_full`. Target >= 0.8; null when none do.
 * - convergence_after_100_sessions: `convergence.relative_change` once the session log holds at
 *   least 100 sessions, else null. Target < 0.10.
 */
export function successMetrics(searches: readonly SearchLogEntry[], sessions: readonly SessionAuditEntry[], tierNow: TierNow, convergence: Convergence): SuccessMetrics {
  const top = topResultsOf(searches);
  const topHigh = top.filter((r) => tierNow({ kind: r.entity_type, id: r.hash }) === 'HIGH').length;
  const used = usedItemsOf(sessions);
  const usedInPack = used.filter((r) => {
    const tier = tierNow(r);
    return tier === 'HIGH' || tier === 'MEDIUM';
  }).length;
  const packed = searches.filter((s) => s.tokens_full !== undefined && s.tokens_full > 0 && s.tokens_packed !== undefined);
  const full = packed.reduce((sum, s) => sum + (s.tokens_full as number), 0);
  const small = packed.reduce((sum, s) => sum + (s.tokens_packed as number), 0);
  const enoughSessions = sessions.length >= CONVERGENCE_AFTER_SESSIONS;
  return {
    search_efficiency: metric(share(topHigh, top.length), top.length, SUCCESS_TARGETS.search_efficiency, '>='),
    context_accuracy: metric(share(usedInPack, used.length), used.length, SUCCESS_TARGETS.context_accuracy, '>='),
    token_savings: metric(packed.length === 0 ? null : 1 - small / full, packed.length, SUCCESS_TARGETS.token_savings, '>='),
    convergence_after_100_sessions: {
      value: enoughSessions ? convergence.relative_change : null,
      target: SUCCESS_TARGETS.convergence,
      comparison: '<',
      met: enoughSessions ? convergence.stable : null,
      n: sessions.length,
    },
  };
}
