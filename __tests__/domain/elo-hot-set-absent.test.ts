import { describe, expect, test } from 'bun:test';
import { ABSENT_FOR_MS, EloHotSet, ratingKey } from '../../src/elo/elo-hot-set';
import type { EloItemState } from '../../src/elo/elo-store';
import type { ItemRef } from '../../src/elo/model/exposures';

/** A store of item states that counts how often each item is asked for (what another process writes goes straight in). */
class CountingSource {
  readonly stored = new Map<string, EloItemState>();
  readonly asked = new Map<string, number>();
  async loadItems(refs: readonly ItemRef[]): Promise<EloItemState[]> {
    for (const r of refs) this.asked.set(ratingKey(r.kind, r.id), (this.asked.get(ratingKey(r.kind, r.id)) ?? 0) + 1);
    return refs.flatMap((r) => {
      const item = this.stored.get(ratingKey(r.kind, r.id));
      return item ? [{ ...item }] : [];
    });
  }
  askedFor(id: string): number {
    return this.asked.get(ratingKey('file', id)) ?? 0;
  }
}

const state = (id: string, elo = 1500): EloItemState => ({ kind: 'file', id, elo, startElo: 1500, updates: 0, lastUsedMs: 0 });
const ref = (id: string): ItemRef => ({ kind: 'file', id });

function hotSet(source: CountingSource): EloHotSet {
  return new EloHotSet(10, source, () => false, false, (error) => {
    throw error;
  });
}

describe('EloHotSet lookups of items never stored', () => {
  const T = 1_000_000;

  test('are read once, then answered from memory until ABSENT_FOR_MS has passed', async () => {
    const source = new CountingSource();
    const hot = hotSet(source);
    expect((await hot.lookup([ref('a')], T))('file', 'a')).toBeUndefined();
    expect((await hot.lookup([ref('a'), ref('a')], T + 1))('file', 'a')).toBeUndefined();
    expect((await hot.lookup([ref('a')], T + ABSENT_FOR_MS - 1))('file', 'a')).toBeUndefined();
    expect(source.askedFor('a')).toBe(1);
    // Another process stores it: seen once the answer has expired.
    source.stored.set(ratingKey('file', 'a'), state('a', 1620));
    expect((await hot.lookup([ref('a')], T + ABSENT_FOR_MS - 1))('file', 'a')).toBeUndefined();
    expect((await hot.lookup([ref('a')], T + ABSENT_FOR_MS))('file', 'a')?.elo).toBe(1620);
    expect(source.askedFor('a')).toBe(2);
  });

  test('an item this process stores is found at once, whatever a lookup said before', async () => {
    const source = new CountingSource();
    const hot = hotSet(source);
    expect((await hot.lookup([ref('b')], T))('file', 'b')).toBeUndefined();
    hot.set(ratingKey('file', 'b'), state('b', 1530));
    expect((await hot.lookup([ref('b')], T + 1))('file', 'b')?.elo).toBe(1530);
    // Evicted from memory, it is read again rather than taken as never stored.
    for (let i = 0; i < 20; i++) hot.set(ratingKey('file', `x${i}`), state(`x${i}`));
    hot.evict();
    source.stored.set(ratingKey('file', 'b'), state('b', 1530));
    expect((await hot.lookup([ref('b')], T + 2))('file', 'b')?.elo).toBe(1530);
    expect(source.askedFor('b')).toBe(2);
  });

  test('are remembered up to a bound, the oldest forgotten first', async () => {
    const source = new CountingSource();
    const hot = hotSet(source);
    const many = Array.from({ length: 20_001 }, (_, i) => ref(`n${i}`));
    await hot.lookup(many, T);
    await hot.lookup([ref('n0'), ref('n1'), ref('n20000')], T + 1);
    expect([source.askedFor('n0'), source.askedFor('n1'), source.askedFor('n20000')]).toEqual([2, 1, 1]);
  });

  test('read again before their answer expires, they keep answering from memory; one another process stored meanwhile comes in at that reading', async () => {
    const source = new CountingSource();
    const hot = hotSet(source);
    await hot.lookup([ref('c'), ref('d')], T);
    expect(hot.absentDue(T + ABSENT_FOR_MS - 1)).toEqual([]);
    expect(hot.absentDue(T + ABSENT_FOR_MS)).toEqual([ref('c'), ref('d')]);
    source.stored.set(ratingKey('file', 'd'), state('d', 1580));
    await hot.readAgain(hot.absentDue(T + ABSENT_FOR_MS), T + 20_000);
    expect([source.askedFor('c'), source.askedFor('d')]).toEqual([2, 2]);
    // d is in memory now; c is taken as never stored until T + 20 s + ABSENT_FOR_MS, past its first answer's expiry.
    expect(hot.peek(ratingKey('file', 'd'))?.elo).toBe(1580);
    const later = await hot.lookup([ref('c'), ref('d')], T + ABSENT_FOR_MS + 5_000);
    expect([later('file', 'c'), later('file', 'd')?.elo]).toEqual([undefined, 1580]);
    expect([source.askedFor('c'), source.askedFor('d')]).toEqual([2, 2]);
    expect(hot.absentDue(T + 20_000 + ABSENT_FOR_MS)).toEqual([ref('c')]);
  });

  test('reading again leaves alone what memory holds: a rating this process changed is not replaced by an older stored one', async () => {
    const source = new CountingSource();
    const hot = hotSet(source);
    await hot.lookup([ref('e')], T);
    hot.set(ratingKey('file', 'e'), state('e', 1544));
    source.stored.set(ratingKey('file', 'e'), state('e', 1500));
    await hot.readAgain([ref('e')], T + 1);
    expect(hot.peek(ratingKey('file', 'e'))?.elo).toBe(1544);
    expect(hot.absentDue(Number.POSITIVE_INFINITY)).toEqual([]);
  });
});
