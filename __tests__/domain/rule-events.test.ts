import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { checkEventRow, checkEventRows, EVENT_LIMITS, eventToWire } from '../../src/rules/model/events';
import { PARSE_ERROR_LINE_CHARS, parseErrorEntry, parseErrorToWire } from '../../src/rules/model/logs';
import { type FeedbackPolarity, feedbackPolarity } from '../../src/rules/model/feedback';
import { EVENT_TYPES } from '../../src/rules/model/types';
import { makeEvent } from '../helpers/rule-fixtures';

const DEFAULTS = { nowMs: Date.UTC(2026, 1, 11, 10, 30), source: 'http' };
const ROW = { ts: '2026-02-10T08:00:00Z', type: 'mistake', category: 'shell', tags: ['Git', 'push', 'git'], problem: ' force-pushed to main ', solution: 'Never force-push to main' };

describe('checkEventRow', () => {
  test('a good row is normalised', () => {
    const checked = checkEventRow(ROW, 0, DEFAULTS);
    expect(checked).toMatchObject({
      ok: true,
      event: {
        tsMs: Date.UTC(2026, 1, 10, 8),
        type: 'mistake',
        category: 'shell',
        tags: ['git', 'push'],
        problem: 'force-pushed to main',
        solution: 'Never force-push to main',
        evidenceLevel: 'testing',
        source: 'http',
      },
    });
    expect(checked.ok && 'feedback' in checked.event).toBe(false);
  });

  test('defaults: ts is now, source from the caller; greg_feedback becomes feedback; null is absent', () => {
    const checked = checkEventRow({ type: 'feedback', category: 'Social', problem: 'too long', greg_feedback: 'Too long, keep it short', tags: null, source: 'chat' }, 3, DEFAULTS);
    expect(checked).toMatchObject({ ok: true, event: { tsMs: DEFAULTS.nowMs, category: 'social', tags: [], source: 'chat', feedback: 'Too long, keep it short', solution: '' } });
  });

  const bad: [string, unknown, string, string, RegExp][] = [
    ['not an object', [1], '(row)', 'not_an_object', /JSON object/],
    ['missing type', { ...ROW, type: undefined }, 'type', 'missing', /one of mistake, success, debug_session, feedback, discovery/],
    ['unknown type', { ...ROW, type: 'oops' }, 'type', 'invalid_value', /type must be one of mistake, success, debug_session, feedback, discovery \(got "oops"\)/],
    ['bad ts', { ...ROW, ts: '2026-02-30T00:00:00Z' }, 'ts', 'invalid_value', /ISO-8601/],
    ['ts not a string', { ...ROW, ts: 5 }, 'ts', 'invalid_type', /ts must be a string/],
    ['missing category', { ...ROW, category: undefined }, 'category', 'missing', /category is required/],
    ['category with a space', { ...ROW, category: 'my shell' }, 'category', 'invalid_value', /\^\[a-z\]\[a-z0-9_-\]\*\$/],
    ['category starting with a digit', { ...ROW, category: '1shell' }, 'category', 'invalid_value', /starting with a letter/],
    ['long category', { ...ROW, category: 'a'.repeat(41) }, 'category', 'too_long', /at most 40/],
    ['tags not an array', { ...ROW, tags: 'git' }, 'tags', 'invalid_type', /array of strings/],
    ['a bad tag', { ...ROW, tags: ['ok', 'no!'] }, 'tags.1', 'invalid_value', /a tag must be/],
    ['an empty tag', { ...ROW, tags: [' '] }, 'tags.0', 'empty', /must not be empty/],
    ['too many tags', { ...ROW, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags', 'too_many', /at most 20/],
    ['long problem', { ...ROW, problem: 'x'.repeat(2001) }, 'problem', 'too_long', /at most 2000/],
    ['nothing said', { ...ROW, problem: '  ', solution: '' }, 'problem', 'empty', /problem and solution must not both be empty/],
    ['bad confidence', { ...ROW, confidence: 'sure' }, 'confidence', 'invalid_value', /testing, proven/],
    ['long source', { ...ROW, source: 's'.repeat(65) }, 'source', 'too_long', /source must be at most 64/],
    ['feedback not a string', { ...ROW, greg_feedback: 3 }, 'greg_feedback', 'invalid_type', /greg_feedback must be a string/],
  ];
  test.each(bad)('%s: rejected naming %s with code %s', (_name, row, field, code, message) => {
    const checked = checkEventRow(row, 7, DEFAULTS);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? null : checked.rejection).toMatchObject({ index: 7, field, code });
    expect(checked.ok ? '' : checked.rejection.message).toMatch(message);
  });

  test('twenty distinct tags are allowed, and duplicates do not count against the limit', () => {
    const tags = Array.from({ length: EVENT_LIMITS.tags }, (_, i) => `t${i}`);
    expect(checkEventRow({ ...ROW, tags: [...tags, ...tags] }, 0, DEFAULTS).ok).toBe(true);
  });

  test('the id is the same for the same content, whatever the annotations, and differs for other content', () => {
    const id = (row: object) => {
      const checked = checkEventRow(row, 0, DEFAULTS);
      if (!checked.ok) throw new Error(checked.rejection.message);
      return checked.event.id;
    };
    const base = id(ROW);
    expect(base).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id({ ...ROW, tags: ['other'], confidence: 'proven', source: 'cli' })).toBe(base);
    expect(id({ ...ROW, ts: '2026-02-10T10:00:00+02:00' })).toBe(base); // the same instant
    expect(id({ ...ROW, solution: 'Never force-push to main.' })).not.toBe(base);
    expect(id({ ...ROW, ts: '2026-02-10T08:00:01Z' })).not.toBe(base);
    expect(id({ ...ROW, type: 'success' })).not.toBe(base);
  });

  const wireEvent = fc.record({
    tsMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
    type: fc.constantFrom(...EVENT_TYPES),
    category: fc.stringMatching(/^[a-z][a-z0-9_-]{0,39}$/),
    tags: fc.uniqueArray(fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,10}$/), { maxLength: 20 }).map((t) => [...t].sort()),
    problem: fc.string({ maxLength: 50 }).map((s) => s.trim()),
    solution: fc.string({ minLength: 1, maxLength: 50 }).map((s) => `${s.trim()}x`),
    evidenceLevel: fc.constantFrom('testing' as const, 'proven' as const),
    source: fc.stringMatching(/^[a-z]{1,10}$/),
    feedback: fc.option(fc.string({ minLength: 1, maxLength: 30 }).map((s) => `${s.trim()}q`), { nil: undefined }),
  });

  test('property: eventToWire then checkEventRow gives the same event back (same id)', () => {
    fc.assert(
      fc.property(wireEvent, (fields) => {
        const { feedback, ...rest } = fields;
        const event = makeEvent({ ...rest, ...(feedback !== undefined ? { feedback } : {}) });
        const back = checkEventRow(JSON.parse(JSON.stringify(eventToWire(event))), 0, DEFAULTS);
        expect(back).toEqual({ ok: true, event });
      }),
    );
  });
});

test('checkEventRows keeps the good rows and reports each bad one by index', () => {
  const batch = checkEventRows([ROW, { ...ROW, type: 'x' }, ROW, 'no'], DEFAULTS);
  expect(batch.valid.map((v) => v.index)).toEqual([0, 2]);
  expect(batch.rejected.map((r) => [r.index, r.field])).toEqual([
    [1, 'type'],
    [3, '(row)'],
  ]);
});

test('eventToWire writes the seed fields with greg_feedback', () => {
  const event = makeEvent({ type: 'feedback', feedback: 'great', tags: ['a'] });
  expect(eventToWire(event)).toEqual({
    ts: '2026-02-02T00:00:00.000Z',
    type: 'feedback',
    category: 'shell',
    tags: ['a'],
    problem: event.problem,
    solution: event.solution,
    confidence: 'testing',
    source: 'test',
    greg_feedback: 'great',
  });
});

describe('parseErrorEntry', () => {
  test('the seed format, with the line cut to the bound', () => {
    const entry = parseErrorToWire(parseErrorEntry({ nowMs: Date.UTC(2026, 1, 11, 10, 30), error: 'Unexpected token', line: `{${'x'.repeat(1000)}`, script: 'events' }));
    expect(Object.keys(entry)).toEqual(['ts', 'error', 'line', 'script']);
    expect(entry.ts).toBe('2026-02-11T10:30:00.000Z');
    expect(entry.line).toHaveLength(PARSE_ERROR_LINE_CHARS);
    expect(entry.line.endsWith('…')).toBe(true);
    expect(entry.error).toBe('Unexpected token');
  });

  test('a short line is kept as it is', () => {
    expect(parseErrorEntry({ nowMs: 0, error: 'e', line: '{bad', script: 's' }).line).toBe('{bad');
  });
});

describe('feedbackPolarity', () => {
  const table: [string, string[], FeedbackPolarity][] = [
    ['Great, thanks, exactly right', [], 'positive'],
    ["No, that's wrong, don't do that", [], 'negative'],
    ['Please post at 9', [], 'unknown'],
    ['good but wrong', [], 'unknown'], // a tie
    ['Perfect', ['correction'], 'negative'], // a tag decides
    ['That is wrong', ['praise'], 'positive'],
    ['Don’t do that', [], 'negative'], // typographic apostrophe
  ];
  test.each(table)('%p with tags %p => %s', (feedback, tags, expected) => {
    expect(feedbackPolarity({ feedback, tags, problem: '' })).toBe(expected);
  });

  test('without a quote the problem is read; a tag named like an Object method is not a polarity', () => {
    expect(feedbackPolarity({ problem: 'user said thanks', tags: ['constructor'] })).toBe('positive');
  });
});
