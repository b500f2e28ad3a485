import { describe, expect, test } from 'bun:test';
import { EloHotSet, ratingKey } from '../../src/elo/elo-hot-set';
import type { EloItemState } from '../../src/elo/elo-store';
import type { ItemRef } from '../../src/elo/model/exposures';

const state = (id: string): EloItemState => ({ kind: 'file', id, elo: 1500, startElo: 1500, updates: 0, lastUsedMs: 0 });
const key = (id: string) => ratingKey('file', id);
const nothingStored = { loadItems: async (_refs: readonly ItemRef[]) => [] as EloItemState[] };

function hotSet(bound: number, kept: Set<string>, pinned: (key: string) => boolean = () => false): { hot: EloHotSet; evicted: string[] } {
  const evicted: string[] = [];
  const hot = new EloHotSet(
    bound,
    nothingStored,
    pinned,
    false,
    (error) => {
      throw error;
    },
    { admitted: () => undefined, evicted: (item) => evicted.push(item.id) },
    kept,
  );
  return { hot, evicted };
}

describe('EloHotSet items kept in memory (the content prompts rank)', () => {
  test('are never evicted while kept, and count beside the bound', () => {
    const kept = new Set([key('lesson-0'), key('lesson-1'), key('lesson-2')]);
    const { hot, evicted } = hotSet(4, kept);
    // The kept items are the least recently used ones.
    for (let i = 0; i < 3; i++) hot.set(key(`lesson-${i}`), state(`lesson-${i}`));
    for (let i = 0; i < 10; i++) hot.set(key(`f${i}`), state(`f${i}`));
    hot.evict();
    expect(hot.size).toBe(4 + 3);
    for (let i = 0; i < 3; i++) expect(hot.peek(key(`lesson-${i}`))).toBeDefined();
    // The others go least recently used first: the four newest stay.
    expect(evicted).toEqual(['f0', 'f1', 'f2', 'f3', 'f4', 'f5']);
    for (let i = 6; i < 10; i++) expect(hot.peek(key(`f${i}`))).toBeDefined();
  });

  test('an item no longer kept is evicted like any other', () => {
    const kept = new Set([key('lesson-0')]);
    const { hot, evicted } = hotSet(2, kept);
    hot.set(key('lesson-0'), state('lesson-0'));
    for (let i = 0; i < 2; i++) hot.set(key(`f${i}`), state(`f${i}`));
    hot.evict();
    expect(evicted).toEqual([]);
    kept.delete(key('lesson-0'));
    hot.set(key('f2'), state('f2'));
    hot.evict();
    // The bound is 2 again, and lesson-0 is the least recently used.
    expect(evicted).toEqual(['lesson-0', 'f0']);
    expect(hot.size).toBe(2);
  });

  test('kept and pinned items passed over move to the end of the map, so the next eviction starts past them', () => {
    const kept = new Set<string>();
    for (let i = 0; i < 1_000; i++) kept.add(key(`lesson-${i}`));
    let pinnedAsked = 0;
    const { hot, evicted } = hotSet(10, kept, () => {
      pinnedAsked++;
      return false;
    });
    for (let i = 0; i < 1_000; i++) hot.set(key(`lesson-${i}`), state(`lesson-${i}`));
    for (let i = 0; i < 20; i++) hot.set(key(`f${i}`), state(`f${i}`));
    hot.evict();
    expect(evicted).toEqual(['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9']);
    // Each further item evicts one: the kept ones are no longer at the least recently used end.
    pinnedAsked = 0;
    for (let i = 20; i < 120; i++) {
      hot.set(key(`f${i}`), state(`f${i}`));
      hot.evict();
    }
    expect(evicted).toHaveLength(110);
    expect(hot.size).toBe(1_010);
    // One pinned check per item evicted: none spent on the 1,000 kept ones.
    expect(pinnedAsked).toBe(100);
  });
});

describe('EloHotSet eviction (the clock: least recently used, nearly)', () => {
  test('an item used since it came in is passed over once, then evicted when the eviction comes round to it unused', () => {
    const { hot, evicted } = hotSet(3, new Set());
    for (const id of ['a', 'b', 'c']) hot.set(key(id), state(id));
    hot.get(key('a'));
    hot.peek(key('b'));
    for (const id of ['d', 'e', 'f', 'g']) {
      hot.set(key(id), state(id));
      hot.evict();
    }
    // a was used (peek is not a use): b went first; a's chance took it past c and d.
    expect(evicted).toEqual(['b', 'c', 'd', 'a']);
    expect([...hot.values()].map((item) => item.id)).toEqual(['e', 'f', 'g']);
  });

  test('an item used again and again stays, however many others come and go', () => {
    const { hot, evicted } = hotSet(10, new Set());
    for (let i = 0; i < 500; i++) {
      hot.set(key(`f${i}`), state(`f${i}`));
      hot.get(key('f0'));
      hot.evict();
    }
    expect(hot.peek(key('f0'))).toBeDefined();
    expect(evicted).toHaveLength(490);
    expect(evicted).not.toContain('f0');
    expect(hot.size).toBe(10);
  });
});
