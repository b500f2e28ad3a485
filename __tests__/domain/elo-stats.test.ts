import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { CONVERGENCE_SESSIONS, convergenceOf, DRIFT_REASON } from '../../src/elo/model/convergence';
import { distributionOf } from '../../src/elo/model/distribution';
import { type EloUpdateEntry, parseEloLogs, type SearchLogEntry } from '../../src/elo/model/log-entries';
import type { SessionAuditEntry } from '../../src/elo/model/sessions';
import { eloStats, type RatedItem } from '../../src/elo/model/stats';
import { ELO_TIERS } from '../../src/elo/model/tiers';
import { METRIC_PAIRS, metricItems, successMetrics } from '../../src/elo/model/success-metrics';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const at = (hhmm: string) => `2026-11-22T${hhmm}:00.000Z`;

const ITEMS: RatedItem[] = [
  { kind: 'lesson', id: 'L1', elo: 1650, updates: 3, title: 'xss lesson' },
  { kind: 'lesson', id: 'L5', elo: 1600, updates: 0 },
  { kind: 'lesson', id: 'L2', elo: 1600, updates: 1 },
  { kind: 'lesson', id: 'L3', elo: 1250.04, updates: 2 },
  { kind: 'lesson', id: 'L4', elo: 799.9, updates: 9 },
  { kind: 'file', id: 'a', elo: 1199.96, updates: 1 },
  { kind: 'file', id: 'b', elo: 1216, updates: 0 },
];

const update = (hhmm: string, kind: string, id: string, delta: number, reason = 'semantic_search_rank_1'): EloUpdateEntry => ({
  timestamp: at(hhmm),
  entity_type: kind,
  entity_id: id,
  elo_old: 1200,
  elo_new: 1200 + delta,
  delta,
  reason,
});

const UPDATES: EloUpdateEntry[] = [
  update('11:05', 'lesson', 'L2', 4),
  update('10:20', 'file', 'a', -2, DRIFT_REASON),
  update('10:15', 'file', 'a', 8),
  update('10:10', 'lesson', 'L1', -4, 'outcome_penalty'),
  update('10:05', 'lesson', 'L1', 16),
  update('09:00', 'lesson', 'L1', 16),
];

const session = (id: string, start: string, end: string, files: string[], used: Record<string, string[]>): SessionAuditEntry => ({
  session_id: id,
  agent_id: 'agent',
  start_time: start,
  end_time: end,
  files_accessed: files,
  symbols_expanded: [],
  adrs_read: [],
  search_queries: 1,
  semantic_searches: 1,
  keyword_searches: 0,
  items_used: used,
});

const SESSIONS: SessionAuditEntry[] = [session('s2', at('11:00'), at('11:30'), ['b'], { lesson: ['L4', 'L3'] }), session('s1', at('10:00'), at('10:30'), ['a', 'b'], { lesson: ['L1'] })];

const search = (results: [string, string, number][], tokens?: { tokens_full: number; tokens_packed: number }): SearchLogEntry => ({
  session_id: 's1',
  timestamp: at('10:01'),
  tool: 'semantic_search',
  query: 'q',
  results: results.map(([kind, id, rank]) => ({ entity_type: kind, hash: id, rank })),
  ...tokens,
});

const SEARCHES: SearchLogEntry[] = [
  search(
    [
      ['lesson', 'L1', 1],
      ['file', 'a', 2],
      ['lesson', 'ghost', 3],
      ['lesson', 'L3', 6],
    ],
    { tokens_full: 1000, tokens_packed: 150 },
  ),
  search([['lesson', 'L2', 1]], { tokens_full: 1000, tokens_packed: 250 }),
  search([['lesson', 'L4', 5]]),
];

describe('eloStats golden report', () => {
  const report = eloStats({ items: ITEMS, updates: UPDATES, searches: SEARCHES, sessions: SESSIONS, k: 2, nowMs: NOW });

  test('tiers and non-empty 100-point buckets, overall and per kind', () => {
    expect(report.distribution.overall).toEqual({
      count: 7,
      tiers: { HIGH: 3, MEDIUM: 2, LOW: 1, VERY_LOW: 1 },
      histogram: [
        { from: 700, to: 800, count: 1 },
        { from: 1100, to: 1200, count: 1 },
        { from: 1200, to: 1300, count: 2 },
        { from: 1600, to: 1700, count: 3 },
      ],
    });
    expect(Object.keys(report.distribution.by_kind)).toEqual(['file', 'lesson']);
    expect(report.distribution.by_kind.file).toEqual({
      count: 2,
      tiers: { HIGH: 0, MEDIUM: 1, LOW: 1, VERY_LOW: 0 },
      histogram: [
        { from: 1100, to: 1200, count: 1 },
        { from: 1200, to: 1300, count: 1 },
      ],
    });
  });

  test('top k per kind: rating descending, ties by id, rounded to 0.1 with the tier of the unrounded rating', () => {
    expect(report.top).toEqual({
      file: [
        { id: 'b', elo: 1216, tier: 'MEDIUM', updates: 0 },
        { id: 'a', elo: 1200, tier: 'LOW', updates: 1 },
      ],
      lesson: [
        { id: 'L1', elo: 1650, tier: 'HIGH', updates: 3, title: 'xss lesson' },
        { id: 'L2', elo: 1600, tier: 'HIGH', updates: 1 },
      ],
    });
  });

  test('convergence over the window of the last sessions, drift apart', () => {
    // window from s1's start (10:00): learning deltas 16, -4, 8, 4; the 09:00 update is outside
    // mean 6, mean |d| 8, variance (100 + 100 + 4 + 4) / 4 = 52; net L1 12, a 8, L2 4
    expect(report.convergence).toEqual({
      window: { sessions: 2, since: at('10:00') },
      deltas: { count: 4, mean: 6, mean_abs: 8, variance: 52, std_dev: 7.21 },
      drift: { count: 1, mean_abs: 2 },
      items_moved: 3,
      rms_net_change: 8.64, // sqrt((144 + 64 + 16) / 3)
      relative_change: 0.0216, // 8.641 / 400
      stable: true,
    });
  });

  test('success metrics with the seed targets', () => {
    expect(report.success_metrics).toEqual({
      // top-5 results L1 (HIGH), a (LOW), ghost (unrated), L2 (HIGH), L4 (VERY_LOW); L3 at rank 6 is not counted
      search_efficiency: { value: 0.4, target: 0.8, comparison: '>=', met: false, n: 5 },
      // s1: a LOW, b MEDIUM, L1 HIGH; s2: b MEDIUM, L4 VERY_LOW, L3 MEDIUM => 4 of 6
      context_accuracy: { value: 0.6667, target: 0.9, comparison: '>=', met: false, n: 6 },
      // 1 - (150 + 250) / (1000 + 1000)
      token_savings: { value: 0.8, target: 0.8, comparison: '>=', met: true, n: 2 },
      convergence_after_100_sessions: { value: null, target: 0.1, comparison: '<', met: null, n: 2 },
    });
    expect(report.sample).toEqual({ updates: 6, searches: 3, sessions: 2 });
    expect(report.as_of).toBe('2026-11-22T12:00:00.000Z');
  });

  test('an empty book: zero counts, no buckets, every metric null', () => {
    const empty = eloStats({ items: [], updates: [], searches: [], sessions: [], k: 5, nowMs: NOW });
    expect(empty.distribution.overall).toEqual({ count: 0, tiers: { HIGH: 0, MEDIUM: 0, LOW: 0, VERY_LOW: 0 }, histogram: [] });
    expect(empty.top).toEqual({});
    expect(empty.convergence).toMatchObject({ window: { sessions: 0, since: null }, items_moved: 0, relative_change: null, stable: null });
    expect(Object.values(empty.success_metrics).map((m) => [m.value, m.met])).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  test.each([0, 1.5, Number.NaN])('k %d is a RangeError naming k', (k) => {
    expect(() => eloStats({ items: ITEMS, updates: [], searches: [], sessions: [], k, nowMs: NOW })).toThrow(/^k must be an integer >= 1/);
  });
});

describe('convergence after 100 sessions', () => {
  const sessions = Array.from({ length: 100 }, (_, i) => session(`s${i}`, new Date(NOW - (100 - i) * 3_600_000).toISOString(), new Date(NOW - (100 - i) * 3_600_000 + 60_000).toISOString(), [], {}));
  const windowStart = Date.parse(sessions[100 - CONVERGENCE_SESSIONS]?.start_time as string);
  const inWindow = (delta: number) => ({ ...update('00:00', 'file', 'f', delta), timestamp: new Date(windowStart + 1).toISOString() });

  test.each([
    [[8, 8], 0.04, true], // net 16 points: 16 / 400
    [[16, 16, 8], 0.1, false], // net 40 points is not below a tenth of a tier
  ])('deltas %j in the window => relative change %d, met %s', (deltas, value, met) => {
    const report = eloStats({ items: [], updates: deltas.map(inWindow), searches: [], sessions, k: 1, nowMs: NOW });
    expect(report.convergence.window).toEqual({ sessions: CONVERGENCE_SESSIONS, since: new Date(windowStart).toISOString() });
    expect(report.success_metrics.convergence_after_100_sessions).toEqual({ value, target: 0.1, comparison: '<', met, n: 100 });
  });
});

describe('success metrics over the newest pairs', () => {
  test(`a session that used 10,000 items: context accuracy over the newest ${METRIC_PAIRS} (session, item) pairs, and only their tiers are needed`, () => {
    const big = session('big', at('11:00'), at('11:30'), Array.from({ length: 10_000 }, (_, i) => `f${i}`), {});
    const older = session('older', at('10:00'), at('10:30'), ['old'], {});
    const searches = Array.from({ length: 3_000 }, (_, i) => search([['file', `r${i}`, 1]]));
    const refs = metricItems(searches, [big, older]);
    expect(refs).toHaveLength(2 * METRIC_PAIRS);
    expect(refs.slice(METRIC_PAIRS, METRIC_PAIRS + 2)).toEqual([
      { kind: 'file', id: 'f0' },
      { kind: 'file', id: 'f1' },
    ]);
    // HIGH: the first half of the big session's counted items and every searched one.
    const tierNow = (ref: { kind: string; id: string }) => (ref.id.startsWith('r') || Number(ref.id.slice(1)) < METRIC_PAIRS / 2 ? 'HIGH' : 'LOW');
    const metrics = successMetrics(searches, [big, older], tierNow, { relative_change: 0, stable: true } as never);
    expect(metrics.context_accuracy).toMatchObject({ value: 0.5, n: METRIC_PAIRS });
    expect(metrics.search_efficiency).toMatchObject({ value: 1, n: METRIC_PAIRS });
  });
});

describe('parseEloLogs', () => {
  test('entries that fail their schema are counted and left out', () => {
    const { logs, skipped } = parseEloLogs({
      updates: [UPDATES[0], { ...UPDATES[0], delta: 'big' }, { ...UPDATES[0], timestamp: 'yesterday' }],
      searches: [SEARCHES[0], { ...SEARCHES[0], results: [{ hash: 'x', rank: 1 }] }],
      sessions: [SESSIONS[0], { ...SESSIONS[0], items_used: undefined }],
    });
    expect(skipped).toEqual({ updates: 2, searches: 1, sessions: 0 });
    expect(logs.updates).toEqual([UPDATES[0] as EloUpdateEntry]);
    expect(logs.searches[0]?.tokens_full).toBe(1000);
    expect(logs.sessions[1]?.items_used).toEqual({});
  });
});

const ratedItems = fc.array(
  fc.record({ kind: fc.constantFrom('file', 'lesson', 'rule'), id: fc.string({ maxLength: 4 }), elo: fc.double({ min: -2000, max: 6000, noNaN: true }), updates: fc.nat(100) }),
  { maxLength: 60 },
);

describe('properties', () => {
  test('every item is counted once in its tier and once in the one bucket that holds it, per kind and overall', () => {
    fc.assert(
      fc.property(ratedItems, fc.integer({ min: 1, max: 500 }), (items, width) => {
        const report = eloStats({ items, updates: [], searches: [], sessions: [], k: 3, nowMs: NOW, bucketWidth: width });
        const { overall, by_kind } = report.distribution;
        expect(ELO_TIERS.reduce((s, t) => s + overall.tiers[t], 0)).toBe(items.length);
        expect(overall.histogram.reduce((s, b) => s + b.count, 0)).toBe(items.length);
        for (const b of overall.histogram) expect(b.count).toBe(items.filter((i) => i.elo >= b.from && i.elo < b.to).length);
        expect(overall.histogram.map((b) => b.from)).toEqual([...overall.histogram.map((b) => b.from)].sort((a, b) => a - b));
        for (const t of ELO_TIERS) expect(Object.values(by_kind).reduce((s, d) => s + d.tiers[t], 0)).toBe(overall.tiers[t]);
      }),
    );
  });

  test('top k lists min(k, items of the kind), rated at least as high as every item it leaves out', () => {
    fc.assert(
      fc.property(ratedItems, fc.integer({ min: 1, max: 10 }), (items, k) => {
        const report = eloStats({ items, updates: [], searches: [], sessions: [], k, nowMs: NOW });
        for (const [kind, top] of Object.entries(report.top)) {
          const ofKind = items.filter((i) => i.kind === kind);
          expect(top).toHaveLength(Math.min(k, ofKind.length));
          const lowest = Math.min(...top.map((t) => t.elo));
          const listed = new Set(top.map((t) => t.id));
          for (const i of ofKind) if (!listed.has(i.id)) expect(Math.round(i.elo * 10) / 10).toBeLessThanOrEqual(lowest);
        }
      }),
    );
  });

  test('disuse drift never changes the learning figures, and the order of the log does not matter', () => {
    const entry = fc.record({ kind: fc.constantFrom('file', 'lesson'), id: fc.constantFrom('a', 'b', 'c'), delta: fc.integer({ min: -16, max: 16 }), drift: fc.boolean() });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        const all = entries.map((e) => update('10:00', e.kind, e.id, e.delta, e.drift ? DRIFT_REASON : 'file_access'));
        const withDrift = convergenceOf(all, []);
        const learningOnly = convergenceOf(
          all.filter((u) => u.reason !== DRIFT_REASON),
          [],
        );
        expect({ ...withDrift, drift: null }).toEqual({ ...learningOnly, drift: null });
        expect(convergenceOf([...all].reverse(), [])).toEqual(withDrift);
      }),
    );
  });

  test('distributionOf refuses a bucket width that is not a positive number, naming it', () => {
    expect(() => distributionOf([{ elo: 1200 }], 0)).toThrow(/^bucketWidth must be a finite number > 0/);
  });
});
