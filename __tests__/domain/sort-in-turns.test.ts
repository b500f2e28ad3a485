import { describe, expect, test } from 'bun:test';
import { SORT_STEP, sortedInTurns } from '../../src/shared/sort-in-turns';
import { seededRandom } from '../helpers/random';

describe('sorting in turns of the event loop', () => {
  test.each([0, 1, SORT_STEP - 1, SORT_STEP, SORT_STEP + 1, 5 * SORT_STEP + 17])('%p items: the order Array.prototype.sort gives, ties in their first order', async (n) => {
    const next = seededRandom(n + 1);
    // Keys with repeats, shared prefixes, JSON punctuation and non-ASCII text, as group ids have.
    const items = Array.from({ length: n }, (_, i) => ({ key: JSON.stringify([`p-${Math.floor(next() * 300)}`, next() < 0.5 ? 'semgrep' : 'codeql', next() < 0.1 ? 'ünïcode' : 'x']), i }));
    const expected = [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    expect(await sortedInTurns(items, (item) => item.key)).toEqual(expected);
  });

  test('gives the event loop a turn while it sorts: a timer set before runs before it ends', async () => {
    const items = Array.from({ length: 4 * SORT_STEP }, (_, i) => String((i * 7919) % 10_007));
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const sorted = sortedInTurns(items, (s) => s);
    let timerRanBeforeEnd = false;
    await Promise.race([sorted, new Promise((resolve) => setTimeout(resolve, 0))]).then(() => {
      timerRanBeforeEnd = timerRan;
    });
    expect(timerRanBeforeEnd).toBe(true);
    expect(await sorted).toEqual([...items].sort());
  });
});
