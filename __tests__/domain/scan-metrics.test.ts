import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { DAY_MS } from '../../src/scan/model/grouping';
import { OUTCOME_LABELS, type OutcomeLabel } from '../../src/scan/model/outcome';
import { HOUR_MS, summarizeFindings } from '../../src/scan/model/findings';
import {
  computeScanMetrics,
  type Drift,
  expectedCalibrationError,
  median,
  type MetricOutcome,
  type MetricSet,
  nextHourAheadAt,
  reportHoursAhead,
} from '../../src/scan/model/metrics';

const AS_OF = Date.UTC(2026, 2, 1);
const ago = (days: number) => AS_OF - days * DAY_MS;
const M1 = 'openai/gpt-4o';
const M2 = 'anthropic/claude-3';

type Row = [string, OutcomeLabel, number, string, string, string, number, number?];
const outcome = ([findingKey, label, tsMs, project, scanner, model, reward, confidence]: Row): MetricOutcome =>
  confidence === undefined
    ? { findingKey, label, tsMs, project, scanner, model, reward }
    : { findingKey, label, tsMs, project, scanner, model, reward, scannerConfidence: confidence };

/** Every number rounded to 9 places, so float goldens compare with toEqual. */
const rounded = (value: unknown): unknown =>
  typeof value === 'number'
    ? Math.round(value * 1e9) / 1e9
    : Array.isArray(value)
      ? value.map(rounded)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

const drift = (days: number, recent: number, previous: number, fpR: number | null, fpP: number | null, rwR: number | null, rwP: number | null): Drift => ({
  days,
  recent_outcomes: recent,
  previous_outcomes: previous,
  false_positive_rate_recent: fpR,
  false_positive_rate_previous: fpP,
  false_positive_rate_delta: fpR === null || fpP === null ? null : fpR - fpP,
  avg_reward_recent: rwR,
  avg_reward_previous: rwP,
  avg_reward_delta: rwR === null || rwP === null ? null : rwR - rwP,
});

// Ten findings, 2 projects x 2 scanners x 2 models. Comments: final label, C = confirmed.
const GOLDEN_ROWS: Row[] = [
  ['F1', 'accepted', ago(20), 'alpha', 'semgrep', M1, 0.5, 0.9], // F1 fixed C, accepted -> fixed
  ['F1', 'fixed', ago(18), 'alpha', 'semgrep', M1, 1, 0.9],
  ['F2', 'fixed', ago(10), 'alpha', 'semgrep', M1, 1, 0.8], // F2 reopened C, fixed at first sight
  ['F2', 'reopened', ago(3), 'alpha', 'semgrep', M1, -1, 0.8],
  ['F3', 'rejected_fp', ago(5), 'alpha', 'semgrep', M2, -0.7, 0.7], // F3 rejected_fp
  ['F4', 'accepted', ago(12), 'alpha', 'llm-review', M2, 0.5, 0.6], // F4 accepted C, never fixed
  ['F5', 'ignored', ago(2), 'alpha', 'llm-review', M1, 0], // F5 ignored, no confidence
  ['F6', 'rejected_fp', ago(6), 'beta', 'semgrep', M2, -0.7, 0.3], // F6 rejected_fp
  ['F7', 'fixed', ago(15), 'beta', 'semgrep', M1, 1, 0.95], // F7 fixed C
  ['F8', 'fixed', ago(9), 'beta', 'llm-review', M2, 1, 0.5], // F8 accepted C, fixed BEFORE accepted
  ['F8', 'accepted', ago(8), 'beta', 'llm-review', M2, 0.5, 0.5],
  ['F9', 'rejected_fp', ago(1), 'beta', 'llm-review', M1, -0.7, 0.2], // F9 rejected_fp (tie beats ignored)
  ['F9', 'ignored', ago(1), 'beta', 'llm-review', M1, 0, 0.2],
  ['F10', 'accepted', ago(25), 'beta', 'semgrep', M1, 0.5, 0.4], // F10 fixed C, moves to M2
  ['F10', 'fixed', ago(4), 'beta', 'semgrep', M2, 1], // latest has no confidence: 0.4 is used
];
const GOLDEN = GOLDEN_ROWS.map(outcome);
const GOLDEN_SEEN = new Map([
  ['F1', ago(22)],
  ['F7', ago(15.5)],
  ['F8', ago(10)],
  ['F99', ago(40)], // no outcomes: ignored
]);

describe('computeScanMetrics golden', () => {
  const report = computeScanMetrics(GOLDEN, GOLDEN_SEEN, { asOfMs: AS_OF, k: 5 });

  test('overall', () => {
    const expected: MetricSet = {
      findings: 10,
      outcomes: 15,
      // By confidence: F7 .95 C, F1 .9 C, F2 .8 C, F3 .7 R, F4 .6 C | F8 .5, F10 .4, F6 .3, F9 .2 -> 4/5
      precision_at_k: 0.8,
      precision_k: 5,
      false_positive_rate: 0.3, // F3, F6, F9 of 10
      accepted_to_fixed: 0.5, // accepted: F1 yes, F4 no, F8 no (fixed before), F10 yes -> 2/4
      reopened_rate: 0.2, // fixed: F1 F2 F7 F8 F10; reopened F2 -> 1/5
      // F1 22d->18d = 96h, F2 0 (excluded), F7 15.5d->15d = 12h, F8 10d->9d = 24h, F10 25d->4d = 504h
      median_time_to_fix_hours: (24 + 96) / 2,
      // |Σp − Σy| per bin: b9 |1.85−2| .15, b8 .2, b7 .7, b6 .4, b5 .5, b4 .6, b3 .3, b2 .2 = 3.05 over 9
      calibration_error: 3.05 / 9,
      // .5+1+1−1−.7+.5+0−.7+1+1+.5−.7+0+.5+1 = 3.9 over 15
      avg_reward: 0.26,
      drift: {
        // recent (ago 0..7): ago3 −1, ago5 −.7 fp, ago2 0, ago6 −.7 fp, ago1 −.7 fp, ago1 0, ago4 1 = −2.1 / 7
        // previous (ago 7..14): ago10 1, ago12 .5, ago9 1, ago8 .5 = 3 / 4
        d7: drift(7, 7, 4, 3 / 7, 0, -0.3, 0.75),
        d28: drift(28, 15, 0, 3 / 15, null, 0.26, null),
      },
    };
    expect(rounded(report.overall)).toEqual(rounded(expected));
  });

  test('by_project alpha', () => {
    const expected: MetricSet = {
      findings: 5, // F1..F5
      outcomes: 7,
      precision_at_k: 3 / 4, // F1 .9 C, F2 .8 C, F3 .7 R, F4 .6 C: only 4 available
      precision_k: 4,
      false_positive_rate: 1 / 5,
      accepted_to_fixed: 1 / 2, // F1 yes, F4 no
      reopened_rate: 1 / 2, // fixed F1, F2; reopened F2
      median_time_to_fix_hours: 96,
      calibration_error: (0.1 + 0.2 + 0.7 + 0.4) / 4,
      avg_reward: 1.3 / 7, // .5+1+1−1−.7+.5+0
      drift: {
        d7: drift(7, 3, 2, 1 / 3, 0, -1.7 / 3, 0.75), // recent ago3 −1, ago5 −.7, ago2 0; previous ago10 1, ago12 .5
        d28: drift(28, 7, 0, 1 / 7, null, 1.3 / 7, null),
      },
    };
    expect(rounded(report.by_project.alpha)).toEqual(rounded(expected));
  });

  test('by_model: findings by latest outcome, outcomes by their own model', () => {
    const expected: MetricSet = {
      findings: 5, // F1 F2 F5 F7 F9 (F10's latest outcome is M2)
      outcomes: 9, // includes F10's accepted outcome
      precision_at_k: 3 / 4, // F7 .95 C, F1 .9 C, F2 .8 C, F9 .2 R
      precision_k: 4,
      false_positive_rate: 1 / 5,
      accepted_to_fixed: 1, // only F1
      reopened_rate: 1 / 3, // fixed F1 F2 F7; reopened F2
      median_time_to_fix_hours: (12 + 96) / 2,
      calibration_error: (0.15 + 0.2 + 0.2) / 4, // b9 F7+F1 |1.85−2|, b8 F2, b2 F9
      avg_reward: 2.3 / 9, // .5+1+1−1+0+1−.7+0+.5
      drift: {
        d7: drift(7, 4, 1, 1 / 4, 0, -1.7 / 4, 1), // recent ago3 −1, ago2 0, ago1 −.7, ago1 0; previous ago10 1
        d28: drift(28, 9, 0, 1 / 9, null, 2.3 / 9, null),
      },
    };
    expect(rounded(report.by_model[M1])).toEqual(rounded(expected));
  });

  test('slice keys are sorted', () => {
    expect(Object.keys(report.by_project)).toEqual(['alpha', 'beta']);
    expect(Object.keys(report.by_scanner)).toEqual(['llm-review', 'semgrep']);
    expect(Object.keys(report.by_model)).toEqual([M2, M1]);
    expect(report.as_of).toBe('2026-03-01T00:00:00.000Z');
    expect(report.k).toBe(5);
  });

  test('model_deltas of alpha/semgrep against the pooled pair', () => {
    // Pooled: F1 F2 M1, F3 M2 -> fp 1/3; rewards .5+1+1−1−.7 = .8 over 5 = .16
    expect(report.model_deltas).toHaveLength(8);
    const alphaSemgrep = report.model_deltas.filter((d) => d.project === 'alpha' && d.scanner === 'semgrep');
    expect(rounded(alphaSemgrep)).toEqual(
      rounded([
        { project: 'alpha', scanner: 'semgrep', model: M2, findings: 1, false_positive_rate: 1, false_positive_rate_delta: 2 / 3, avg_reward: -0.7, avg_reward_delta: -0.86 },
        { project: 'alpha', scanner: 'semgrep', model: M1, findings: 2, false_positive_rate: 0, false_positive_rate_delta: -1 / 3, avg_reward: 0.375, avg_reward_delta: 0.215 },
      ]),
    );
    expect(report.model_deltas.map((d) => `${d.project}|${d.scanner}|${d.model}`)).toEqual([
      `alpha|llm-review|${M2}`,
      `alpha|llm-review|${M1}`,
      `alpha|semgrep|${M2}`,
      `alpha|semgrep|${M1}`,
      `beta|llm-review|${M2}`,
      `beta|llm-review|${M1}`,
      `beta|semgrep|${M2}`,
      `beta|semgrep|${M1}`,
    ]);
  });

  test('shuffled input gives identical JSON', () => {
    const baseline = JSON.stringify(report);
    fc.assert(
      fc.property(fc.shuffledSubarray(GOLDEN, { minLength: GOLDEN.length }), (shuffled) => {
        expect(JSON.stringify(computeScanMetrics(shuffled, GOLDEN_SEEN, { asOfMs: AS_OF, k: 5 }))).toBe(baseline);
      }),
    );
  });
});

describe('summarizeFindings', () => {
  const table: [OutcomeLabel, OutcomeLabel, OutcomeLabel][] = [
    ['accepted', 'ignored', 'ignored'],
    ['ignored', 'rejected_fp', 'rejected_fp'],
    ['rejected_fp', 'fixed', 'fixed'],
    ['fixed', 'reopened', 'reopened'],
    ['accepted', 'reopened', 'reopened'],
  ];
  test.each(table)('same time: %s and %s => %s, in either input order', (a, b, winner) => {
    const rows = [outcome(['k', a, AS_OF, 'p', 's', M1, 0]), outcome(['k', b, AS_OF, 'p', 's', M2, 0])];
    expect(summarizeFindings(rows, new Map())[0]?.finalLabel).toBe(winner);
    expect(summarizeFindings([...rows].reverse(), new Map())[0]?.finalLabel).toBe(winner);
  });

  test('a later time beats lifecycle order; slice follows the latest outcome', () => {
    const [f] = summarizeFindings(
      [outcome(['k', 'reopened', ago(2), 'p', 's', M1, 0, 0.3]), outcome(['k', 'accepted', ago(1), 'q', 't', M2, 0])],
      new Map(),
    );
    expect(f).toMatchObject({ finalLabel: 'accepted', project: 'q', scanner: 't', model: M2, scannerConfidence: 0.3, confirmed: true });
  });
});

describe('precision_at_k', () => {
  test('k larger than available uses all findings with a confidence', () => {
    const rows: Row[] = [
      ['a', 'fixed', ago(1), 'p', 's', M1, 1, 0.9],
      ['b', 'rejected_fp', ago(1), 'p', 's', M1, -0.7, 0.8],
      ['c', 'accepted', ago(1), 'p', 's', M1, 0.5, 0.1],
      ['d', 'fixed', ago(1), 'p', 's', M1, 1],
    ];
    const m = computeScanMetrics(rows.map(outcome), new Map(), { asOfMs: AS_OF, k: 10 }).overall;
    expect(m.precision_k).toBe(3);
    expect(m.precision_at_k).toBeCloseTo(2 / 3, 12);
  });

  test('equal confidence breaks by findingKey ascending', () => {
    const rows: Row[] = [
      ['b', 'fixed', ago(1), 'p', 's', M1, 1, 0.5],
      ['a', 'rejected_fp', ago(1), 'p', 's', M1, -0.7, 0.5],
    ];
    const m = computeScanMetrics(rows.map(outcome), new Map(), { asOfMs: AS_OF, k: 1 }).overall;
    expect(m.precision_at_k).toBe(0);
  });

  test('null when no finding has a confidence', () => {
    const m = computeScanMetrics([outcome(['a', 'fixed', ago(1), 'p', 's', M1, 1])], new Map(), { asOfMs: AS_OF, k: 3 }).overall;
    expect(m.precision_at_k).toBeNull();
    expect(m.precision_k).toBe(0);
    expect(m.calibration_error).toBeNull();
  });
});

describe('expectedCalibrationError', () => {
  const table: [string, { p: number; y: 0 | 1 }[], number, number][] = [
    ['two bins, 10 bins', [{ p: 0.2, y: 1 }, { p: 0.4, y: 0 }], 10, (0.8 + 0.4) / 2],
    ['same pairs, 1 bin', [{ p: 0.2, y: 1 }, { p: 0.4, y: 0 }], 1, Math.abs(0.6 - 1) / 2],
    ['p = 1 shares the last bin', [{ p: 1, y: 0 }, { p: 0.95, y: 1 }], 10, Math.abs(1.95 - 1) / 2],
    ['mixed', [{ p: 0.1, y: 0 }, { p: 0.15, y: 1 }, { p: 0.9, y: 1 }, { p: 1, y: 1 }], 10, (0.75 + 0.1) / 4],
    ['perfect calibration', [{ p: 0.5, y: 1 }, { p: 0.5, y: 0 }, { p: 1, y: 1 }, { p: 0, y: 0 }], 10, 0],
    ['fully wrong', [{ p: 0, y: 1 }, { p: 1, y: 0 }], 10, 1],
  ];
  test.each(table)('%s', (_name, pairs, bins, ece) => {
    expect(expectedCalibrationError(pairs, bins)).toBeCloseTo(ece, 12);
  });

  test('null for no pairs; throws on bad input', () => {
    expect(expectedCalibrationError([])).toBeNull();
    expect(() => expectedCalibrationError([{ p: 1.2, y: 1 }])).toThrow(RangeError);
    expect(() => expectedCalibrationError([{ p: 0.5, y: 1 }], 0)).toThrow(RangeError);
  });

  test('property: in [0,1]', () => {
    const pair = fc.record({ p: fc.double({ min: 0, max: 1, noNaN: true }), y: fc.constantFrom(0 as const, 1 as const) });
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (pairs, bins) => {
        const ece = expectedCalibrationError(pairs, bins) as number;
        expect(ece).toBeGreaterThanOrEqual(0);
        expect(ece).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('median_time_to_fix_hours', () => {
  test.each([
    [[1, 5, 2], 2],
    [[10, 1, 5, 2], 3.5],
    [[7], 7],
  ])('median of %p = %d', (hours, expected) => {
    expect(median(hours)).toBe(expected);
    const rows = hours.map((_h, i): MetricOutcome => outcome([`f${i}`, 'fixed', ago(1), 'p', 's', M1, 1]));
    const seen = new Map(hours.map((h, i) => [`f${i}`, ago(1) - h * HOUR_MS]));
    expect(computeScanMetrics(rows, seen, { asOfMs: AS_OF, k: 1 }).overall.median_time_to_fix_hours).toBeCloseTo(expected, 9);
  });

  test('fixed at first sight (duration 0) is excluded', () => {
    const rows = [outcome(['known', 'fixed', ago(1), 'p', 's', M1, 1]), outcome(['unknown', 'fixed', ago(1), 'p', 's', M1, 1])];
    const seen = new Map([['known', ago(1) - 6 * HOUR_MS]]);
    expect(computeScanMetrics(rows, seen, { asOfMs: AS_OF, k: 1 }).overall.median_time_to_fix_hours).toBeCloseTo(6, 9);
    expect(computeScanMetrics(rows, new Map(), { asOfMs: AS_OF, k: 1 }).overall.median_time_to_fix_hours).toBeNull();
  });

  test('first seen is the earlier of the entry and the first outcome', () => {
    const rows = [outcome(['f', 'accepted', ago(3), 'p', 's', M1, 0.5]), outcome(['f', 'fixed', ago(1), 'p', 's', M1, 1])];
    const seen = new Map([['f', ago(2)]]);
    expect(computeScanMetrics(rows, seen, { asOfMs: AS_OF, k: 1 }).overall.median_time_to_fix_hours).toBeCloseTo(48, 9);
  });
});

describe('drift windows', () => {
  test('in whole hours before as_of\'s own: recent is [H − d, H), previous is [H − 2d, H − d), H the start of as_of\'s hour', () => {
    // AS_OF is on a whole hour; as of 40 minutes into it, H is still AS_OF.
    const asOf = AS_OF + 40 * 60_000;
    const rows: Row[] = [
      ['a', 'rejected_fp', AS_OF - 1, 'p', 's', M1, -1], // recent for both (the last millisecond before H)
      ['g', 'rejected_fp', AS_OF, 'p', 's', M1, -1], // as_of's own hour: in no window
      ['b', 'fixed', ago(7), 'p', 's', M1, 1], // the first instant of d7 recent, d28 recent
      ['h', 'fixed', ago(7) - 1, 'p', 's', M1, 0.5], // d7 previous, d28 recent
      ['c', 'fixed', ago(14), 'p', 's', M1, 1], // d7 previous (its first instant), d28 recent
      ['d', 'fixed', ago(56) - 1, 'p', 's', M1, 1], // before d28 previous
      ['e', 'fixed', ago(28) - 1, 'p', 's', M1, 0.5], // d28 previous
      ['f', 'fixed', asOf + 1, 'p', 's', M1, 1], // after asOf: in no window
    ];
    const { d7, d28 } = computeScanMetrics(rows.map(outcome), new Map(), { asOfMs: asOf, k: 1 }).overall.drift;
    expect(rounded(d7)).toEqual(rounded(drift(7, 2, 2, 1 / 2, 0, 0, 0.75)));
    expect(rounded(d28)).toEqual(rounded(drift(28, 4, 1, 1 / 4, 0, 1.5 / 4, 0.5)));
  });
});

describe('reports computed ahead of the hour', () => {
  const MINUTE = 60_000;
  test('reportHoursAhead: now alone, and the next hour too once it starts within the lead', () => {
    expect(reportHoursAhead(AS_OF + 10 * MINUTE, MINUTE)).toEqual([AS_OF + 10 * MINUTE]);
    expect(reportHoursAhead(AS_OF, MINUTE)).toEqual([AS_OF]);
    expect(reportHoursAhead(AS_OF + HOUR_MS - MINUTE - 1, MINUTE)).toEqual([AS_OF + HOUR_MS - MINUTE - 1]);
    expect(reportHoursAhead(AS_OF + HOUR_MS - MINUTE, MINUTE)).toEqual([AS_OF + HOUR_MS - MINUTE, AS_OF + HOUR_MS]);
    expect(reportHoursAhead(AS_OF + HOUR_MS - 1, MINUTE)).toEqual([AS_OF + HOUR_MS - 1, AS_OF + HOUR_MS]);
  });

  test('nextHourAheadAt: the lead before the next hour, or before the one after once that time has come', () => {
    expect(nextHourAheadAt(AS_OF, MINUTE)).toBe(AS_OF + HOUR_MS - MINUTE);
    expect(nextHourAheadAt(AS_OF + HOUR_MS - MINUTE - 1, MINUTE)).toBe(AS_OF + HOUR_MS - MINUTE);
    expect(nextHourAheadAt(AS_OF + HOUR_MS - MINUTE, MINUTE)).toBe(AS_OF + 2 * HOUR_MS - MINUTE);
    expect(nextHourAheadAt(AS_OF + HOUR_MS - 1, MINUTE)).toBe(AS_OF + 2 * HOUR_MS - MINUTE);
  });

  test('property: at the time nextHourAheadAt names, reportHoursAhead adds the hour after it, and at no time before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 * HOUR_MS }), fc.integer({ min: 1, max: HOUR_MS - 1 }), (offset, lead) => {
        const now = AS_OF + offset;
        const at = nextHourAheadAt(now, lead);
        expect(at).toBeGreaterThan(now);
        expect(at - now).toBeLessThanOrEqual(HOUR_MS);
        expect(reportHoursAhead(at, lead)).toEqual([at, Math.floor(at / HOUR_MS) * HOUR_MS + HOUR_MS]);
        if (at - 1 > now) expect(reportHoursAhead(at - 1, lead)).toHaveLength(1);
      }),
    );
  });
});

describe('model_deltas', () => {
  test('only pairs with two or more models', () => {
    const rows: Row[] = [
      ['a', 'fixed', ago(1), 'solo', 's', M1, 1],
      ['b', 'rejected_fp', ago(1), 'solo', 's', M1, -0.7],
      ['c', 'fixed', ago(1), 'duo', 's', M1, 1],
      ['d', 'rejected_fp', ago(1), 'duo', 's', M2, -1],
    ];
    const deltas = computeScanMetrics(rows.map(outcome), new Map(), { asOfMs: AS_OF, k: 1 }).model_deltas;
    expect(deltas).toEqual([
      { project: 'duo', scanner: 's', model: M2, findings: 1, false_positive_rate: 1, false_positive_rate_delta: 0.5, avg_reward: -1, avg_reward_delta: -1 },
      { project: 'duo', scanner: 's', model: M1, findings: 1, false_positive_rate: 0, false_positive_rate_delta: -0.5, avg_reward: 1, avg_reward_delta: 1 },
    ]);
  });
});

describe('edge cases', () => {
  test('empty input: zero counts, nulls, empty maps', () => {
    const report = computeScanMetrics([], new Map([['x', ago(1)]]), { asOfMs: AS_OF, k: 5 });
    expect(report).toEqual({
      as_of: '2026-03-01T00:00:00.000Z',
      k: 5,
      overall: {
        findings: 0,
        outcomes: 0,
        precision_at_k: null,
        precision_k: 0,
        false_positive_rate: null,
        accepted_to_fixed: null,
        reopened_rate: null,
        median_time_to_fix_hours: null,
        calibration_error: null,
        avg_reward: null,
        drift: { d7: drift(7, 0, 0, null, null, null, null), d28: drift(28, 0, 0, null, null, null, null) },
      },
      by_project: {},
      by_scanner: {},
      by_model: {},
      model_deltas: [],
      slice_totals: { project: 0, scanner: 0, model: 0 },
      slice_limit: null,
    });
  });

  test.each([0, -1, 2.5, Number.NaN])('k = %p throws', (k) => {
    expect(() => computeScanMetrics([], new Map(), { asOfMs: AS_OF, k })).toThrow(RangeError);
  });

  test('an invalid asOfMs throws', () => {
    expect(() => computeScanMetrics([], new Map(), { asOfMs: Number.NaN, k: 1 })).toThrow(RangeError);
  });
});

describe('properties', () => {
  const arbOutcome = fc.record(
    {
      findingKey: fc.constantFrom('f0', 'f1', 'f2', 'f3', 'f4', 'f5'),
      label: fc.constantFrom(...OUTCOME_LABELS),
      tsMs: fc.integer({ min: ago(60), max: AS_OF + DAY_MS }),
      project: fc.constantFrom('p1', 'p2'),
      scanner: fc.constantFrom('s1', 's2'),
      model: fc.constantFrom(M1, M2),
      scannerConfidence: fc.double({ min: 0, max: 1, noNaN: true }),
      reward: fc.double({ min: -1, max: 1, noNaN: true }),
    },
    { requiredKeys: ['findingKey', 'label', 'tsMs', 'project', 'scanner', 'model', 'reward'] },
  );
  const arbSeen = fc.array(fc.tuple(fc.constantFrom('f0', 'f1', 'f2', 'f9'), fc.integer({ min: ago(90), max: AS_OF })), { maxLength: 4 });

  const numbersIn = (value: unknown): number[] =>
    typeof value === 'number' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(numbersIn) : [];

  const ratesOf = (m: MetricSet): (number | null)[] => [
    m.precision_at_k,
    m.false_positive_rate,
    m.accepted_to_fixed,
    m.reopened_rate,
    m.calibration_error,
    ...[m.drift.d7, m.drift.d28].flatMap((d) => [d.false_positive_rate_recent, d.false_positive_rate_previous]),
  ];

  test('rates are null or in [0,1], no NaN anywhere, slices add up', () => {
    fc.assert(
      fc.property(fc.array(arbOutcome, { maxLength: 40 }), arbSeen, fc.integer({ min: 1, max: 8 }), (rows, seen, k) => {
        const report = computeScanMetrics(rows, new Map(seen), { asOfMs: AS_OF, k });
        expect(numbersIn(report).every(Number.isFinite)).toBe(true);
        const sets = [report.overall, ...Object.values(report.by_project), ...Object.values(report.by_scanner), ...Object.values(report.by_model)];
        for (const rate of sets.flatMap(ratesOf)) expect(rate === null || (rate >= 0 && rate <= 1)).toBe(true);
        for (const m of sets) expect(m.precision_k).toBeLessThanOrEqual(k);
        const sum = (xs: MetricSet[], f: (m: MetricSet) => number) => xs.reduce((s, m) => s + f(m), 0);
        expect(sum(Object.values(report.by_model), (m) => m.findings)).toBe(report.overall.findings);
        expect(sum(Object.values(report.by_project), (m) => m.outcomes)).toBe(rows.length);
      }),
    );
  });

  test('input order never changes the JSON', () => {
    fc.assert(
      fc.property(
        fc.array(arbOutcome, { maxLength: 40 }).chain((rows) => fc.tuple(fc.constant(rows), fc.shuffledSubarray(rows, { minLength: rows.length }))),
        ([rows, shuffled]) => {
          const options = { asOfMs: AS_OF, k: 3 };
          expect(JSON.stringify(computeScanMetrics(shuffled, new Map(), options))).toBe(JSON.stringify(computeScanMetrics(rows, new Map(), options)));
        },
      ),
    );
  });
});
