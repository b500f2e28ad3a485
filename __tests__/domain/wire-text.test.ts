import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { checkFindingRow, checkOutcomeRow } from '../../src/scan/model/outcome';
import { clipText } from '../../src/shared/prompt-text';
import { checkEventRow, type EventRejectionCode } from '../../src/rules/model/events';
import { exportRules } from '../../src/rules/model/export';
import { verifyImport } from '../../src/rules/model/import';
import { guardLogEntry, parseErrorEntry } from '../../src/rules/model/logs';
import { parseSarif } from '../../src/scan/model/sarif';
import { parseTrajectoryText } from '../../src/trajectories/model/input';
import {
  isStorableText,
  isWireTimeMs,
  MAX_WIRE_DEPTH,
  MAX_WIRE_PROBLEMS,
  textProblem,
  toStorableText,
  wireProblems,
} from '../../src/shared/wire-text';
import { makeRule } from '../helpers/rule-fixtures';

const ROW = {
  finding_key: 'semgrep:xss:app.ts:42',
  label: 'fixed',
  ts: '2026-11-02T14:03:00Z',
  project: 'payments',
  scanner: 'semgrep',
  model_provider: 'openai',
  model_name: 'gpt-4o',
};
const EVENT = { ts: '2026-02-10T08:00:00Z', type: 'mistake', category: 'shell', tags: ['git'], problem: 'force-pushed', solution: 'never force-push' };
const EVENT_DEFAULTS = { nowMs: Date.UTC(2026, 1, 11), source: 'test' };

const rejectionsOf = (raw: unknown) => {
  const checked = checkOutcomeRow(raw, 0);
  return checked.ok ? [] : checked.rejections;
};

/** Independent oracle: TextEncoder replaces every unpaired surrogate with U+FFFD, so only well-formed text survives the round trip. */
const wellFormed = (text: string) => new TextDecoder().decode(new TextEncoder().encode(text)) === text;

/** `depth` arrays, one inside the other, with `leaf` innermost; built without recursion. */
function nested(depth: number, leaf: unknown = 'x'): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('textProblem: one string', () => {
  const table: [string, string, string | null][] = [
    ['plain ASCII', 'hello', null],
    ['empty', '', null],
    ['accented letters', 'café ünïcode', null],
    ['an emoji (a surrogate pair)', 'fixed 😀 today', null],
    ['a pair written as escapes', '\uD83D\uDE00', null],
    ['CJK and RTL text', '漏洞 ثغرة', null],
    ['U+FFFD itself', '\uFFFD', null],
    ['a NUL', 'a\u0000b', 'contains a NUL character (U+0000) at offset 1'],
    ['a NUL alone', '\u0000', 'contains a NUL character (U+0000) at offset 0'],
    ['a lone high surrogate', '\uD800', 'contains an unpaired UTF-16 surrogate (high \\ud800) at offset 0'],
    ['a high surrogate at the end', 'ok\uD83D', 'contains an unpaired UTF-16 surrogate (high \\ud83d) at offset 2'],
    ['a lone low surrogate', 'x\uDC00y', 'contains an unpaired UTF-16 surrogate (low \\udc00) at offset 1'],
    ['a pair in the wrong order', '\uDE00\uD83D', 'contains an unpaired UTF-16 surrogate (low \\ude00) at offset 0'],
    ['two highs', '\uD83D\uD83D\uDE00', 'contains an unpaired UTF-16 surrogate (high \\ud83d) at offset 0'],
  ];
  test.each(table)('%s', (_name, text, what) => {
    expect(textProblem(text)?.what ?? null).toBe(what);
    expect(isStorableText(text)).toBe(what === null);
  });

  test('property: a string is accepted iff it has no NUL and no unpaired surrogate', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D\uDE00', 'a', 'é'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join('');
        expect(isStorableText(text)).toBe(!text.includes('\u0000') && wellFormed(text));
      }),
      { numRuns: 2_000 },
    );
  });

  test('property: toStorableText gives storable text and leaves storable text as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const kept = toStorableText(text);
        expect(isStorableText(kept)).toBe(true);
        expect(kept.length).toBe(text.length);
        expect(kept === text).toBe(isStorableText(text));
      }),
    );
  });

  test('property: clipText never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 2, max: 40 }), (text, max) => {
        const clipped = clipText(text, max);
        expect(clipped.length).toBeLessThanOrEqual(max);
        expect(isStorableText(clipped)).toBe(isStorableText(text));
      }),
    );
  });
});

describe('wireProblems: a whole value', () => {
  test('nested strings are named by their path', () => {
    expect(wireProblems({ a: 'ok', meta: { tags: ['fine', 'bad\u0000'] }, steps: [{ text: 'x' }, { text: '\uDC00' }] })).toEqual([
      { path: ['meta', 'tags', 1], code: 'nul_character', message: 'meta.tags.1 contains a NUL character (U+0000) at offset 3; text must be well-formed Unicode without U+0000' },
      { path: ['steps', 1, 'text'], code: 'unpaired_surrogate', message: 'steps.1.text contains an unpaired UTF-16 surrogate (low \\udc00) at offset 0; text must be well-formed Unicode without U+0000' },
    ]);
  });

  test('a key with a NUL is named JSON-escaped', () => {
    expect(wireProblems({ meta: { 'a\u0000b': 1 } })).toEqual([
      { path: ['meta', 'a\\u0000b'], code: 'nul_character', message: 'meta.a\\u0000b: the key contains a NUL character (U+0000) at offset 1; text must be well-formed Unicode without U+0000' },
    ]);
  });

  test('numbers, booleans, null and storable text are no problem', () => {
    expect(wireProblems({ n: 1, b: true, z: null, s: 'fine 😀', list: [1, 'two', { three: 3 }] })).toEqual([]);
  });

  test(`nesting of exactly ${MAX_WIRE_DEPTH} levels is accepted; one more is refused with the path`, () => {
    expect(wireProblems(nested(MAX_WIRE_DEPTH))).toEqual([]);
    const [problem, ...rest] = wireProblems(nested(MAX_WIRE_DEPTH + 1));
    expect(rest).toEqual([]);
    expect(problem?.code).toBe('too_deep');
    expect(problem?.path).toEqual(Array.from({ length: MAX_WIRE_DEPTH }, () => 0));
    expect(problem?.message).toEndWith(`is nested deeper than ${MAX_WIRE_DEPTH} levels of arrays and objects`);
  });

  test('an adversarially deep value (200,000 levels) is refused without exhausting the stack', () => {
    const problems = wireProblems({ summary: 'ok', meta: nested(200_000, '\u0000') });
    expect(problems.map((p) => p.code)).toEqual(['too_deep']);
  });

  test('a cyclic value from a service call is walked once', () => {
    const row: Record<string, unknown> = { text: 'ok' };
    row.self = row;
    row.list = [row, row];
    expect(wireProblems(row)).toEqual([]);
  });

  test(`at most ${MAX_WIRE_PROBLEMS} problems are reported`, () => {
    expect(wireProblems(Array.from({ length: 100 }, () => '\u0000'))).toHaveLength(MAX_WIRE_PROBLEMS);
  });
});

describe('outcome rows and findings', () => {
  const unstorable: [string, Record<string, unknown>, string, RegExp][] = [
    ['a NUL in summary', { summary: 'xss\u0000' }, 'summary', /^summary contains a NUL character \(U\+0000\)/],
    ['a lone high surrogate in finding_key', { finding_key: 'k\uD800' }, 'finding_key', /^finding_key contains an unpaired UTF-16 surrogate/],
    ['a lone low surrogate in notes', { notes: '\uDFFF' }, 'notes', /unpaired UTF-16 surrogate \(low/],
    ['a NUL in an unknown nested field', { extra: { history: ['a', 'b\u0000'] } }, 'extra.history.1', /NUL character/],
    ['nesting too deep in an unknown field', { extra: nested(500) }, `extra${'.0'.repeat(MAX_WIRE_DEPTH - 1)}`, /nested deeper than 64 levels/],
  ];
  test.each(unstorable)('%s is refused naming %s', (_name, extra, field, message) => {
    const rejections = rejectionsOf({ ...ROW, ...extra });
    expect(rejections.map((r) => r.field)).toEqual([field]);
    expect(rejections[0]?.message).toMatch(message);
    const finding = checkFindingRow({ ...ROW, ...extra }, 3);
    expect(finding.ok ? [] : finding.rejections.map((r) => [r.index, r.field])).toEqual([[3, field]]);
  });

  test.each([['fixed 😀'], ['漏洞'], ['\uD83D\uDE00']])('%s is kept as it is', (summary) => {
    expect(checkOutcomeRow({ ...ROW, summary }, 0)).toMatchObject({ ok: true, row: { summary } });
  });

  const times: [string, boolean][] = [
    ['0001-01-01T00:00:00Z', false],
    ['1969-12-31T23:59:59Z', false],
    ['1970-01-01T00:30:00+01:00', false],
    ['1970-01-01T00:00:00Z', true],
    ['2026-11-02T14:03:00Z', true],
    ['2100-12-31T23:59:59Z', true],
    ['2101-01-01T00:00:00Z', false],
    ['9999-12-31T23:59:59Z', false],
  ];
  test.each(times)('ts %s accepted: %p', (ts, ok) => {
    expect(rejectionsOf({ ...ROW, ts })).toEqual(ok ? [] : [{ index: 0, field: 'ts', message: `ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z (got ${JSON.stringify(ts)})` }]);
  });

  test('isWireTimeMs bounds', () => {
    expect([Date.UTC(1970, 0, 1) - 1, Date.UTC(1970, 0, 1), Date.UTC(2101, 0, 1) - 1, Date.UTC(2101, 0, 1), Number.NaN, Number.POSITIVE_INFINITY].map(isWireTimeMs)).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  const numbers: [string, Record<string, unknown>, string, string][] = [
    ['confidence null', { confidence: null }, 'confidence', 'confidence must be a number in [0,1], got null'],
    ['confidence 1e999 (Infinity after JSON.parse)', JSON.parse('{"confidence": 1e999}'), 'confidence', 'confidence must be a number in [0,1], got Infinity'],
    ['confidence -Infinity', { confidence: Number.NEGATIVE_INFINITY }, 'confidence', 'confidence must be a number in [0,1], got -Infinity'],
    ['confidence NaN', { confidence: Number.NaN }, 'confidence', 'confidence must be a number in [0,1], got NaN'],
    ['cwe null', { cwe: null }, 'cwe', 'cwe must be an integer, got null'],
    ['cwe Infinity', { cwe: Number.POSITIVE_INFINITY }, 'cwe', 'cwe must be an integer, got Infinity'],
  ];
  test.each(numbers)('%s is refused', (_name, extra, field, message) => {
    expect(rejectionsOf({ ...ROW, ...extra })).toEqual([{ index: 0, field, message }]);
  });
});

describe('events', () => {
  const table: [string, Record<string, unknown>, string, EventRejectionCode, RegExp][] = [
    ['a NUL in problem', { problem: 'pushed\u0000' }, 'problem', 'unstorable', /^problem contains a NUL character/],
    ['a lone surrogate in a tag', { tags: ['git', '\uD800'] }, 'tags.1', 'unstorable', /unpaired UTF-16 surrogate/],
    ['a NUL in greg_feedback', { greg_feedback: '\u0000' }, 'greg_feedback', 'unstorable', /NUL character/],
    ['year 0001', { ts: '0001-01-01T00:00:00Z' }, 'ts', 'invalid_value', /ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z/],
    ['1969 without a zone', { ts: '1969-12-31T23:59:59' }, 'ts', 'invalid_value', /ts must be between/],
    ['2101 as a day', { ts: '2101-01-01' }, 'ts', 'invalid_value', /ts must be between/],
  ];
  test.each(table)('%s: refused naming %s', (_name, extra, field, code, message) => {
    const checked = checkEventRow({ ...EVENT, ...extra }, 2, EVENT_DEFAULTS);
    expect(checked.ok ? null : { ...checked.rejection, message: '' }).toEqual({ index: 2, field, code, message: '' });
    expect(checked.ok ? '' : checked.rejection.message).toMatch(message);
  });

  test.each([['1970-01-01T00:00:00Z'], ['2100-12-31T23:59:59Z'], ['2100-12-31']])('ts %s is accepted', (ts) => {
    expect(checkEventRow({ ...EVENT, ts, problem: 'fixed 😀' }, 0, EVENT_DEFAULTS).ok).toBe(true);
  });

  test('parse-error and guard log entries keep what arrived, with U+0000 and unpaired surrogates made storable', () => {
    const entry = parseErrorEntry({ nowMs: 0, error: 'bad \uD800', line: '{"a":"\u0000', script: 'x' });
    expect([entry.error, entry.line]).toEqual(['bad \uFFFD', '{"a":"\uFFFD']);
    expect(guardLogEntry({ nowMs: 0, action: 'rm -rf \u0000 😀', matches: [], randomHex: 'abcdef' }).action).toBe('rm -rf \uFFFD 😀');
  });
});

describe('trajectories', () => {
  const jsonl = (...rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n');

  test('a step with a NUL is refused by line and field; the other steps are kept', () => {
    const { trajectory, errors } = parseTrajectoryText(jsonl({ kind: 'message', text: 'fix it' }, { kind: 'tool', name: 'Bash', text: 'ls\u0000' }, { kind: 'output', text: 'ok 😀' }));
    expect(errors.map((e) => [e.line, e.field])).toEqual([[2, 'text']]);
    expect(errors[0]?.message).toMatch(/^text contains a NUL character \(U\+0000\) at offset 2/);
    expect(trajectory.steps.map((s) => s.text)).toEqual(['fix it', 'ok 😀']);
  });

  const lines: [string, object, string, RegExp][] = [
    ['a lone surrogate in name', { kind: 'tool', name: '\uDBFF', text: 'x' }, 'name', /unpaired UTF-16 surrogate/],
    ['a NUL in a nested unknown field', { kind: 'tool', text: 'x', meta: { args: ['-l', '\u0000'] } }, 'meta.args.1', /NUL character/],
    ['year 0001', { kind: 'tool', text: 'x', ts: '0001-01-01T00:00:00Z' }, 'ts', /ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z/],
    ['tokens null', { kind: 'model', text: 'x', tokens: null }, 'tokens', /^tokens must be a non-negative integer, got null$/],
    ['a session started in 2101', { kind: 'session', started_at: '2101-01-01T00:00:00Z' }, 'started_at', /started_at must be between/],
  ];
  test.each(lines)('%s: the line is refused naming %s', (_name, line, field, message) => {
    const { errors } = parseTrajectoryText(jsonl({ kind: 'message', text: 'hi' }, line));
    expect(errors.map((e) => [e.line, e.field])).toEqual([[2, field]]);
    expect(errors[0]?.message).toMatch(message);
  });

  test('tokens 1e999 refuses the line', () => {
    const { errors } = parseTrajectoryText(`{"kind":"message","text":"hi"}\n{"kind":"model","text":"x","tokens":1e999}`);
    expect(errors).toEqual([{ line: 2, field: 'tokens', message: 'tokens must be a non-negative integer, got Infinity' }]);
  });

  test('a plain session log line with a NUL is refused; an id with one is reported and not used', () => {
    const { trajectory, errors } = parseTrajectoryText('$ ls\nfile\u0000name\n$ exit', { id: 'run\u0000' });
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [0, 'id'],
      [2, 'text'],
    ]);
    expect(trajectory.id).toBeUndefined();
    expect(trajectory.steps.map((s) => s.text)).toEqual(['ls', 'exit']);
  });
});

describe('SARIF and rule export', () => {
  test('a SARIF result whose message holds a NUL is refused by path and field; the others are kept', () => {
    const result = (id: string, text: string) => ({ ruleId: 'js/xss', guid: id, message: { text }, properties: { ts: '2026-11-02T14:03:00Z' } });
    const doc = { version: '2.1.0', runs: [{ tool: { driver: { name: 'CodeQL' } }, properties: { project: 'payments' }, results: [result('a', 'ok'), result('b', 'bad\u0000'), result('c', 'fine 😀')] }] };
    const parsed = parseSarif(doc);
    expect(parsed.findings.map((f) => f.row.finding_key)).toEqual(['a', 'c']);
    expect(parsed.errors.map((e) => [e.path, e.field])).toEqual([['runs[0].results[1]', 'summary']]);
    expect(parsed.errors[0]?.message).toMatch(/NUL character/);
  });

  test('an imported rule with a lone surrogate or a year-0001 date is refused naming the rule and the field', () => {
    const doc = exportRules([makeRule({ id: 'R-001' }), makeRule({ id: 'R-002', rule: 'Never force-push' })], { agentHandle: 'a', nowMs: Date.UTC(2026, 1, 1), sourceWorkspace: 'w' });
    const surrogate = structuredClone(doc);
    (surrogate.rules[1] as { reason: string }).reason = 'because \uD800';
    expect(verifyImport(surrogate)).toMatchObject({ ok: false, code: 'invalid_rule', index: 1, ruleId: 'R-002', field: 'reason' });
    const ancient = structuredClone(doc);
    (ancient.rules[0] as { created: string }).created = '0001-01-01';
    const refused = verifyImport(ancient);
    expect(refused).toMatchObject({ ok: false, code: 'invalid_rule', index: 0, field: 'created' });
    expect(refused.ok ? '' : refused.message).toContain('created must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z');
  });
});
