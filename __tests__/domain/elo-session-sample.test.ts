import { describe, expect, test } from 'bun:test';
import { eloStats } from '../../src/elo/model/stats';
import { parseEloLogs } from '../../src/elo/model/log-entries';
import { METRIC_PAIRS, metricItems, sessionsForMetrics } from '../../src/elo/model/success-metrics';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const ITEMS_PER_SESSION = 150;
const SESSIONS = 40;

/** Session entry `i` (newest first), naming 150 files and a few other items; every third repeats some of the one before. */
function session(i: number): Record<string, unknown> {
  const files = Array.from({ length: ITEMS_PER_SESSION }, (_, j) => `src/s${i % 3 === 0 ? i + 1 : i}-f${j}.ts`);
  return {
    session_id: `s${i}`,
    agent_id: 'agent',
    start_time: new Date(T0 - (i + 1) * 3_600_000).toISOString(),
    end_time: new Date(T0 - i * 3_600_000).toISOString(),
    files_accessed: files,
    symbols_expanded: [`sym${i}`],
    adrs_read: [],
    search_queries: i % 4,
    semantic_searches: 0,
    keyword_searches: i % 4,
    items_used: { lesson: [`lesson-${i}`, `lesson-${i + 1}`] },
  };
}

function sample(): Record<string, unknown>[] {
  const entries = Array.from({ length: SESSIONS }, (_, i) => session(i));
  // One entry that does not match the schema, among those slimmed: it stays as it is, and skipped.
  entries[25] = { ...session(25), files_accessed: 'not a list' };
  return entries;
}

/** The report's figures made from these session entries, every item rated (tiers by id). */
function report(sessions: readonly Record<string, unknown>[]) {
  const { logs, skipped } = parseEloLogs({ updates: [], searches: [], sessions });
  const refs = metricItems(logs.searches, logs.sessions);
  const items = refs.map((r, n) => ({ kind: r.kind, id: r.id, elo: 1000 + (n % 7) * 150, startElo: 1200, updates: 3, lastUsedMs: T0 }));
  return { stats: eloStats({ ...logs, items, k: 5, nowMs: T0 }), skipped, refs };
}

const itemsNamed = (entries: readonly Record<string, unknown>[]) =>
  entries.reduce((n, e) => n + (Array.isArray(e.files_accessed) ? e.files_accessed.length : 0) + (e.symbols_expanded as unknown[]).length + Object.values(e.items_used as Record<string, unknown[]>).reduce((m, l) => m + l.length, 0), 0);

describe('the ELO report’s session sample', () => {
  test('keeps the items of the newest sessions until METRIC_PAIRS are named, and the report made from it is the same', () => {
    const full = sample();
    const { entries, named } = sessionsForMetrics(full);
    expect(report(entries)).toEqual(report(full));
    expect(entries.length).toBe(SESSIONS);
    expect(named).toBeGreaterThanOrEqual(METRIC_PAIRS);
    // 14 sessions of 153 items reach 2,000; the ones after keep their times and counts only.
    const kept = entries.filter((e) => Array.isArray(e.files_accessed) && e.files_accessed.length > 0).length;
    expect(kept).toBe(Math.ceil(METRIC_PAIRS / (ITEMS_PER_SESSION + 3)));
    expect(itemsNamed(entries.filter((e) => e !== full[25]))).toBeLessThan(METRIC_PAIRS + ITEMS_PER_SESSION + 3);
    expect(itemsNamed(full.filter((_, i) => i !== 25))).toBe((SESSIONS - 1) * (ITEMS_PER_SESSION + 3));
    expect(entries[SESSIONS - 1]).toMatchObject({ session_id: `s${SESSIONS - 1}`, search_queries: (SESSIONS - 1) % 4, files_accessed: [], items_used: {} });
    expect(entries[25]).toBe(full[25] as Record<string, unknown>);
    expect(report(entries).skipped.sessions).toBe(1);
  });

  test('slimmed a slice at a time, the count carried over, it is the same as in one go', () => {
    const full = sample();
    const first = sessionsForMetrics(full.slice(0, 7));
    const rest = sessionsForMetrics(full.slice(7), first.named);
    expect([...first.entries, ...rest.entries]).toEqual(sessionsForMetrics(full).entries);
  });

  test('sessions that name few items are kept whole', () => {
    const few = Array.from({ length: 5 }, (_, i) => session(i));
    expect(sessionsForMetrics(few).entries).toEqual(few);
  });
});
