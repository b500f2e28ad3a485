import { describe, expect, test } from 'bun:test';
import { type EloBookMoves, HeldMoves } from '../../src/elo/elo-listeners';

/** A book that writes down every move made on it. */
function recordingBook(): EloBookMoves & { moves: unknown[][] } {
  const moves: unknown[][] = [];
  return {
    moves,
    recordRetrieval: (retrieval, atMs) => void moves.push(['retrieval', retrieval.tool, atMs]),
    recordOutcome: (items, outcome, reason, atMs) => void moves.push(['outcome', items.map((i) => i.id), outcome, reason, atMs]),
    settle: (context, reward, reason, options) => moves.push(['settle', context, reward, reason, options?.atMs]),
    registerContent: (items) => void moves.push(['register', [...items].map((i) => i.id)]),
    forgetContent: (kind, id) => void moves.push(['forget', kind, id]),
  };
}

describe('HeldMoves: the ELO book\'s moves made before it is open', () => {
  test('kept in order with the time each happened, made on the book when it opens, then straight through', () => {
    const held = new HeldMoves();
    held.recordRetrieval({ tool: 'scan_lessons', query: 'q', results: [{ kind: 'lesson', id: 'a', rank: 1 }] }, 1_000);
    const items = [{ kind: 'lesson', id: 'b', title: 'b', text: 'b' }];
    held.registerContent(items);
    // The caller's array changing later does not change what was registered.
    items.push({ kind: 'lesson', id: 'c', title: 'c', text: 'c' });
    held.settle('message:m1', 1, 'fixed', { atMs: 2_000 });
    held.recordOutcome([{ kind: 'rule', id: 'r' }], 0, 'rule_violated', 3_000);
    held.forgetContent('lesson', 'b');
    const before = Date.now();
    held.settle('message:m2', -1, 'rejected');
    const book = recordingBook();
    expect(held.deliverTo(book)).toBe(6);
    expect(book.moves.slice(0, 5)).toEqual([
      ['retrieval', 'scan_lessons', 1_000],
      ['register', ['b']],
      ['settle', 'message:m1', 1, 'fixed', 2_000],
      ['outcome', ['r'], 0, 'rule_violated', 3_000],
      ['forget', 'lesson', 'b'],
    ]);
    // A move without a time gets the time it was made, not the time it was delivered.
    const [name, context, , , atMs] = book.moves[5] as [string, string, number, string, number];
    expect([name, context]).toEqual(['settle', 'message:m2']);
    expect(atMs).toBeGreaterThanOrEqual(before);
    expect(atMs).toBeLessThanOrEqual(Date.now());
    held.forgetContent('rule', 'r');
    expect(book.moves).toHaveLength(7);
    expect(book.moves[6]).toEqual(['forget', 'rule', 'r']);
    expect(held.dropped).toBe(0);
  });

  test('beyond its limit the oldest moves are dropped and counted', () => {
    const held = new HeldMoves(3);
    for (let i = 0; i < 5; i++) held.forgetContent('lesson', `l${i}`);
    const book = recordingBook();
    expect(held.deliverTo(book)).toBe(3);
    expect(book.moves).toEqual([['forget', 'lesson', 'l2'], ['forget', 'lesson', 'l3'], ['forget', 'lesson', 'l4']]);
    expect(held.dropped).toBe(2);
  });
});
