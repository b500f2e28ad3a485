import { describe, expect, test } from 'bun:test';
import { PENDING_PAGE, pageOfGroups } from '../../src/scan/scan-learner';

describe('pages of pending groups', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  test('whole groups up to PENDING_PAGE outcomes; a group larger than a page is read alone; every group in exactly one page', () => {
    const counts = [PENDING_PAGE * 0.4, PENDING_PAGE * 0.5, PENDING_PAGE * 0.2, PENDING_PAGE * 3, 10];
    const groups = ids.map((groupId, i) => ({ groupId, count: counts[i] as number }));
    const pages: string[][] = [];
    for (let at = 0; at < groups.length; at += pages[pages.length - 1]?.length ?? 1) pages.push(pageOfGroups(groups, at));
    expect(pages).toEqual([['a', 'b'], ['c'], ['d'], ['e']]);
  });
  test('many small groups share one page', () => {
    expect(pageOfGroups(ids.map((groupId) => ({ groupId, count: 3 })), 1)).toEqual(['b', 'c', 'd', 'e']);
  });
});
