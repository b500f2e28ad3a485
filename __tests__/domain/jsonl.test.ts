import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { jsonLinesOfChunks, linesOfChunks, parseJsonLines, parseRowsText } from '../../src/shared/jsonl';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** `text` cut at `cuts` (positions, in any order, repeats allowed): the pieces it arrives in. */
function cutAt(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((from, i) => text.slice(from, at[i] ?? text.length));
}

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
    expect(parsed.errors[0]?.text).toBe('not json');
  });

  test('the column of a bad line counts its leading spaces', () => {
    expect(parseJsonLines('{"a":1}\n   {"a": NaN}').errors).toEqual([{ line: 2, message: expect.stringMatching(/^not valid JSON at column 10: /), text: '   {"a": NaN}' }]);
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
    const parsed = parseRowsText('[\n  {"a": 1},\n  {"b": 2,}\n]  ');
    // The text of the error is the whole array, as the parse-error log keeps it.
    expect(parsed.errors).toEqual([{ line: 3, message: expect.stringContaining('syntax error at line 3, column 11'), text: '[\n  {"a": 1},\n  {"b": 2,}\n]' }]);
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

describe('a text that arrives in pieces', () => {
  // Lines, blank lines, CRLF, bad JSON and spaces: what a JSONL file may hold, cut anywhere.
  const jsonlText = fc
    .array(fc.oneof(fc.constant(''), fc.constant('   '), fc.constant('{"a": 1}'), fc.constant(' {"b": "x\\ny"} '), fc.constant('[2]'), fc.constant('{"c":'), fc.constant('not json'), fc.string()), { maxLength: 12 })
    .chain((lines) => fc.tuple(fc.constant(lines), fc.array(fc.boolean(), { minLength: lines.length, maxLength: lines.length })))
    .map(([lines, crlf]) => lines.map((line, i) => line + (i === lines.length - 1 ? '' : crlf[i] ? '\r\n' : '\n')).join(''));

  test('linesOfChunks gives the lines of the text joined, wherever it was cut', async () => {
    await fc.assert(
      fc.asyncProperty(jsonlText, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const lines = await collect(linesOfChunks(cutAt(text, cuts)));
        expect(lines.map((line) => line.replace(/\r$/, ''))).toEqual(text.split(/\r?\n/));
      }),
    );
  });

  test('jsonLinesOfChunks parses as parseJsonLines does: the same values and errors, by the same line numbers', async () => {
    await fc.assert(
      fc.asyncProperty(jsonlText, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const parsed = parseJsonLines(text);
        const expected = [...parsed.values, ...parsed.errors].sort((a, b) => a.line - b.line);
        expect(await collect(jsonLinesOfChunks(cutAt(text, cuts)))).toEqual(expected);
      }),
    );
  });

  test('a broken line cut between pieces keeps its whole text, without the CR of its break', async () => {
    expect(await collect(jsonLinesOfChunks(['{"a":', ' x}\r', '\n{"b":1}']))).toEqual([
      { line: 1, message: expect.stringMatching(/^not valid JSON/), text: '{"a": x}' },
      { line: 2, value: { b: 1 } },
    ]);
  });

  test('a line cut into many pieces, a break between pieces, and a text ending in a break', async () => {
    expect(await collect(linesOfChunks(['{"a', '": ', '1}', '\r', '\n', '', '[2]\n']))).toEqual(['{"a": 1}\r', '[2]', '']);
    expect(await collect(jsonLinesOfChunks(['{"a', '": ', '1}', '\r', '\n', '', '[2]\n']))).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, value: [2] },
    ]);
    expect(await collect(linesOfChunks([]))).toEqual(['']);
  });
});
