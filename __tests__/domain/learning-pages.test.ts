import { describe, expect, test } from 'bun:test';
import { PENDING_PAGE, pageOfGroups } from '../../src/scan/scan-learner';

describe('pages of pending groups', () => {
  const groups = ['a', 'b', 'c', 'd', 'e'];
  test('whole groups up to PENDING_PAGE outcomes; a group larger than a page is read alone; every group in exactly one page', () => {
    const counts = new Map([
      ['a', PENDING_PAGE * 0.4],
      ['b', PENDING_PAGE * 0.5],
      ['c', PENDING_PAGE * 0.2],
      ['d', PENDING_PAGE * 3],
      ['e', 10],
    ]);
    const pages: string[][] = [];
    for (let at = 0; at < groups.length; at += pages[pages.length - 1]?.length ?? 1) pages.push(pageOfGroups(groups, at, counts));
    expect(pages).toEqual([['a', 'b'], ['c'], ['d'], ['e']]);
  });
  test('many small groups share one page', () => {
    const counts = new Map(groups.map((g) => [g, 3]));
    expect(pageOfGroups(groups, 1, counts)).toEqual(['b', 'c', 'd', 'e']);
  });
});
