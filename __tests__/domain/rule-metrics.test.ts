import { describe, expect, test } from 'bun:test';
import { guardLogEntry } from '../../src/rules/model/logs';
import { isRegression, weeklyRuleMetrics, weekSatisfaction } from '../../src/rules/model/metrics';
import { DAY, makeEvent, makeRuleLesson, makeRule, T0 } from '../helpers/rule-fixtures';

// T0 = Monday 2026-02-02 = the start of 2026-W06.
const W06 = T0;
const W07 = T0 + 7 * DAY;

describe('isRegression', () => {
  const rule = makeRule({ id: 'R-001', category: 'shell', tags: ['fs'], createdMs: W06 + DAY });
  const table: [string, Parameters<typeof makeEvent>[0], boolean][] = [
    ['a mistake in scope after the rule', { type: 'mistake', tsMs: W06 + 2 * DAY, tags: ['fs'] }, true],
    ['before the rule existed', { type: 'mistake', tsMs: W06, tags: ['fs'] }, false],
    ['out of scope (tags)', { type: 'mistake', tsMs: W06 + 2 * DAY, tags: ['net'] }, false],
    ['an event without tags is in scope of a tagged rule of its category', { type: 'mistake', tsMs: W06 + 2 * DAY }, true],
    ['not a mistake', { type: 'success', tsMs: W06 + 2 * DAY, tags: ['fs'] }, false],
  ];
  test.each(table)('%s', (_name, patch, expected) => {
    expect(isRegression(makeEvent(patch), [rule])).toBe(expected);
  });
});

describe('weekSatisfaction', () => {
  const fb = (feedback: string) => makeEvent({ type: 'feedback', feedback });
  test.each([
    [[fb('great'), fb('thanks, perfect'), fb('wrong'), fb('ok then')], [], 0.67], // 2 of 3 known
    [[fb('hm')], ['success', 'failure', 'success', 'pending'], 0.67], // falls back to guard outcomes
    [[], ['pending'], null],
    [[], [], null],
  ] as const)('%#', (events, outcomes, expected) => {
    expect(weekSatisfaction(events, outcomes)).toBe(expected);
  });
});

describe('weeklyRuleMetrics', () => {
  const rule = makeRule({ id: 'R-001', category: 'shell', createdMs: W06 + 3 * DAY, violations: 2 });
  const retired = makeRule({ id: 'R-002', category: 'git', createdMs: W06, violations: 1, status: 'retired' });
  const lessons = [
    makeRuleLesson({ id: 'L-001', createdMs: W06, promotedToRule: 'R-001', timesApplied: 4, timesSaved: 1 }),
    makeRuleLesson({ id: 'L-002', createdMs: W07 + DAY, timesApplied: 1 }),
  ];
  const events = [
    makeEvent({ type: 'mistake', tsMs: W06 + DAY }),
    makeEvent({ type: 'success', tsMs: W06 + 2 * DAY }),
    makeEvent({ type: 'mistake', tsMs: W07 + DAY, problem: 'again' }), // after R-001: a regression
    makeEvent({ type: 'feedback', tsMs: W07 + 2 * DAY, feedback: 'great' }),
    makeEvent({ type: 'debug_session', tsMs: W07 + 2 * DAY }),
    makeEvent({ type: 'discovery', tsMs: W07 + 3 * DAY }),
  ];
  const guard = [
    { ...guardLogEntry({ nowMs: W06 + DAY, action: 'a', matches: [], randomHex: 'abcdef' }), outcome: 'failure' as const },
    { ...guardLogEntry({ nowMs: W06 + 2 * DAY, action: 'b', matches: [], randomHex: 'abcdef' }), outcome: 'success' as const },
  ];
  const metrics = weeklyRuleMetrics({ events, lessons, rules: [rule, retired], guardEntries: guard, nowMs: W07 + 4 * DAY + 3_600_000, startedMs: W06 + 2 * DAY });

  test('the seed format, one entry per ISO week since the start', () => {
    expect(metrics.version).toBe('1.4.0');
    expect(metrics.started).toBe('2026-02-04');
    expect(metrics.weekly).toEqual([
      {
        week: '2026-W06',
        generated: '2026-02-13T01:00:00Z',
        events: { total: 2, mistakes: 1, successes: 1, debug_sessions: 0, feedback: 0, discoveries: 0 },
        regressions: 0,
        rules_active: 1,
        lessons_total: 1,
        lessons_promoted: 1,
        total_violations: 3,
        satisfaction: 0.5,
      },
      {
        week: '2026-W07',
        generated: '2026-02-13T01:00:00Z',
        events: { total: 4, mistakes: 1, successes: 0, debug_sessions: 1, feedback: 1, discoveries: 1 },
        regressions: 1,
        rules_active: 1,
        lessons_total: 2,
        lessons_promoted: 1,
        total_violations: 3,
        satisfaction: 1,
      },
    ]);
    expect(metrics.totals).toEqual({ events: 6, lessons: 2, rules: 1, total_violations: 3, total_saves: 1, total_applied: 5, promoted: 1 });
  });

  test('a week before a rule existed does not count it', () => {
    const early = weeklyRuleMetrics({ events: [], lessons: [], rules: [makeRule({ id: 'R-1', createdMs: W07 })], guardEntries: [], nowMs: W07 + DAY, startedMs: W06 });
    expect(early.weekly.map((w) => [w.week, w.rules_active, w.satisfaction])).toEqual([
      ['2026-W06', 0, null],
      ['2026-W07', 1, null],
    ]);
  });

  test('across a year end with 53 weeks', () => {
    const start = Date.UTC(2026, 11, 28);
    const weeks = weeklyRuleMetrics({ events: [], lessons: [], rules: [], guardEntries: [], nowMs: Date.UTC(2027, 0, 5), startedMs: start }).weekly.map((w) => w.week);
    expect(weeks).toEqual(['2026-W53', '2027-W01']);
  });

  test('now before the start gives no weeks', () => {
    expect(weeklyRuleMetrics({ events: [], lessons: [], rules: [], guardEntries: [], nowMs: T0, startedMs: T0 + 30 * DAY }).weekly).toEqual([]);
  });
});
