import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { StringNumbers } from '../../src/shared/string-numbers';

describe('StringNumbers', () => {
  test('numbers strings in the order first seen, as a Map would, through many growths', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.fullUnicodeString({ maxLength: 4 }), fc.constantFrom('', '\u0000', 'a\u0000', '\uD800')), { maxLength: 3_000 }), (strings) => {
        const numbers = new StringNumbers();
        const expected = new Map<string, number>();
        for (const s of strings) {
          if (!expected.has(s)) expected.set(s, expected.size);
          expect(numbers.numberOf(s)).toBe(expected.get(s) as number);
        }
        expect(numbers.size).toBe(expected.size);
        for (const [s, n] of expected) expect(numbers.at(n)).toBe(s);
      }),
      { numRuns: 200 },
    );
  });

  test('100,000 distinct keys keep their numbers after the table has grown', () => {
    const numbers = new StringNumbers();
    for (let i = 0; i < 100_000; i++) expect(numbers.numberOf(`finding-${i}`)).toBe(i);
    for (let i = 99_999; i >= 0; i -= 7) expect(numbers.numberOf(`finding-${i}`)).toBe(i);
    expect(numbers.size).toBe(100_000);
  });

  test('a number never given is an error naming it', () => {
    const numbers = new StringNumbers();
    numbers.numberOf('x');
    expect(() => numbers.at(1)).toThrow('no string numbered 1 (1 held)');
    expect(() => numbers.at(-1)).toThrow('no string numbered -1');
  });
});
