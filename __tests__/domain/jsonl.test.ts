import { describe, expect, test } from 'bun:test';
import { parseJsonLines, parseRowsText } from '../../src/shared/jsonl';

describe('parseJsonLines', () => {
  test('blank lines are skipped, bad lines reported, line numbers 1-based', () => {
    const text = '{"a":1}\n\n   \nnot json\n{"b":2}\r\n[3]\n';
    const parsed = parseJsonLines(text);
    expect(parsed.values).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 5, value: { b: 2 } },
      { line: 6, value: [3] },
    ]);
    expect(parsed.errors.map((e) => e.line)).toEqual([4]);
    expect(parsed.errors[0]?.message).toStartWith('not valid JSON at column 1: ');
  });

  test('the column of a bad line counts its leading spaces', () => {
    expect(parseJsonLines('{"a":1}\n   {"a": NaN}').errors).toEqual([{ line: 2, message: expect.stringMatching(/^not valid JSON at column 10: /) }]);
  });

  test('empty text is nothing', () => {
    expect(parseJsonLines('')).toEqual({ values: [], errors: [] });
  });

  test('CRLF line endings and surrounding spaces', () => {
    expect(parseJsonLines('  1  \r\n"two"\r\nnull')).toEqual({
      values: [
        { line: 1, value: 1 },
        { line: 2, value: 'two' },
        { line: 3, value: null },
      ],
      errors: [],
    });
  });
});

describe('parseRowsText', () => {
  test('a JSON array: each element numbered from 1', () => {
    expect(parseRowsText('  [{"a":1},\n {"b":2}]  ')).toEqual({
      values: [
        { line: 1, value: { a: 1 } },
        { line: 2, value: { b: 2 } },
      ],
      errors: [],
    });
  });

  test('an empty array', () => {
    expect(parseRowsText('[]')).toEqual({ values: [], errors: [] });
  });

  test('a broken JSON array is one error on line 1', () => {
    const parsed = parseRowsText('[{"a":1},');
    expect(parsed.values).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.line).toBe(1);
  });

  test('a broken multi-line JSON array names the line and column of the error', () => {
    const parsed = parseRowsText('[\n  {"a": 1},\n  {"b": 2,}\n]');
    expect(parsed.errors).toEqual([{ line: 3, message: expect.stringContaining('syntax error at line 3, column 11') }]);
  });

  test('JSONL', () => {
    expect(parseRowsText('{"a":1}\n{"b":2}\n')).toEqual({
      values: [
        { line: 1, value: { a: 1 } },
        { line: 2, value: { b: 2 } },
      ],
      errors: [],
    });
  });

  test('a single object on one line', () => {
    expect(parseRowsText('{"a":1}')).toEqual({ values: [{ line: 1, value: { a: 1 } }], errors: [] });
  });
});
