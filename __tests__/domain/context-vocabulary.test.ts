import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { ContextVocabulary, wordListOf, wordsOf } from '../../src/scan/model/context-vocabulary';

/** The scan the vocabulary replaces: every known value in the order it became known, the first whose words the padded text contains. */
class Reference {
  private readonly counts = new Map<string, number>();
  count(value: string, delta: number): void {
    const next = (this.counts.get(value) ?? 0) + delta;
    if (next > 0) this.counts.set(value, next);
    else this.counts.delete(value);
  }
  findIn(text: string): string | null {
    const padded = ` ${wordsOf(text)} `;
    for (const value of this.counts.keys()) {
      const words = ` ${wordsOf(value)} `;
      if (words !== '  ' && padded.includes(words)) return value;
    }
    return null;
  }
}

const WORDS = ['payments', 'api', 'mobile', 'app', 'go', 'good', 'xss', '2', 'Ünïcode', 'sql'];
const value = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 3 }).chain((ws) => fc.constantFrom(ws.join('-'), ws.join(' '), ws.join('_').toUpperCase(), `${ws.join('.')}!`));
const op = fc.record({ value, delta: fc.constantFrom(1, 1, -1) });
const message = fc.array(fc.constantFrom(...WORDS, 'the', 'in', 'payments-api', 'is'), { maxLength: 12 }).map((ws) => ws.join(' '));

describe('ContextVocabulary', () => {
  test('names the value the scan over every known value named, whatever was added and removed', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.array(message, { minLength: 1, maxLength: 5 }), (ops, messages) => {
        const vocabulary = new ContextVocabulary();
        const reference = new Reference();
        for (const o of ops) {
          vocabulary.count(o.value, o.delta);
          reference.count(o.value, o.delta);
        }
        for (const m of messages) expect(vocabulary.findIn(wordListOf(m))).toBe(reference.findIn(m));
      }),
      { numRuns: 500 },
    );
  });

  test('whole words only, in any spelling; the value known first wins', () => {
    const vocabulary = new ContextVocabulary();
    for (const v of ['go', 'payments-api-5', 'payments-api']) vocabulary.count(v, 1);
    expect(vocabulary.findIn(wordListOf('a good day'))).toBeNull();
    expect(vocabulary.findIn(wordListOf('Payments_API 5 is down'))).toBe('payments-api-5');
    vocabulary.count('payments-api-5', -1);
    expect(vocabulary.findIn(wordListOf('Payments_API 5 is down'))).toBe('payments-api');
  });
});
