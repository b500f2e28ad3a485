import { describe, expect, test } from 'bun:test';
import { checkOutcomeRow, checkOutcomeRows, MAX_TEXT_CHARS, OUTCOME_LABELS } from '../../src/scan/model/outcome';

const VALID = {
  finding_key: 'semgrep:xss:app.ts:42',
  label: 'rejected_fp' as const,
  ts: '2026-11-02T14:03:00Z',
  project: 'payments',
  scanner: 'semgrep',
  model_provider: 'openai',
  model_name: 'gpt-4o',
};

const REQUIRED = ['finding_key', 'label', 'ts', 'project', 'scanner', 'model_provider', 'model_name'] as const;

function rejectionsOf(raw: unknown, index = 0) {
  const checked = checkOutcomeRow(raw, index);
  return checked.ok ? [] : checked.rejections;
}

describe('checkOutcomeRow: valid rows', () => {
  test('a minimal valid row is accepted, with ts normalised to UTC ISO', () => {
    expect(checkOutcomeRow(VALID, 0)).toEqual({ ok: true, row: { ...VALID, ts: '2026-11-02T14:03:00.000Z' } });
  });

  test('every optional field is carried through', () => {
    const raw = {
      ...VALID,
      category: 'xss',
      cwe: 79,
      confidence: 0.8,
      severity: 'high',
      prompt_version: 'p1',
      strategy_version: 's1',
      summary: 'reflected xss in search box',
      source: 'github',
      notes: 'dev says sanitised upstream',
    };
    expect(checkOutcomeRow(raw, 0)).toEqual({ ok: true, row: { ...raw, ts: '2026-11-02T14:03:00.000Z' } });
  });

  test('unknown fields are dropped and required strings are trimmed', () => {
    expect(checkOutcomeRow({ ...VALID, project: '  payments  ', extra: 1 }, 0)).toEqual({
      ok: true,
      row: { ...VALID, ts: '2026-11-02T14:03:00.000Z' },
    });
  });

  test('null optional text fields are treated as absent', () => {
    const checked = checkOutcomeRow({ ...VALID, category: null, severity: null, summary: null, notes: null }, 0);
    expect(checked).toEqual({ ok: true, row: { ...VALID, ts: '2026-11-02T14:03:00.000Z' } });
  });

  test('null in a number field is refused, not read as absent', () => {
    expect(rejectionsOf({ ...VALID, cwe: null, confidence: null })).toEqual([
      { index: 0, field: 'cwe', message: 'cwe must be an integer, got null' },
      { index: 0, field: 'confidence', message: 'confidence must be a number in [0,1], got null' },
    ]);
  });

  test.each([0, 1])('confidence %d (a boundary) is accepted', (confidence) => {
    expect(checkOutcomeRow({ ...VALID, confidence }, 0).ok).toBe(true);
  });

  test(`summary of exactly ${MAX_TEXT_CHARS} characters is accepted`, () => {
    expect(checkOutcomeRow({ ...VALID, summary: 'x'.repeat(MAX_TEXT_CHARS) }, 0).ok).toBe(true);
  });
});

describe('checkOutcomeRow: required fields', () => {
  test.each(REQUIRED.map((f) => [f]))('missing %s is rejected with a message naming it', (field) => {
    const { [field]: _dropped, ...rest } = VALID;
    expect(rejectionsOf(rest, 4)).toEqual([{ index: 4, field, message: expect.stringContaining(`${field} is required`) }]);
  });

  test.each(REQUIRED.map((f) => [f]))('null %s is treated as missing', (field) => {
    expect(rejectionsOf({ ...VALID, [field]: null })).toEqual([{ index: 0, field, message: expect.stringContaining(`${field} is required`) }]);
  });

  test.each(['finding_key', 'project', 'scanner', 'model_provider', 'model_name'].map((f) => [f]))('blank %s is rejected as empty', (field) => {
    expect(rejectionsOf({ ...VALID, [field]: '   ' })).toEqual([{ index: 0, field, message: `${field} must not be empty` }]);
  });

  test('finding_key longer than 512 characters is rejected', () => {
    expect(rejectionsOf({ ...VALID, finding_key: 'k'.repeat(513) })).toEqual([
      { index: 0, field: 'finding_key', message: 'finding_key must be at most 512 characters' },
    ]);
  });
});

describe('checkOutcomeRow: field values', () => {
  test('an unknown label lists all five valid labels', () => {
    const rejections = rejectionsOf({ ...VALID, label: 'wontfix' });
    expect(rejections.map((r) => r.field)).toEqual(['label']);
    for (const label of OUTCOME_LABELS) expect(rejections[0]?.message).toContain(label);
    expect(rejections[0]?.message).toContain('"wontfix"');
  });

  test.each([1.5, -0.1, '0.5'])('confidence %p is rejected with a message containing [0,1]', (confidence) => {
    expect(rejectionsOf({ ...VALID, confidence })).toEqual([{ index: 0, field: 'confidence', message: expect.stringContaining('[0,1]') }]);
  });

  const badCwe: [unknown, string][] = [
    [79.5, 'cwe must be an integer'],
    ['79', 'cwe must be an integer, got "79"'],
    [-1, 'cwe must not be negative'],
  ];
  test.each(badCwe)('cwe %p is rejected: %s', (cwe, message) => {
    expect(rejectionsOf({ ...VALID, cwe })).toEqual([{ index: 0, field: 'cwe', message }]);
  });

  test(`summary longer than ${MAX_TEXT_CHARS} characters is rejected, not cut`, () => {
    expect(rejectionsOf({ ...VALID, summary: 'x'.repeat(MAX_TEXT_CHARS + 1) })).toEqual([
      { index: 0, field: 'summary', message: `summary must be at most ${MAX_TEXT_CHARS} characters` },
    ]);
  });

  test('every bad field of one row is reported', () => {
    const fields = rejectionsOf({ ...VALID, label: 'nope', cwe: 1.5, confidence: 2 }).map((r) => r.field);
    expect(fields.sort()).toEqual(['confidence', 'cwe', 'label']);
  });
});

describe('checkOutcomeRow: ts', () => {
  const normalised: [string, string][] = [
    ['2026-11-02T14:03:00Z', '2026-11-02T14:03:00.000Z'],
    ['2026-11-02T14:03Z', '2026-11-02T14:03:00.000Z'],
    ['2026-11-02T14:03:00+02:00', '2026-11-02T12:03:00.000Z'],
    ['2026-11-02T14:03:00.5-05:00', '2026-11-02T19:03:00.500Z'],
    ['2026-11-02T00:30:00+01:00', '2026-11-01T23:30:00.000Z'],
  ];
  test.each(normalised)('%s is normalised to %s', (ts, expected) => {
    const checked = checkOutcomeRow({ ...VALID, ts }, 0);
    expect(checked).toEqual({ ok: true, row: { ...VALID, ts: expected } });
  });

  const rejected: [unknown, string][] = [
    ['2026-11-02T14:03:00', 'time zone'],
    ['2026-11-02', 'time zone'],
    ['02/11/2026 14:03 UTC', 'time zone'],
    ['2026-13-02T14:03:00Z', 'time zone'],
    ['', 'time zone'],
    [1_790_000_000_000, 'ts must be an ISO-8601 string'],
  ];
  test.each(rejected)('ts %p is rejected (%s)', (ts, fragment) => {
    expect(rejectionsOf({ ...VALID, ts })).toEqual([{ index: 0, field: 'ts', message: expect.stringContaining(fragment) }]);
  });
});

describe('checkOutcomeRow: not an object', () => {
  test.each([[null], [42], ['a row'], [[VALID]], [true]])('%p is rejected as a whole row', (raw) => {
    expect(rejectionsOf(raw, 7)).toEqual([{ index: 7, field: '(row)', message: 'row must be a JSON object' }]);
  });
});

describe('checkOutcomeRows', () => {
  test('bad rows are reported with their index, good rows are kept with theirs', () => {
    const batch = checkOutcomeRows([VALID, 'not a row', { ...VALID, label: 'nope' }, { ...VALID, finding_key: 'second' }, { ...VALID, cwe: 1.5, confidence: 9 }]);
    expect(batch.valid.map((v) => [v.index, v.row.finding_key])).toEqual([
      [0, VALID.finding_key],
      [3, 'second'],
    ]);
    expect(batch.rejected.map((r) => [r.index, r.field]).sort()).toEqual([
      [1, '(row)'],
      [2, 'label'],
      [4, 'confidence'],
      [4, 'cwe'],
    ]);
  });

  test('an empty batch has nothing valid and nothing rejected', () => {
    expect(checkOutcomeRows([])).toEqual({ valid: [], rejected: [] });
  });
});
