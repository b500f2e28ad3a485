import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { isInjectable, ruleAfterValidation } from '../../src/rules/model/rule-confidence';
import { DEFAULT_CONFLICT_SIMILARITY, findConflicts, markConflicts, scopesOverlap } from '../../src/rules/model/conflicts';
import { topicTokens } from '../../src/rules/model/wording';
import { makeRule, T0 } from '../helpers/rule-fixtures';

describe('scopesOverlap', () => {
  const table: [string, string[], string, string[], boolean][] = [
    ['git', [], 'git', ['push'], true], // no tags: the whole category
    ['git', ['push'], 'git', ['push', 'main'], true],
    ['git', ['push'], 'git', ['rebase'], false],
    ['git', [], 'shell', [], false],
  ];
  test.each(table)('%s %p vs %s %p => %p', (c1, t1, c2, t2, expected) => {
    expect(scopesOverlap({ category: c1, tags: t1 }, { category: c2, tags: t2 })).toBe(expected);
    expect(scopesOverlap({ category: c2, tags: t2 }, { category: c1, tags: t1 })).toBe(expected);
  });
});

test('topic tokens drop cues and negations', () => {
  expect(topicTokens("Never force-push to main")).toEqual(['force-push', 'main']);
  expect(topicTokens("Don't ever force-push to main")).toEqual(['ever', 'force-push', 'main']);
  expect(topicTokens('Always force-push to main')).toEqual(['force-push', 'main']);
});

describe('findConflicts', () => {
  const must = makeRule({ id: 'R-001', type: 'MUST', category: 'git', rule: 'Always force-push to main after a rebase' });
  const never = makeRule({ id: 'R-002', type: 'NEVER', category: 'git', rule: 'Never force-push to main after a rebase' });

  test('a MUST and a NEVER about the same thing in the same scope conflict', () => {
    expect(findConflicts([never, must])).toEqual([{ mustId: 'R-001', neverId: 'R-002', similarity: expect.closeTo(1, 9) }]);
  });

  const none: [string, string[], Parameters<typeof makeRule>[0]][] = [
    ['another category', [], { id: 'R-002', type: 'NEVER', category: 'shell', rule: never.rule }],
    ['disjoint tags', ['y'], { id: 'R-002', type: 'NEVER', category: 'git', tags: ['x'], rule: never.rule }],
    ['another topic', [], { id: 'R-002', type: 'NEVER', category: 'git', rule: 'Never commit secrets to the repository' }],
    ['not a NEVER', [], { id: 'R-002', type: 'PREFER', category: 'git', rule: never.rule }],
    ['retired', [], { id: 'R-002', type: 'NEVER', category: 'git', rule: never.rule, status: 'retired' }],
  ];
  test.each(none)('no conflict: %s', (_name, mustTags, patch) => {
    expect(findConflicts([{ ...must, tags: mustTags }, makeRule(patch)])).toEqual([]);
  });

  test('the threshold is a parameter, default 0.5', () => {
    expect(DEFAULT_CONFLICT_SIMILARITY).toBe(0.5);
    const partly = makeRule({ id: 'R-003', type: 'NEVER', category: 'git', rule: 'Never force-push to a shared branch' });
    const [c] = findConflicts([must, partly], 0);
    expect(c?.similarity).toBeGreaterThan(0);
    expect(c?.similarity).toBeLessThan(1);
    expect(findConflicts([must, partly], (c?.similarity ?? 0) + 1e-9)).toEqual([]);
  });

  test('property: found pairs are exactly the MUST/NEVER pairs of one category with overlapping scopes and the same topic', () => {
    const topics = ['force-push to main', 'commit secrets', 'post after midnight'];
    const rule = fc.record({
      type: fc.constantFrom('MUST' as const, 'NEVER' as const, 'CHECK' as const, 'PREFER' as const),
      category: fc.constantFrom('git', 'social'),
      tags: fc.subarray(['a', 'b']),
      topic: fc.constantFrom(...topics),
    });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 12 }), (specs) => {
        const rules = specs.map((s, i) => makeRule({ id: `R-${String(i + 1).padStart(3, '0')}`, type: s.type, category: s.category, tags: s.tags, rule: `${s.type === 'NEVER' ? 'Never' : 'Always'} ${s.topic}` }));
        const expected: string[] = [];
        for (const m of rules) for (const n of rules) {
          const sameTopic = specs[rules.indexOf(m)]?.topic === specs[rules.indexOf(n)]?.topic;
          if (m.type === 'MUST' && n.type === 'NEVER' && sameTopic && scopesOverlap(m, n)) expected.push(`${m.id}/${n.id}`);
        }
        expect(findConflicts(rules).map((c) => `${c.mustId}/${c.neverId}`)).toEqual(expected.sort());
      }),
    );
  });
});

describe('markConflicts', () => {
  const must = makeRule({ id: 'R-001', type: 'MUST', category: 'git', rule: 'Always force-push to main' });
  const never = makeRule({ id: 'R-002', type: 'NEVER', category: 'git', rule: 'Never force-push to main' });
  const other = makeRule({ id: 'R-003', type: 'NEVER', category: 'git', rule: 'Never commit secrets' });

  test('both sides are flagged, never both injected; others untouched', () => {
    const marked = markConflicts([must, never, other]);
    expect(marked.map((r) => [r.id, r.conflictsWith, r.reviewFlagged])).toEqual([
      ['R-001', ['R-002'], true],
      ['R-002', ['R-001'], true],
      ['R-003', [], false],
    ]);
    expect(marked.filter((r) => isInjectable(r, T0)).map((r) => r.id)).toEqual(['R-003']);
  });

  test('validation clears the flag but not the conflict; retiring one side frees the other', () => {
    const [m, n] = markConflicts([must, never]) as [typeof must, typeof never];
    expect(isInjectable(ruleAfterValidation(m, T0), T0)).toBe(false);
    const after = markConflicts([ruleAfterValidation(m, T0), { ...n, status: 'retired' }]);
    expect(after[0]?.conflictsWith).toEqual([]);
    expect(isInjectable(after[0] as typeof must, T0)).toBe(true);
  });

  test('a rule in two conflicts lists both partners, sorted', () => {
    const never2 = makeRule({ id: 'R-000', type: 'NEVER', category: 'git', rule: 'Never force-push to main!' });
    expect(markConflicts([must, never, never2])[0]?.conflictsWith).toEqual(['R-000', 'R-002']);
  });
});
