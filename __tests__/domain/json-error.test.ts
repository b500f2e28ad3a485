import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { jsonNestingDepthExceeds } from '../../src/shared/json-depth';
import { jsonErrorPosition } from '../../src/shared/json-error';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('jsonErrorPosition', () => {
  test.each([
    ['[1,2,}', { line: 1, column: 6 }],
    ['[\n  {"a": 1},\n  {"b": 2,}\n]', { line: 3, column: 11 }],
    ['[NaN]', { line: 1, column: 2 }],
    ['{"a" 1}', { line: 1, column: 6 }],
    ['[1] [2]', { line: 1, column: 5 }],
    ['', { line: 1, column: 1 }],
    ['[1,', { line: 1, column: 4 }],
    ['"a\u0001"', { line: 1, column: 1 }],
    ['[01]', { line: 1, column: 3 }],
  ])('%j fails at %j', (text, where) => {
    expect(jsonErrorPosition(text)).toMatchObject(where);
    expect(parses(text)).toBe(false);
  });

  test.each(['[]', '{}', ' [1, -2.5e3, "x\\u0041", true, false, null, {"k": [{}]}] ', '"s"', '0', '{"a":{"b":{"c":[]}}}'])('%j is valid', (text) => {
    expect(jsonErrorPosition(text)).toBeNull();
  });

  test('a 100,000-level document is scanned without recursion', () => {
    expect(jsonErrorPosition(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeNull();
    expect(jsonErrorPosition(`${'['.repeat(100_000)}${']'.repeat(99_999)}`)).toMatchObject({ offset: 199_999 });
  });

  test('agrees with JSON.parse on arbitrary JSON and on JSON with one character changed', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (json, at, ch) => {
        expect(jsonErrorPosition(json)).toBeNull();
        const i = at % (json.length + 1);
        const mutated = json.slice(0, i) + ch + json.slice(i + 1);
        expect(jsonErrorPosition(mutated) === null).toBe(parses(mutated));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('jsonNestingDepthExceeds', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = i % 2 ? { k: value } : [value];
    return value;
  };
  test.each([
    [0, 0, false],
    [1, 0, true],
    [64, 64, false],
    [65, 64, true],
    [100_000, 64, true],
  ])('%d levels against a bound of %d: %p', (levels, bound, exceeds) => {
    expect(jsonNestingDepthExceeds(nested(levels), bound)).toBe(exceeds);
  });
  test('scalars and empty containers', () => {
    expect(jsonNestingDepthExceeds('x', 0)).toBe(false);
    expect(jsonNestingDepthExceeds([], 1)).toBe(false);
    expect(jsonNestingDepthExceeds([[]], 1)).toBe(true);
  });
});
