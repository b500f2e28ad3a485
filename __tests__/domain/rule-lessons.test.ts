import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { ruleLessonFromWire, ruleLessonToWire } from '../../src/rules/model/rule-lesson-wire';
import { candidateFromRuleLesson, eventCountOf } from '../../src/rules/model/promotion';
import { ruleLessonRowSchema } from '../../src/rules/rule-rows';
import {
  absorbEvent,
  chooseRuleLessonFor,
  confirmsRuleLesson,
  eventVectorText,
  RULE_LESSON_SCORE_BY_EVIDENCE,
  ruleLessonSimilarity,
  ruleLessonText,
  ruleLessonVectorText,
  newRuleLesson,
  nextId,
  PROVEN_AFTER_EVENTS,
  recordRuleLessonApplied,
  SOURCE_EVENT_IDS_KEPT,
  TAG_JACCARD_WEIGHT,
  UNTRUSTED_CONFIRMATIONS_KEPT,
  tagJaccard,
} from '../../src/rules/model/rule-lessons';
import { EVENT_TYPES } from '../../src/rules/model/types';
import { DAY, makeEvent, makeRuleLesson, T0 } from '../helpers/rule-fixtures';

describe('nextId', () => {
  const table: [string[], 'L' | 'R', string][] = [
    [[], 'L', 'L-001'],
    [['L-001', 'L-002'], 'L', 'L-003'],
    [['L-007', 'L-002'], 'L', 'L-008'], // after the largest, gaps are not refilled
    [['L-999'], 'L', 'L-1000'],
    [['L-1000', 'L-999'], 'L', 'L-1001'],
    [['R-005', 'L-010', 'R-x', 'R-5a'], 'R', 'R-006'], // other series and malformed ids are ignored
  ];
  test.each(table)('%p %s => %s', (ids, prefix, expected) => {
    expect(nextId(prefix, ids)).toBe(expected);
  });

  test('property: never one of the existing ids, and always of the form', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5000 })), (ns) => {
        const ids = ns.map((n) => `R-${String(n).padStart(3, '0')}`);
        const id = nextId('R', ids);
        expect(ids).not.toContain(id);
        expect(id).toMatch(/^R-\d{3,}$/);
      }),
    );
  });
});

describe('tagJaccard and ruleLessonSimilarity', () => {
  const table: [string[], string[], number][] = [
    [[], [], 0],
    [['a'], ['a'], 1],
    [['a', 'b'], ['b', 'c'], 1 / 3],
    [['a'], ['b'], 0],
  ];
  test.each(table)('jaccard(%p, %p) = %d', (a, b, j) => {
    expect(tagJaccard(a, b)).toBeCloseTo(j, 12);
  });

  test('same text, same tags: 1 + the tag weight; another category: 0', () => {
    const v = lexicalVector('force push main');
    expect(ruleLessonSimilarity({ category: 'git', tags: ['a'] }, v, { category: 'git', tags: ['a'] }, v)).toBeCloseTo(1 + TAG_JACCARD_WEIGHT, 12);
    expect(ruleLessonSimilarity({ category: 'git', tags: ['a'] }, v, { category: 'shell', tags: ['a'] }, v)).toBe(0);
  });

  test('a negative cosine counts as 0', () => {
    const v = [1, 0];
    expect(ruleLessonSimilarity({ category: 'c', tags: [] }, v, { category: 'c', tags: [] }, [-1, 0])).toBe(0);
  });
});

describe('chooseRuleLessonFor', () => {
  const event = makeEvent({ category: 'git', tags: ['push'], problem: 'force pushed to main', solution: 'never force push to main' });
  const ev = lexicalVector(eventVectorText(event));
  const lesson = (id: string, category: string, text: string, tags: string[] = []) => ({
    lesson: makeRuleLesson({ id, category, tags, trigger: text, action: '' }),
    vector: lexicalVector(text),
  });

  test('the most similar lesson of the same category above the threshold wins', () => {
    const candidates = [
      lesson('L-001', 'git', 'rebase conflicts resolution'),
      lesson('L-002', 'git', 'force pushed to main never force push to main'),
      lesson('L-003', 'shell', 'force pushed to main never force push to main'),
    ];
    expect(chooseRuleLessonFor(event, ev, candidates, 0.5)).toEqual({ lessonId: 'L-002', score: expect.closeTo(1, 9) });
  });

  test('another category never matches; below the threshold gives null', () => {
    expect(chooseRuleLessonFor(event, ev, [lesson('L-003', 'shell', eventVectorText(event))], 0.1)).toBeNull();
    expect(chooseRuleLessonFor(event, ev, [lesson('L-001', 'git', 'rebase conflicts resolution')], 0.5)).toBeNull();
    expect(chooseRuleLessonFor(event, ev, [], 0)).toBeNull();
  });

  test('shared tags can carry an event over the threshold', () => {
    const partly = lesson('L-004', 'git', 'force pushed to a branch', ['push']);
    const cos = ruleLessonSimilarity(event, ev, { category: 'git', tags: [] }, partly.vector);
    const threshold = cos + 0.1;
    expect(chooseRuleLessonFor(event, ev, [lesson('L-004', 'git', 'force pushed to a branch')], threshold)).toBeNull();
    expect(chooseRuleLessonFor(event, ev, [partly], threshold)?.lessonId).toBe('L-004');
  });

  test('equal scores go to the smaller id, whatever the order', () => {
    const text = eventVectorText(event);
    expect(chooseRuleLessonFor(event, ev, [lesson('L-009', 'git', text), lesson('L-002', 'git', text)])?.lessonId).toBe('L-002');
  });
});

describe('ruleLessonText', () => {
  test('from problem and solution', () => {
    expect(ruleLessonText({ type: 'mistake', category: 'git', problem: 'force pushed', solution: 'Never force push' })).toEqual({
      lesson: 'Never force push',
      context: 'From a mistake in git: force pushed',
      trigger: 'force pushed',
      action: 'Never force push',
    });
  });

  test('a mistake without a solution says what to avoid; feedback is quoted in the context', () => {
    expect(ruleLessonText({ type: 'mistake', category: 'git', problem: 'force pushed', solution: '' }).action).toBe('Avoid: force pushed');
    expect(ruleLessonText({ type: 'discovery', category: 'git', problem: 'squash merges keep history short', solution: '' }).action).toBe('squash merges keep history short');
    expect(ruleLessonText({ type: 'feedback', category: 'social', problem: '', solution: 'Keep posts short', feedback: 'too long!' })).toEqual({
      lesson: 'Keep posts short',
      context: 'From a feedback in social Feedback: "too long!"',
      trigger: 'feedback in social',
      action: 'Keep posts short',
    });
  });

  test('the vector text of a new lesson is its first event’s', () => {
    const event = makeEvent();
    expect(ruleLessonVectorText(ruleLessonText(event))).toBe(eventVectorText(event));
  });
});

describe('newRuleLesson and absorbEvent', () => {
  test('a new lesson holds its first event', () => {
    const event = makeEvent({ tags: ['fs'] });
    const lesson = newRuleLesson(event, 'L-001', T0 + DAY);
    expect(lesson).toMatchObject({
      id: 'L-001',
      createdMs: T0 + DAY,
      category: 'shell',
      tags: ['fs'],
      confidence: 'testing',
      confidenceScore: RULE_LESSON_SCORE_BY_EVIDENCE.testing,
      sourceEventIds: [event.id],
      eventTypeCounts: { mistake: 1, success: 0, debug_session: 0, feedback: 0, discovery: 0 },
      validationCount: 0,
      timesApplied: 0,
      lastValidatedMs: T0 + DAY,
    });
  });

  test('counts, confirmation, proven after enough events, applied on success', () => {
    const e1 = makeEvent();
    const e2 = makeEvent({ type: 'success', tsMs: T0 + 2 * DAY, solution: 'checked pwd first, fine', tags: ['fs'] });
    const e3 = makeEvent({ type: 'feedback', tsMs: T0 + 3 * DAY, feedback: 'great, thanks' });
    let lesson = newRuleLesson(e1, 'L-001', T0);
    lesson = absorbEvent(lesson, e2, T0 + 5 * DAY);
    expect(lesson).toMatchObject({ confidence: 'testing', validationCount: 1, lastValidatedMs: T0 + 2 * DAY, timesApplied: 1, tags: ['fs'] });
    lesson = absorbEvent(lesson, e3, T0 + 5 * DAY);
    expect(PROVEN_AFTER_EVENTS).toBe(3);
    expect(lesson).toMatchObject({
      confidence: 'proven',
      confidenceScore: RULE_LESSON_SCORE_BY_EVIDENCE.proven,
      validationCount: 2,
      lastValidatedMs: T0 + 3 * DAY,
      sourceEventIds: [e1.id, e2.id, e3.id],
      eventTypeCounts: { mistake: 1, success: 1, debug_session: 0, feedback: 1, discovery: 0 },
    });
  });

  test('a proven event makes the lesson proven at once; negative feedback does not validate', () => {
    const lesson = newRuleLesson(makeEvent({ evidenceLevel: 'proven' }), 'L-001', T0);
    expect(lesson.confidence).toBe('proven');
    const after = absorbEvent(lesson, makeEvent({ type: 'feedback', feedback: 'no, wrong', tsMs: T0 + DAY }), T0 + DAY);
    expect(after.validationCount).toBe(0);
    expect(after.eventTypeCounts.feedback).toBe(1);
  });

  test('a confirming event from the future counts as now', () => {
    const lesson = absorbEvent(makeRuleLesson({ id: 'L-001' }), makeEvent({ type: 'success', tsMs: T0 + 10 * DAY }), T0 + DAY);
    expect(lesson.lastValidatedMs).toBe(T0 + DAY);
  });

  test('an event of another category is a programmer error', () => {
    expect(() => absorbEvent(makeRuleLesson({ id: 'L-001' }), makeEvent({ category: 'git' }), T0)).toThrow(/category git/);
  });

  test('tags stop growing at 20', () => {
    const tags = (from: number) => Array.from({ length: 15 }, (_, i) => `t${String(from + i).padStart(2, '0')}`);
    const lesson = absorbEvent(newRuleLesson(makeEvent({ tags: tags(0) }), 'L-001', T0), makeEvent({ tags: tags(15), tsMs: T0 + 1 }), T0);
    expect(lesson.tags).toHaveLength(20);
    expect(lesson.tags).toEqual([...tags(0), ...tags(15).slice(0, 5)]);
  });

  const anyEvent = fc.record({
    type: fc.constantFrom(...EVENT_TYPES),
    tsMs: fc.integer({ min: T0, max: T0 + 100 * DAY }),
    solution: fc.string({ maxLength: 10 }),
    evidenceLevel: fc.constantFrom('testing' as const, 'proven' as const),
    feedback: fc.option(fc.constantFrom('great', 'wrong', 'ok'), { nil: undefined }),
  });

  test('property: absorbing is idempotent, counts sum to the distinct events, proven never goes back', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 12 }), (patches) => {
        const events = patches.map((p) => makeEvent({ ...p, solution: `s${p.solution}` }));
        let lesson = newRuleLesson(events[0] as (typeof events)[0], 'L-001', T0);
        let wasProven = lesson.confidence === 'proven';
        for (const e of [...events, ...events]) {
          lesson = absorbEvent(lesson, e, T0 + 200 * DAY);
          if (wasProven) expect(lesson.confidence).toBe('proven');
          wasProven = lesson.confidence === 'proven';
        }
        const distinct = new Set(events.map((e) => e.id));
        expect(lesson.sourceEventIds).toHaveLength(distinct.size);
        expect(Object.values(lesson.eventTypeCounts).reduce((a, b) => a + b, 0)).toBe(distinct.size);
        const confirming = [...new Map(events.map((e) => [e.id, e])).values()].filter(confirmsRuleLesson).length;
        expect(lesson.validationCount).toBe(confirming);
        expect(lesson.confidence === 'proven').toBe(distinct.size >= PROVEN_AFTER_EVENTS || events.some((e) => e.evidenceLevel === 'proven'));
      }),
    );
  });
});

describe('a lesson of many events stays the same size', () => {
  const events = Array.from({ length: 3 * SOURCE_EVENT_IDS_KEPT }, (_, i) => makeEvent({ tsMs: T0 + i * 60_000, type: i % 3 === 0 ? 'success' : 'mistake' }));
  const lesson = events.slice(1).reduce((l, e) => absorbEvent(l, e, T0 + DAY), newRuleLesson(events[0] as (typeof events)[0], 'L-001', T0));

  test('it keeps the newest SOURCE_EVENT_IDS_KEPT event ids and counts every event, and every operator event as a confirmation', () => {
    expect(lesson.sourceEventIds).toEqual(events.slice(-SOURCE_EVENT_IDS_KEPT).map((e) => e.id));
    expect(eventCountOf(lesson)).toBe(events.length);
    expect([lesson.eventConfirmations, lesson.trustedConfirmations]).toEqual([events.length, []]);
    expect(JSON.stringify(lesson).length).toBeLessThan(JSON.stringify(absorbEvent(newRuleLesson(events[0] as (typeof events)[0], 'L-001', T0), events[1] as (typeof events)[0], T0)).length + SOURCE_EVENT_IDS_KEPT * 40);
  });

  test('a candidate made from it names every event, not only the ids kept', () => {
    const candidate = candidateFromRuleLesson({ ...lesson, untrustedConfirmations: ['someone@2026-02-02'] }, 'R-001', T0 + DAY);
    expect(candidate.reason).toContain(`${events.length} events (`);
    expect(candidate.reason).toContain(`${events.length} trusted confirmations`);
  });

  const stored = (doc: Record<string, unknown>) => ruleLessonRowSchema.parse({ doc: JSON.stringify(doc), vector: null, vector_source: null }).lesson;

  test('a lesson stored with an event:<id> key per operator event and every id reads as counted, its newest ids kept', () => {
    const { eventConfirmations: _counted, ...legacy } = lesson;
    const ids = events.map((e) => e.id);
    const strangers = Array.from({ length: 2 * UNTRUSTED_CONFIRMATIONS_KEPT }, (_, i) => `stranger-${i}@2026-02-02`);
    const doc = { ...legacy, sourceEventIds: ids, trustedConfirmations: ['alice@2026-02-02', ...ids.map((id) => `event:${id}`)], untrustedConfirmations: strangers };
    expect(stored(doc)).toEqual({ ...lesson, trustedConfirmations: ['alice@2026-02-02'], eventConfirmations: events.length, untrustedConfirmations: strangers.slice(-UNTRUSTED_CONFIRMATIONS_KEPT) });
    // Stored before people were told apart: no lists, each event one confirmation.
    const { trustedConfirmations: _none, ...older } = doc;
    expect(stored(older)).toMatchObject({ trustedConfirmations: [], eventConfirmations: events.length, sourceEventIds: lesson.sourceEventIds });
  });
});

test('recordRuleLessonApplied counts applications and saves', () => {
  const lesson = recordRuleLessonApplied(recordRuleLessonApplied(makeRuleLesson({ id: 'L-001' }), true), false);
  expect([lesson.timesApplied, lesson.timesSaved]).toEqual([2, 1]);
});

describe('lesson wire', () => {
  const e1 = makeEvent({ tsMs: T0 + 3_600_000 });
  const e2 = makeEvent({ type: 'success', tsMs: T0 + DAY });
  const lesson = { ...absorbEvent(newRuleLesson(e1, 'L-004', T0 + DAY), e2, T0 + DAY), promotedToRule: 'R-002', subcategory: 'fs', tags: ['fs', 'rm'] };

  test('seed fields, source_events as timestamps, ids kept in the extension', () => {
    const wire = ruleLessonToWire(lesson, new Map([[e1.id, e1.tsMs]]));
    expect(wire).toMatchObject({
      id: 'L-004',
      created: '2026-02-03',
      subcategory: 'fs',
      confidence: 'testing',
      confidence_score: 0.6,
      times_applied: 1,
      times_saved: 0,
      promoted_to_rule: 'R-002',
      source_events: ['2026-02-02T01:00:00.000Z'], // e2's time is unknown to the caller
      last_validated: '2026-02-03',
      validation_count: 1,
      review_flagged: false,
      source_event_ids: [e1.id, e2.id],
    });
  });

  test('round trip is lossless for day-precise times', () => {
    const wire = JSON.parse(JSON.stringify(ruleLessonToWire(lesson, new Map())));
    expect(ruleLessonFromWire(wire)).toEqual({ ok: true, lesson });
  });

  test('a seed file without ids reads its timestamps as ids and zero counts', () => {
    const read = ruleLessonFromWire({ id: 'L-001', created: '2026-02-01', category: 'shell', lesson: 'x', confidence: 'proven', confidence_score: 0.9, source_events: ['2026-02-01T10:00:00'], last_validated: '2026-02-01' });
    expect(read).toMatchObject({ ok: true, lesson: { sourceEventIds: ['2026-02-01T10:00:00'], eventTypeCounts: { mistake: 0, success: 0 }, timesApplied: 0 } });
  });

  test.each([
    [{ id: 'X-1' }, 'id'],
    [{ created: '2026-02-30' }, 'created'],
    [{ confidence: 'sure' }, 'confidence'],
    [{ confidence_score: 2 }, 'confidence_score'],
    [{ times_applied: -1 }, 'times_applied'],
    [{ promoted_to_rule: 'L-001' }, 'promoted_to_rule'],
  ])('a bad field %p is named (%s)', (patch, field) => {
    const wire = { ...ruleLessonToWire(lesson, new Map()), ...patch };
    expect(ruleLessonFromWire(wire)).toMatchObject({ ok: false, code: 'invalid_field', field });
  });

  test('not an object', () => {
    expect(ruleLessonFromWire('x')).toMatchObject({ ok: false, code: 'not_an_object' });
  });
});
