import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  DEFAULT_PROMOTION_CRITERIA,
  DEFAULT_SCAN_PROMOTION_CRITERIA,
  promoteRuleLesson,
  type PromotionRefusal,
  promotionDecision,
  ruleFromRuleLesson,
  ruleFromScanLesson,
  ruleTextFor,
  ruleTypeFor,
  type ScanLessonStats,
  scanLessonPromotion,
  scanRuleCategory,
} from '../../src/rules/model/promotion';
import { EVENT_TYPES, type EventType } from '../../src/rules/model/types';
import { typeCue } from '../../src/rules/model/wording';
import { DAY, makeRuleLesson, T0 } from '../helpers/rule-fixtures';

const counts = (patch: Partial<Record<EventType, number>>): Record<EventType, number> => ({ mistake: 0, success: 0, debug_session: 0, feedback: 0, discovery: 0, ...patch });
const ids = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);

describe('typeCue', () => {
  const table: [string, string | null][] = [
    ['Never force-push to main', 'NEVER'],
    ["don't post after midnight", 'NEVER'],
    ['Don’t post after midnight', 'NEVER'],
    ['Do not share keys', 'NEVER'],
    ['  Avoid: rm -rf /', 'NEVER'],
    ['must not skip tests', 'NEVER'], // before "must"
    ['Always back up first', 'MUST'],
    ['Make sure the cron is enabled', 'MUST'],
    ['Check pwd before deleting', 'CHECK'],
    ['Verify the token scope', 'CHECK'],
    ['double-check the recipient', 'CHECK'],
    ['Prefer rebase over merge', 'PREFER'],
    ['Use --dry-run first', 'PREFER'],
    ['Checkout the branch', null], // a cue is a whole word
    ['The deploy went fine', null],
  ];
  test.each(table)('%p => %p', (text, type) => {
    expect(typeCue(text)).toBe(type as ReturnType<typeof typeCue>);
  });
});

describe('ruleTypeFor', () => {
  const table: [string, string, Partial<Record<EventType, number>>, string][] = [
    ['wording of the action wins over counts', 'Always run the linter', { mistake: 5 }, 'MUST'],
    ['mistakes say NEVER', 'pushed without review', { mistake: 3 }, 'NEVER'],
    ['feedback states a requirement: MUST', 'tag the owner in posts', { feedback: 3, success: 1 }, 'MUST'],
    ['debug sessions say CHECK', 'the cache key includes the locale', { debug_session: 2, success: 1 }, 'CHECK'],
    ['successes and discoveries say PREFER', 'small commits review faster', { success: 2, discovery: 2, mistake: 3 }, 'PREFER'],
    ['a tie goes to the harder type', 'x', { mistake: 1, success: 1 }, 'NEVER'],
    ['a tie of MUST and CHECK is MUST', 'x', { feedback: 1, debug_session: 1 }, 'MUST'],
    ['no counts and no cue: PREFER', 'x', {}, 'PREFER'],
  ];
  test.each(table)('%s', (_name, action, c, type) => {
    expect(ruleTypeFor({ action, lesson: action, eventTypeCounts: counts(c) })).toBe(type as ReturnType<typeof ruleTypeFor>);
  });

  test('the lesson text is the second place a cue is looked for', () => {
    expect(ruleTypeFor({ action: 'the build cache', lesson: 'Verify the build cache', eventTypeCounts: counts({ mistake: 4 }) })).toBe('CHECK');
  });
});

describe('promotionDecision', () => {
  test('defaults: 3 events, 2 when proven, no minimum age', () => {
    expect(DEFAULT_PROMOTION_CRITERIA).toEqual({ minConfirmations: 3, minConfirmationsWhenProven: 2, minAgeDays: 0 });
  });

  const table: [string, Parameters<typeof makeRuleLesson>[0], PromotionRefusal | null][] = [
    ['3 events promote', { id: 'L-001', sourceEventIds: ids(3), eventTypeCounts: counts({ mistake: 3 }), action: 'x' }, null],
    ['2 events do not', { id: 'L-001', sourceEventIds: ids(2) }, 'too_few_confirmations'],
    ['2 events of a proven lesson do', { id: 'L-001', sourceEventIds: ids(2), confidence: 'proven' }, null],
    ['1 event of a proven lesson does not', { id: 'L-001', sourceEventIds: ids(1), confidence: 'proven' }, 'too_few_confirmations'],
    ['already promoted', { id: 'L-001', sourceEventIds: ids(9), promotedToRule: 'R-001' }, 'already_promoted'],
    ['flagged', { id: 'L-001', sourceEventIds: ids(9), reviewFlagged: true }, 'review_flagged'],
  ];
  test.each(table)('%s', (_name, patch, refusal) => {
    const decision = promotionDecision(makeRuleLesson(patch), DEFAULT_PROMOTION_CRITERIA, T0);
    expect(decision.promote ? null : decision.reason).toBe(refusal);
  });

  test('a promotion carries ruleTypeFor', () => {
    const lesson = makeRuleLesson({ id: 'L-001', sourceEventIds: ids(3), action: 'the db migration order', eventTypeCounts: counts({ debug_session: 3 }) });
    expect(promotionDecision(lesson, DEFAULT_PROMOTION_CRITERIA, T0)).toEqual({ promote: true, type: 'CHECK' });
  });

  test('minimum age', () => {
    const lesson = makeRuleLesson({ id: 'L-001', sourceEventIds: ids(3) });
    const criteria = { ...DEFAULT_PROMOTION_CRITERIA, minAgeDays: 2 };
    expect(promotionDecision(lesson, criteria, T0 + DAY)).toMatchObject({ promote: false, reason: 'too_young' });
    expect(promotionDecision(lesson, criteria, T0 + 2 * DAY).promote).toBe(true);
  });

  test('property: promoted exactly when the event count reaches the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 20 }), fc.boolean(), (n, min, proven) => {
        const lesson = makeRuleLesson({ id: 'L-001', sourceEventIds: ids(n), confidence: proven ? 'proven' : 'testing' });
        const criteria = { minConfirmations: min, minConfirmationsWhenProven: min, minAgeDays: 0 };
        expect(promotionDecision(lesson, criteria, T0).promote).toBe(n >= min);
      }),
    );
  });
});

describe('rule text and rule', () => {
  const table: [string, string, string, string][] = [
    ['Never force-push to main', 'force pushed', 'NEVER', 'Never force-push to main'],
    ['use a PR instead', 'force pushed to main.', 'NEVER', 'Never: force pushed to main. Instead: use a PR instead'],
    ['Avoid: force pushed', 'force pushed', 'NEVER', 'Avoid: force pushed'],
    ['back up the db', 'lost data', 'MUST', 'Always: back up the db'],
    ['Always back up the db', 'lost data', 'CHECK', 'Check: Always back up the db'], // the cue names another type
    ['pwd before rm', '', 'CHECK', 'Check: pwd before rm'],
    ['small commits', '', 'PREFER', 'Prefer: small commits'],
  ];
  test.each(table)('ruleTextFor(%p, %p, %s) = %p', (action, trigger, type, text) => {
    expect(ruleTextFor(action, trigger, type as Parameters<typeof ruleTextFor>[2])).toBe(text);
  });

  test('ruleFromRuleLesson: 0.9, counters 0, active, from the lesson', () => {
    const lesson = makeRuleLesson({ id: 'L-007', tags: ['fs'], sourceEventIds: ids(3), eventTypeCounts: counts({ mistake: 2, success: 1 }), validationCount: 1 });
    const rule = ruleFromRuleLesson(lesson, 'CHECK', 'R-003', T0 + DAY);
    expect(rule).toEqual({
      id: 'R-003',
      type: 'CHECK',
      category: 'shell',
      tags: ['fs'],
      rule: 'Check pwd before deleting',
      reason: 'Promoted from lesson L-007 after 3 events (2 mistake, 1 success), 1 validations. From a mistake in shell',
      createdMs: T0 + DAY,
      sourceLesson: 'L-007',
      violations: 0,
      lastCheckedMs: T0 + DAY,
      lastValidatedMs: T0 + DAY,
      validationCount: 0,
      confidenceScore: 0.9,
      reviewFlagged: false,
      status: 'active',
      conflictsWith: [],
    });
    expect(promoteRuleLesson(lesson, 'CHECK', 'R-003', T0).lesson.promotedToRule).toBe('R-003');
  });

  test('every event type votes for some rule type', () => {
    for (const t of EVENT_TYPES) expect(ruleTypeFor({ action: 'x', lesson: 'x', eventTypeCounts: counts({ [t]: 1 }) })).toMatch(/^(MUST|NEVER|PREFER|CHECK)$/);
  });
});

describe('scan lessons', () => {
  const stats: ScanLessonStats = {
    memoryId: 'mem-1',
    text: 'Treat reflected-xss findings from scanner S with scepticism',
    lessonCategory: 'false-positive-pattern',
    findingCategory: 'XSS',
    sampleSize: 40,
    scanLessonConfidence: 0.85,
    reinforcements: 4,
    firstSeenMs: T0,
    lastSeenMs: T0 + 20 * DAY,
  };
  const now = T0 + 25 * DAY;

  test('defaults', () => {
    expect(DEFAULT_SCAN_PROMOTION_CRITERIA).toEqual({ minSampleSize: 30, minScanLessonConfidence: 0.8, minReinforcements: 3, minSpanDays: 14, maxIdleDays: 30 });
  });

  test('strong, lasting support promotes, the kind choosing the type', () => {
    expect(scanLessonPromotion(stats, DEFAULT_SCAN_PROMOTION_CRITERIA, now)).toEqual({ promote: true, type: 'CHECK' });
    expect(scanLessonPromotion({ ...stats, text: 'Never trust scanner S on xss' }, DEFAULT_SCAN_PROMOTION_CRITERIA, now)).toEqual({ promote: true, type: 'NEVER' });
    const { lessonCategory: _kind, ...unknownKind } = stats;
    expect(scanLessonPromotion(unknownKind, DEFAULT_SCAN_PROMOTION_CRITERIA, now)).toEqual({ promote: true, type: 'PREFER' });
  });

  const refusals: [string, Partial<ScanLessonStats>, number, string][] = [
    ['small sample', { sampleSize: 29 }, now, 'too_few_samples'],
    ['low confidence', { scanLessonConfidence: 0.79 }, now, 'low_confidence'],
    ['few reinforcements', { reinforcements: 2 }, now, 'too_few_reinforcements'],
    ['short span', { lastSeenMs: T0 + 13 * DAY }, T0 + 14 * DAY, 'too_short_span'],
    ['stale', {}, T0 + 51 * DAY, 'stale'],
  ];
  test.each(refusals)('%s', (_name, patch, at, reason) => {
    expect(scanLessonPromotion({ ...stats, ...patch }, DEFAULT_SCAN_PROMOTION_CRITERIA, at)).toMatchObject({ promote: false, reason });
  });

  test('the rule of a scan lesson', () => {
    const rule = ruleFromScanLesson(stats, 'CHECK', 'R-010', now);
    expect(rule).toMatchObject({
      id: 'R-010',
      type: 'CHECK',
      category: 'xss',
      tags: ['false-positive-pattern'],
      rule: 'Check: Treat reflected-xss findings from scanner S with scepticism',
      sourceLesson: 'mem-1',
      confidenceScore: 0.9,
      status: 'active',
    });
    expect(rule.reason).toBe('Promoted from scan lesson mem-1: 40 labelled findings, confidence 0.85, re-learned 4 times between 2026-02-02 and 2026-02-22.');
  });

  test.each([
    ['sql-injection', 'sql-injection'],
    [null, 'scan'],
    ['CWE 79', 'scan'],
    ['79', 'scan'],
  ])('scanRuleCategory(%p) = %s', (finding, category) => {
    expect(scanRuleCategory(finding)).toBe(category);
  });
});
