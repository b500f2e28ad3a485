import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { lexicalVector } from '../../src/shared/lexical-vector';
import {
  applyVerdict,
  DEFAULT_GUARD_THRESHOLD,
  forbiddenWords,
  guardScore,
  judgeRuleOnOutcome,
  matchRulesForAction,
} from '../../src/rules/model/guard';
import { guardEntryFromWire, guardEntryToWire, guardEntryWireSchema, guardLogEntry, withGuardOutcome } from '../../src/rules/model/logs';
import { prepareRule, ruleVectorText } from '../../src/rules/model/prompt';
import { RULE_TYPES } from '../../src/rules/model/types';
import { DAY, makeRule, T0 } from '../helpers/rule-fixtures';

const rules = [
  makeRule({ id: 'R-020', type: 'NEVER', category: 'social', tags: ['moltbook'], rule: 'Never post to moltbook after midnight' }),
  makeRule({ id: 'R-022', type: 'CHECK', category: 'social', rule: 'Check the post for secrets before posting' }),
  makeRule({ id: 'R-030', type: 'MUST', category: 'git', rule: 'Always run the tests before pushing' }),
  makeRule({ id: 'R-031', type: 'NEVER', category: 'social', tags: ['moltbook'], rule: 'Never post to moltbook after midnight', status: 'retired' }),
];
const prepared = rules.map((r) => prepareRule(r));
const match = (action: string, threshold = DEFAULT_GUARD_THRESHOLD, nowMs = T0) => matchRulesForAction(action, lexicalVector(action), prepared, { nowMs, threshold });

describe('guardScore', () => {
  const p = prepareRule(makeRule({ id: 'R-1', category: 'social', tags: ['moltbook', 'night'] }));
  const table: [string[], number, number][] = [
    [[], 0.3, 0.3],
    [['social'], 0.3, 0.55],
    [['social', 'moltbook'], 0.3, 0.675], // one of two tags
    [['social', 'moltbook', 'night'], 0.3, 0.8],
    [['social', 'moltbook', 'night'], 0.9, 1], // capped
    [[], -0.4, 0], // a negative cosine is 0
  ];
  test.each(table)('words %p, cosine %d => %d', (words, cosine, score) => {
    expect(guardScore(p, new Set(words), cosine)).toBeCloseTo(score, 12);
  });

  test('property: in [0, 1]', () => {
    fc.assert(
      fc.property(fc.subarray(['social', 'moltbook', 'night', 'x']), fc.double({ min: -1, max: 1, noNaN: true }), (words, cosine) => {
        const s = guardScore(p, new Set(words), cosine);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('matchRulesForAction', () => {
  test('rules about the action match, best first; retired ones never', () => {
    const matches = match('post to moltbook on social');
    expect(matches.map((m) => m.rule.id)).toEqual(['R-020', 'R-022']);
    expect(matches[0]?.score).toBeGreaterThan(matches[1]?.score ?? 1);
    for (const m of matches) {
      expect(m.score).toBeGreaterThanOrEqual(DEFAULT_GUARD_THRESHOLD);
      expect(m.score).toBeLessThanOrEqual(1);
    }
  });

  test('an unrelated action matches nothing; a decayed rule is left out', () => {
    expect(match('water the plants')).toEqual([]);
    expect(match('post to moltbook on social', DEFAULT_GUARD_THRESHOLD, T0 + 40 * DAY)).toEqual([]);
  });

  test('the same rule text scores 1 against itself', () => {
    const text = ruleVectorText(rules[2] as (typeof rules)[2]);
    expect(matchRulesForAction(text, lexicalVector(text), prepared, { nowMs: T0 })[0]).toMatchObject({ rule: { id: 'R-030' }, score: 1 });
  });

  test('equal scores are ordered by id', () => {
    const twins = ['R-009', 'R-002', 'R-005'].map((id) => prepareRule(makeRule({ id, category: 'git', rule: 'Always run the tests' })));
    const text = 'git: always run the tests';
    expect(matchRulesForAction(text, lexicalVector(text), twins, { nowMs: T0 }).map((m) => m.rule.id)).toEqual(['R-002', 'R-005', 'R-009']);
  });
});

describe('guardLogEntry', () => {
  test('the seed format', () => {
    const matches = match('post to moltbook on social');
    const entry = guardLogEntry({ nowMs: Date.UTC(2026, 1, 11, 10, 30, 52, 400), action: 'post to moltbook', matches, randomHex: 'a1b2c3' });
    const wire = guardEntryToWire(entry);
    expect(Object.keys(wire)).toEqual(['id', 'ts', 'action', 'matched_rules', 'scores', 'save_logged', 'outcome']);
    expect(wire).toMatchObject({ id: 'g-103052-a1b2c3', ts: '2026-02-11T10:30:52Z', action: 'post to moltbook', matched_rules: ['R-020', 'R-022'], save_logged: false, outcome: 'pending' });
    expect(entry.scores).toEqual({ 'R-020': Math.round((matches[0]?.score ?? 0) * 100) / 100, 'R-022': Math.round((matches[1]?.score ?? 0) * 100) / 100 });
    expect(entry.tsMs).toBe(Date.UTC(2026, 1, 11, 10, 30, 52));
    expect(guardEntryFromWire(guardEntryWireSchema.parse(JSON.parse(JSON.stringify(wire))))).toEqual(entry);
    expect(withGuardOutcome(entry, 'success', true)).toMatchObject({ outcome: 'success', saveLogged: true, id: entry.id });
  });

  test.each(['A1B2C3', 'a1b2c', 'zzzzzz'])('randomHex %p is a programmer error', (hex) => {
    expect(() => guardLogEntry({ nowMs: T0, action: 'x', matches: [], randomHex: hex })).toThrow(/randomHex/);
  });

  test('a long action is cut; a stored entry that is not one reads as null', () => {
    expect(guardLogEntry({ nowMs: T0, action: 'x'.repeat(900), matches: [], randomHex: '000000' }).action).toHaveLength(500);
    expect(guardEntryWireSchema.safeParse({ id: 'g-1', ts: 'x' }).success).toBe(false);
  });
});

describe('judgeRuleOnOutcome', () => {
  const never = { type: 'NEVER' as const, rule: 'Never: force pushed to main. Instead: open a pull request' };
  test('forbidden words are those before "instead", without cues', () => {
    expect(forbiddenWords(never.rule)).toEqual(['force', 'pushed', 'main']);
  });

  const table: [string, (typeof RULE_TYPES)[number], string, boolean, string, string][] = [
    ['NEVER broken though it succeeded', 'NEVER', never.rule, true, 'force pushed the fix to main', 'violated'],
    ['NEVER broken and failed', 'NEVER', never.rule, false, 'force pushed to main', 'violated'],
    ['NEVER followed and succeeded', 'NEVER', never.rule, true, 'opened a pull request', 'validated'],
    ['NEVER followed, failed elsewhere', 'NEVER', never.rule, false, 'opened a pull request', 'unchanged'],
    ['MUST matched, succeeded', 'MUST', 'Always run the tests', true, 'ran the tests and pushed', 'validated'],
    ['MUST matched, failed', 'MUST', 'Always run the tests', false, 'pushed', 'violated'],
    ['CHECK matched, failed', 'CHECK', 'Check the recipient', false, 'sent the mail', 'violated'],
    ['PREFER, succeeded', 'PREFER', 'Prefer small commits', true, 'committed', 'validated'],
    ['PREFER, failed', 'PREFER', 'Prefer small commits', false, 'committed', 'unchanged'],
  ];
  test.each(table)('%s', (_name, type, rule, succeeded, actionText, verdict) => {
    expect(judgeRuleOnOutcome({ type, rule }, { succeeded, actionText })).toBe(verdict as ReturnType<typeof judgeRuleOnOutcome>);
  });

  test('applyVerdict validates, counts a violation, or leaves the rule', () => {
    const rule = makeRule({ id: 'R-1', lastValidatedMs: T0 - 30 * DAY, confidenceScore: 0.5 });
    expect(applyVerdict(rule, 'validated', T0)).toMatchObject({ confidenceScore: 0.9, validationCount: 1, lastValidatedMs: T0 });
    expect(applyVerdict(rule, 'violated', T0)).toMatchObject({ violations: 1, lastCheckedMs: T0, lastValidatedMs: T0 - 30 * DAY });
    expect(applyVerdict(rule, 'unchanged', T0)).toBe(rule);
  });
});
