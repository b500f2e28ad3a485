import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { MetricOutcome } from '../../src/scan/model/findings';
import { type ConfidentFindings, WeekFold, topConfirmed } from '../../src/scan/model/week-fold';
import { WEEK_MS, weekPoint } from '../../src/scan/model/weekly-triage';

const START = Date.parse('2026-11-09T00:00:00.000Z');
const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'] as const;
// Keys where code-unit order differs from code-point order, and discrete confidences (ties).
const KEYS = ['a', 'b', '\uE000', '\u{1F600}', 'z-1', 'z-2', 'z-10'];

const outcomeArb: fc.Arbitrary<MetricOutcome> = fc.record({
  key: fc.constantFrom(...KEYS),
  n: fc.integer({ min: 0, max: 5 }),
  label: fc.constantFrom(...LABELS),
  hour: fc.integer({ min: 0, max: 7 * 24 - 1 }),
  project: fc.constantFrom('p', 'q'),
  confidence: fc.option(fc.constantFrom(0, 0.3, 0.5, 0.9, 1), { nil: undefined }),
  reward: fc.constantFrom(-0.7, 0, 0.5, 1),
}).map((r) => ({
  findingKey: `${r.key}${r.n}`,
  label: r.label,
  // Few distinct times: outcomes of one finding tie in time, and compareOutcomes decides by label, slice, confidence.
  tsMs: START + (r.hour % 12) * 3_600_000,
  project: r.project,
  scanner: 's',
  model: 'm/n',
  reward: r.reward,
  ...(r.confidence === undefined ? {} : { scannerConfidence: r.confidence }),
}));

const rounded = (point: object) => JSON.parse(JSON.stringify(point, (_k, v) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v)));
const noTurn = async () => {};

describe('WeekFold', () => {
  test("a week's outcomes added page by page, in any order, give weekPoint's figures", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(outcomeArb, { maxLength: 300 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 50 }), fc.integer(), async (outcomes, k, pageSize, seed) => {
        const shuffled = [...outcomes].sort((a, b) => ((a.tsMs * 31 + a.reward * 7 + seed) % 13) - ((b.tsMs * 31 + b.reward * 7 + seed) % 13));
        const fold = new WeekFold();
        for (let i = 0; i < shuffled.length; i += pageSize) fold.add(shuffled.slice(i, i + pageSize));
        const expected = weekPoint([...outcomes], START, { asOfMs: START + WEEK_MS, weeks: 1, k });
        expect(rounded(await fold.point(START, k, noTurn))).toEqual(rounded(expected));
      }),
      { numRuns: 300 },
    );
  });

  test('an empty week has null figures', async () => {
    expect(await new WeekFold().point(START, 20, noTurn)).toEqual(weekPoint([], START, { asOfMs: START + WEEK_MS, weeks: 1, k: 20 }));
  });

  test('goes through many findings a few thousand between turns', async () => {
    const fold = new WeekFold();
    fold.add(Array.from({ length: 12_000 }, (_, i) => ({ findingKey: `f${i}`, label: 'accepted' as const, tsMs: START, project: 'p', scanner: 's', model: 'm', reward: 1, scannerConfidence: (i % 10) / 10 })));
    let turns = 0;
    const point = await fold.point(START, 100, async () => {
      turns++;
    });
    // Three passes over the 12,000 findings (the fold, the k-th greatest confidence, the count), 5,000 a turn.
    expect(turns).toBe(6);
    expect(point).toMatchObject({ findings: 12_000, outcomes: 12_000, precision_k: 100, precision_at_k: 1 });
  });
});

const columns = (confident: readonly { key: string; p: number; y: 0 | 1 }[]): ConfidentFindings => ({
  count: confident.length,
  p: Float64Array.from(confident, (c) => c.p),
  y: Uint8Array.from(confident, (c) => c.y),
  keyOf: (i) => (confident[i] as { key: string }).key,
});

describe('topConfirmed', () => {
  test('the k most confident by confidence, then key in code-unit order, at the k-th confidence too', async () => {
    const confident = columns([
      { key: 'b', p: 0.9, y: 1 },
      { key: '\u{1F600}', p: 0.5, y: 0 },
      { key: '\uE000', p: 0.5, y: 1 },
      { key: 'a', p: 0.5, y: 0 },
      { key: 'c', p: 0.1, y: 1 },
    ]);
    // k = 3: b, then a and (code units: U+D83D < U+E000) the emoji.
    expect(await topConfirmed(confident, 3, noTurn)).toEqual({ confirmed: 1, taken: 3 });
    expect(await topConfirmed(confident, 4, noTurn)).toEqual({ confirmed: 2, taken: 4 });
    expect(await topConfirmed(confident, 1, noTurn)).toEqual({ confirmed: 1, taken: 1 });
    expect(await topConfirmed(confident, 99, noTurn)).toEqual({ confirmed: 3, taken: 5 });
  });

  test('agrees with sorting every finding, for any confidences, ties and k', async () => {
    const findingArb = fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 3 }), p: fc.constantFrom(0, 0.25, 0.5, 0.75, 1), y: fc.constantFrom(0 as const, 1 as const) });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(findingArb, { selector: (f) => f.key, maxLength: 200 }), fc.integer({ min: 1, max: 220 }), async (findings, k) => {
        const sorted = [...findings].sort((a, b) => b.p - a.p || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, k);
        expect(await topConfirmed(columns(findings), k, noTurn)).toEqual({ confirmed: sorted.reduce((sum, f) => sum + f.y, 0), taken: sorted.length });
      }),
      { numRuns: 300 },
    );
  });
});
