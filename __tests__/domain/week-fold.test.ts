import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { MetricOutcome } from '../../src/scan/model/findings';
import { WeekFold, topConfirmed } from '../../src/scan/model/week-fold';
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
    expect(turns).toBe(2);
    expect(point).toMatchObject({ findings: 12_000, outcomes: 12_000, precision_k: 100, precision_at_k: 1 });
  });
});

describe('topConfirmed', () => {
  test('the k most confident by confidence, then key in code-unit order, at the k-th confidence too', () => {
    const confident = [
      { key: 'b', p: 0.9, y: 1 as const },
      { key: '\u{1F600}', p: 0.5, y: 0 as const },
      { key: '\uE000', p: 0.5, y: 1 as const },
      { key: 'a', p: 0.5, y: 0 as const },
      { key: 'c', p: 0.1, y: 1 as const },
    ];
    // k = 3: b, then a and (code units: U+D83D < U+E000) the emoji.
    expect(topConfirmed(confident, 3)).toEqual({ confirmed: 1, taken: 3 });
    expect(topConfirmed(confident, 4)).toEqual({ confirmed: 2, taken: 4 });
    expect(topConfirmed(confident, 1)).toEqual({ confirmed: 1, taken: 1 });
    expect(topConfirmed(confident, 99)).toEqual({ confirmed: 3, taken: 5 });
  });
});
