import { describe, expect, spyOn, test } from 'bun:test';
import { ContextIndex, TokenPool } from '../../src/elo/model/context-index';
import { seededRandom } from '../helpers/random';
import { blendWithElo } from '../../src/elo/model/blend';
import { EXPOSURE_HORIZON_MS, Exposures, MAX_ITEMS_PER_CONTEXT } from '../../src/elo/model/exposures';
import { SESSION_IDLE_MS, SESSION_MAX_ITEMS, SESSION_MAX_OPEN, SessionAudits } from '../../src/elo/model/sessions';
import { DEFAULT_BLEND_WEIGHTS } from '../../src/elo/model/elo';

describe('ContextIndex', () => {
  const index = () => {
    const i = new ContextIndex();
    i.put({ kind: 'file', id: 'a', title: 'database migrations', text: 'Run migrations before tests. The pool is shared.' });
    i.put({ kind: 'file', id: 'b', title: 'http routes', text: 'Routes parse the body and reply with json.' });
    i.put({ kind: 'lesson', id: 'c', title: 'sql lesson', text: 'Migrations on PGlite need the agents table first.' });
    return i;
  };

  test('finds items sharing words, most similar first, nothing for unrelated text', () => {
    const i = index();
    const hits = i.search('how do I run the migrations?', 10);
    expect(hits.map((h) => h.item.id)).toEqual(['a', 'c']);
    expect(hits[0]?.similarity).toBeGreaterThan(0);
    expect(hits[0]?.similarity).toBeLessThanOrEqual(1);
    expect(i.search('weather in lisbon', 10)).toEqual([]);
  });

  test('an identical text has similarity 1; rarer shared words weigh more', () => {
    const i = new ContextIndex();
    i.put({ kind: 'k', id: 'x', title: 'alpha', text: 'beta gamma' });
    i.put({ kind: 'k', id: 'y', title: 'alpha', text: 'delta' });
    const [exact] = i.search('alpha beta gamma', 1);
    expect(exact?.item.id).toBe('x');
    expect(exact?.similarity).toBeCloseTo(1, 12);
    const [first] = i.search('alpha delta', 2);
    expect(first?.item.id).toBe('y');
  });

  test('put replaces, remove forgets, ties go to kind then id', () => {
    const i = index();
    i.put({ kind: 'file', id: 'a', title: 'other', text: 'nothing in common' });
    expect(i.size).toBe(3);
    expect(i.search('migrations', 10).map((h) => h.item.id)).toEqual(['c']);
    i.remove('lesson', 'c');
    expect(i.search('migrations', 10)).toEqual([]);
    expect(i.size).toBe(2);
    const t = new ContextIndex();
    for (const [kind, id] of [['b', '2'], ['a', '2'], ['a', '1']] as const) t.put({ kind, id, title: 'same', text: 'same' });
    expect(t.search('same', 5).map((h) => `${h.item.kind}${h.item.id}`)).toEqual(['a1', 'a2', 'b2']);
  });
});

describe('ContextIndex under many puts and removals', () => {
  test('a word finds exactly the items that hold it, after 3,000 random puts, replacements and removals', () => {
    const random = seededRandom(16);
    const words = Array.from({ length: 40 }, (_, w) => `word${w}`);
    const index = new ContextIndex();
    const live = new Map<string, string[]>();
    for (let op = 0; op < 3_000; op++) {
      const id = `item${Math.floor(random() * 300)}`;
      if (random() < 0.35) {
        index.remove('file', id);
        live.delete(id);
      } else {
        const text = Array.from({ length: 5 }, () => words[Math.floor(random() * words.length)] as string);
        index.put({ kind: 'file', id, title: id, text: text.join(' ') });
        live.set(id, text);
      }
    }
    expect(index.size).toBe(live.size);
    for (const word of words) {
      const holders = [...live].filter(([, text]) => text.includes(word)).map(([id]) => id);
      expect(holders.length).toBeLessThan(200);
      expect(index.search(word, 1_000).map((m) => m.item.id).sort()).toEqual(holders.sort());
    }
  });
});

describe('TokenPool', () => {
  test('each slot keeps its run through replacements and compactions; dead runs are reclaimed', () => {
    const random = seededRandom(7);
    const pool = new TokenPool();
    const runs = new Map<number, number[]>();
    for (let op = 0; op < 20_000; op++) {
      const slot = Math.floor(random() * 50);
      if (runs.has(slot)) {
        pool.free(slot);
        runs.delete(slot);
      }
      if (random() < 0.8) {
        const run = Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 1_000));
        pool.set(slot, run);
        runs.set(slot, run);
      }
    }
    for (const [slot, run] of runs) expect([...pool.of(slot)]).toEqual(run);
    // 50 slots of at most 63 ids: the pool never holds more than twice the live ids plus one run.
    expect(pool.held).toBeLessThanOrEqual(2 * 50 * 63 + 63);
  });
});

describe('ContextIndex norms as the index grows', () => {
  const item = (i: number) => ({ kind: 'file', id: `f${i}`, title: `module ${i}`, text: `word${i % 97} word${i % 89} token${i} shared text` });

  test('no search recomputes item norms; each change recomputes at most 64 besides its own, and the recomputation finishes', () => {
    const index = new ContextIndex();
    for (let i = 0; i < 1_000; i++) index.put(item(i));
    // biome-ignore lint/suspicious/noExplicitAny: counting calls of a private method
    const normOf = spyOn(ContextIndex.prototype as any, 'normOf');
    const perPut: number[] = [];
    for (let i = 1_000; i < 1_200; i++) {
      const before = normOf.mock.calls.length;
      index.put(item(i));
      perPut.push(normOf.mock.calls.length - before);
    }
    expect(Math.max(...perPut)).toBeLessThanOrEqual(1 + 64);
    // The count moved by more than a tenth: a recomputation began and has been carried along.
    expect(perPut.some((n) => n > 1)).toBe(true);
    const before = normOf.mock.calls.length;
    const hits = index.search('word5 word7 token1100', 5);
    expect(normOf.mock.calls.length).toBe(before);
    expect(hits.length).toBeGreaterThan(0);
    // The recomputation ends: within ceil(1,200 / 64) = 19 changes, a remove recomputes nothing.
    let removes = 0;
    for (let i = 0; i < 40; i++) {
      const calls = normOf.mock.calls.length;
      index.remove('file', `f${i}`);
      removes++;
      if (normOf.mock.calls.length === calls) break;
    }
    expect(removes).toBeLessThanOrEqual(20);
    normOf.mockRestore();
    // An item that matches the query exactly is found first, with similarity close to 1.
    index.put({ kind: 'file', id: 'exact', title: 'alpha', text: 'omega sigma' });
    expect(index.search('alpha omega sigma', 1)[0]?.item.id).toBe('exact');
  });
});

describe('blendWithElo', () => {
  const candidates = [
    { item: 'p', kind: 'lesson', id: 'p', relevance: 2 },
    { item: 'q', kind: 'lesson', id: 'q', relevance: 1.8 },
  ];
  test('equal ratings keep the relevance order; a rating gap can overturn a small relevance gap', () => {
    expect(blendWithElo(candidates, () => 1200, DEFAULT_BLEND_WEIGHTS).map((b) => b.id)).toEqual(['p', 'q']);
    const elo = (_: string, id: string) => (id === 'q' ? 1800 : 1000);
    const blended = blendWithElo(candidates, elo, DEFAULT_BLEND_WEIGHTS);
    expect(blended.map((b) => b.id)).toEqual(['q', 'p']);
    // p: 1 × 0.7 + 0.5 × 0.3 = 0.85; q: 0.9 × 0.7 + 0.9 × 0.3 = 0.9
    expect(blended.map((b) => Number(b.score.toFixed(6)))).toEqual([0.9, 0.85]);
  });
  test('cosines are used as they are when the full relevance is 1', () => {
    const [only] = blendWithElo([{ item: 0, kind: 'f', id: 'x', relevance: 0.5 }], () => 2000, DEFAULT_BLEND_WEIGHTS, 1);
    expect(only?.score).toBeCloseTo(0.5 * 0.7 + 0.3, 12);
  });
});

describe('Exposures', () => {
  test('items shown under a context are claimed with their boosts, which are settled once; within the horizon only', () => {
    const e = new Exposures();
    e.add(['message:1', 'finding:f'], [{ kind: 'lesson', id: 'a', boost: 16 }], 0);
    e.add(['message:1'], [{ kind: 'lesson', id: 'b', boost: 8 }, { kind: 'lesson', id: 'a', boost: 4 }], 10);
    expect(e.claim('message:1', 20, true)).toEqual([
      { kind: 'lesson', id: 'a', boost: 20 },
      { kind: 'lesson', id: 'b', boost: 8 },
    ]);
    expect(e.claim('message:1', 20, true)).toEqual([]);
    expect(e.claim('finding:f', 30, false)).toEqual([{ kind: 'lesson', id: 'a', boost: 16 }]);
    expect(e.claim('finding:f', EXPOSURE_HORIZON_MS, false)).toEqual([{ kind: 'lesson', id: 'a', boost: 0 }]);
    expect(e.claim('finding:f', EXPOSURE_HORIZON_MS + 1, false)).toEqual([]);
    expect(e.contexts).toBe(0);
  });
  test('changed contexts are handed out once with their state; a stored context can be restored within the horizon', () => {
    const e = new Exposures();
    e.add(['finding:f', 'message:1'], [{ kind: 'lesson', id: 'a', boost: 16 }], 100);
    expect(e.takeChanges()).toEqual([
      { context: 'finding:f', exposure: { atMs: 100, items: [{ kind: 'lesson', id: 'a', boost: 16 }] } },
      { context: 'message:1', exposure: { atMs: 100, items: [{ kind: 'lesson', id: 'a', boost: 16 }] } },
    ]);
    expect(e.takeChanges()).toEqual([]);
    e.claim('message:1', 200, true);
    e.claim('finding:f', 200, false);
    expect(e.takeChanges()).toEqual([
      { context: 'message:1', exposure: null },
      { context: 'finding:f', exposure: { atMs: 100, items: [{ kind: 'lesson', id: 'a', boost: 0 }] } },
    ]);
    const restored = new Exposures();
    restored.restore('finding:g', 0, [{ kind: 'rule', id: 'R-001', boost: 8 }], EXPOSURE_HORIZON_MS);
    restored.restore('finding:old', 0, [{ kind: 'rule', id: 'R-002', boost: 8 }], EXPOSURE_HORIZON_MS + 1);
    expect(restored.claim('finding:g', EXPOSURE_HORIZON_MS, false)).toEqual([{ kind: 'rule', id: 'R-001', boost: 8 }]);
    expect(restored.claim('finding:old', EXPOSURE_HORIZON_MS, false)).toEqual([]);
  });

  test('a context holds at most MAX_ITEMS_PER_CONTEXT items', () => {
    const e = new Exposures();
    e.add(['c'], Array.from({ length: MAX_ITEMS_PER_CONTEXT + 5 }, (_, i) => ({ kind: 'k', id: String(i) })), 0);
    expect(e.claim('c', 0, false)).toHaveLength(MAX_ITEMS_PER_CONTEXT);
  });
});

describe('SessionAudits', () => {
  test('a session becomes one seed-format audit entry with what it used', () => {
    const s = new SessionAudits('agent-1');
    s.search('room', 'semantic', [{ kind: 'lesson', id: 'L2' }, { kind: 'file', id: 'b.ts' }], Date.parse('2026-11-22T10:00:00Z'));
    s.search('room', 'keyword', [{ kind: 'file', id: 'a.ts' }], Date.parse('2026-11-22T10:01:00Z'));
    s.access('room', { kind: 'symbol', id: '@Parse' }, Date.parse('2026-11-22T10:02:00Z'));
    s.access('room', { kind: 'adr', id: 'ADR-027' }, Date.parse('2026-11-22T10:02:00Z'));
    expect(s.end('room', Date.parse('2026-11-22T10:05:00Z'))).toEqual({
      session_id: 'room',
      agent_id: 'agent-1',
      start_time: '2026-11-22T10:00:00.000Z',
      end_time: '2026-11-22T10:05:00.000Z',
      files_accessed: ['a.ts', 'b.ts'],
      symbols_expanded: ['@Parse'],
      adrs_read: ['ADR-027'],
      search_queries: 2,
      semantic_searches: 1,
      keyword_searches: 1,
      items_used: { lesson: ['L2'] },
    });
    expect(s.end('room', 0)).toBeNull();
  });
  test('idle sessions end at their last activity; busy ones stay open', () => {
    const s = new SessionAudits('a');
    s.access('idle', { kind: 'file', id: 'x' }, 0);
    s.access('busy', { kind: 'file', id: 'y' }, SESSION_IDLE_MS);
    const ended = s.endIdle(SESSION_IDLE_MS + 1);
    expect(ended.map((e) => [e.session_id, e.end_time])).toEqual([['idle', new Date(0).toISOString()]]);
    expect(s.openSessions).toBe(1);
    expect(s.endIdle(SESSION_IDLE_MS + 2, true).map((e) => e.session_id)).toEqual(['busy']);
  });
  test('at most SESSION_MAX_OPEN sessions are open: another ends the one used least recently, written at the next check', () => {
    const s = new SessionAudits('a');
    for (let i = 0; i < SESSION_MAX_OPEN; i++) s.access(`room${i}`, { kind: 'file', id: `f${i}` }, 1_000 + i);
    // room0 is used again: room1 is now the least recently used.
    s.search('room0', 'semantic', [{ kind: 'file', id: 'again' }], 5_000);
    expect(s.openSessions).toBe(SESSION_MAX_OPEN);
    s.access('one-more', { kind: 'file', id: 'x' }, 6_000);
    expect(s.openSessions).toBe(SESSION_MAX_OPEN);
    const ended = s.endIdle(6_000);
    expect(ended.map((e) => [e.session_id, e.end_time, e.files_accessed])).toEqual([['room1', new Date(1_001).toISOString(), ['f1']]]);
    expect(s.end('room0', 7_000)?.files_accessed).toEqual(['again', 'f0']);
  });
  test('a session that never idles is written in parts of at most SESSION_MAX_ITEMS distinct items', () => {
    const s = new SessionAudits('a');
    // One item short of the bound, used twice over: still open.
    for (let round = 0; round < 2; round++) for (let i = 0; i < SESSION_MAX_ITEMS - 1; i++) s.access('agent', { kind: 'file', id: `f${i}` }, i);
    expect(s.endIdle(SESSION_MAX_ITEMS)).toEqual([]);
    // The item that reaches the bound ends the part at once; a search past it starts the next part.
    s.access('agent', { kind: 'lesson', id: 'L1' }, SESSION_MAX_ITEMS);
    s.search('agent', 'semantic', [{ kind: 'file', id: 'f0' }, { kind: 'file', id: 'new' }], SESSION_MAX_ITEMS + 1);
    const [first, ...rest] = s.endIdle(SESSION_MAX_ITEMS + 2);
    expect(rest).toEqual([]);
    expect(first?.files_accessed).toHaveLength(SESSION_MAX_ITEMS - 1);
    expect(first?.items_used).toEqual({ lesson: ['L1'] });
    expect(first?.end_time).toBe(new Date(SESSION_MAX_ITEMS).toISOString());
    const second = s.end('agent', SESSION_MAX_ITEMS + 3);
    expect(second?.files_accessed).toEqual(['f0', 'new']);
    expect(second?.semantic_searches).toBe(1);
    expect(second?.start_time).toBe(new Date(SESSION_MAX_ITEMS + 1).toISOString());
  });
  test('however many items one search returns, no part lists more than SESSION_MAX_ITEMS', () => {
    const s = new SessionAudits('a');
    s.search('agent', 'keyword', Array.from({ length: 2 * SESSION_MAX_ITEMS + 10 }, (_, i) => ({ kind: 'symbol', id: `s${i}` })), 0);
    const parts = [...s.endIdle(1), ...s.endIdle(SESSION_IDLE_MS + 1)];
    expect(parts.map((p) => p.symbols_expanded.length)).toEqual([SESSION_MAX_ITEMS, SESSION_MAX_ITEMS, 10]);
    expect(new Set(parts.flatMap((p) => p.symbols_expanded)).size).toBe(2 * SESSION_MAX_ITEMS + 10);
  });
});
