import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { MetricOutcome } from '../../src/scan/model/findings';
import { MAX_WEEKS, utcWeekStartMs, WEEK_MS, weeklyTriage } from '../../src/scan/model/weekly-triage';

const at = (iso: string) => Date.parse(iso);
const outcome = (findingKey: string, label: MetricOutcome['label'], iso: string, confidence?: number): MetricOutcome => ({
  findingKey,
  label,
  tsMs: at(iso),
  project: 'p',
  scanner: 's',
  model: 'm/n',
  reward: label === 'fixed' ? 1 : label === 'rejected_fp' ? -0.7 : 0,
  ...(confidence === undefined ? {} : { scannerConfidence: confidence }),
});

describe('utcWeekStartMs', () => {
  test.each([
    ['2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z'], // a Monday at midnight is its own week start
    ['2026-11-22T23:59:59.999Z', '2026-11-16T00:00:00.000Z'], // Sunday night belongs to the week before
    ['2026-11-25T12:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['1970-01-01T00:00:00.000Z', '1969-12-29T00:00:00.000Z'], // a Thursday
    ['1969-12-28T10:00:00.000Z', '1969-12-22T00:00:00.000Z'], // before the epoch
  ])('%s is in the week of %s', (time, monday) => {
    expect(new Date(utcWeekStartMs(at(time))).toISOString()).toBe(monday);
  });

  test('is a Monday at midnight, at most a week back', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 4e12 }), (ms) => {
        const start = utcWeekStartMs(ms);
        const d = new Date(start);
        return d.getUTCDay() === 1 && d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && start <= ms && ms - start < WEEK_MS;
      }),
    );
  });
});

describe('weeklyTriage', () => {
  const asOfMs = at('2026-11-25T12:00:00Z'); // a Wednesday
  const outcomes = [
    // week of 11-09: 3 findings, one rejected; confidences 0.9 (confirmed), 0.8 (refuted), 0.5 (confirmed)
    outcome('a', 'fixed', '2026-11-10T09:00:00Z', 0.9),
    outcome('b', 'rejected_fp', '2026-11-11T09:00:00Z', 0.8),
    outcome('c', 'accepted', '2026-11-15T23:59:59Z', 0.5),
    // week of 11-16: c is fixed (its final label that week), d is ignored without a confidence
    outcome('c', 'fixed', '2026-11-16T00:00:00Z'),
    outcome('d', 'ignored', '2026-11-18T09:00:00Z'),
    // week of 11-23: after asOf, left out
    outcome('e', 'rejected_fp', '2026-11-26T09:00:00Z', 0.9),
    // before the series' first week, left out
    outcome('f', 'rejected_fp', '2026-11-01T09:00:00Z', 0.9),
  ];

  test('each week: the findings labelled that week, false-positive rate, precision@k and calibration error', () => {
    const report = weeklyTriage(outcomes, { asOfMs, weeks: 3, k: 2 });
    expect(report).toEqual({
      as_of: '2026-11-25T12:00:00.000Z',
      k: 2,
      weeks: 3,
      series: [
        {
          week_start: '2026-11-09T00:00:00.000Z',
          week_end: '2026-11-16T00:00:00.000Z',
          outcomes: 3,
          findings: 3,
          false_positive_rate: 1 / 3,
          // top 2 by confidence: a (0.9, confirmed) and b (0.8, refuted)
          precision_at_k: 0.5,
          precision_k: 2,
          // bins 9, 8, 5: |0.9 − 1| + |0.8 − 0| + |0.5 − 1| = 1.4, over 3
          calibration_error: expect.closeTo(1.4 / 3, 12),
          avg_reward: expect.closeTo((1 - 0.7 + 0) / 3, 12),
        },
        {
          week_start: '2026-11-16T00:00:00.000Z',
          week_end: '2026-11-23T00:00:00.000Z',
          outcomes: 2,
          findings: 2,
          false_positive_rate: 0,
          precision_at_k: null,
          precision_k: 0,
          calibration_error: null,
          avg_reward: 0.5,
        },
        {
          week_start: '2026-11-23T00:00:00.000Z',
          week_end: '2026-11-30T00:00:00.000Z',
          outcomes: 0,
          findings: 0,
          false_positive_rate: null,
          precision_at_k: null,
          precision_k: 0,
          calibration_error: null,
          avg_reward: null,
        },
      ],
    });
  });

  test('the same for any input order', () => {
    const expected = JSON.stringify(weeklyTriage(outcomes, { asOfMs, weeks: 4, k: 20 }));
    fc.assert(fc.property(fc.shuffledSubarray(outcomes, { minLength: outcomes.length }), (shuffled) => JSON.stringify(weeklyTriage(shuffled, { asOfMs, weeks: 4, k: 20 })) === expected));
  });

  test('always exactly `weeks` consecutive weeks, the last holding asOf', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 1, max: MAX_WEEKS }), (ms, weeks) => {
        const { series } = weeklyTriage([], { asOfMs: ms, weeks, k: 1 });
        const last = series[series.length - 1];
        return series.length === weeks && Date.parse(last?.week_start ?? '') <= ms && ms < Date.parse(last?.week_end ?? '') && series.every((w, i) => i === 0 || w.week_start === series[i - 1]?.week_end);
      }),
    );
  });

  test.each([
    [{ weeks: 0, k: 1 }, 'weeks must be an integer from 1 to 52, got 0'],
    [{ weeks: 53, k: 1 }, 'weeks must be an integer from 1 to 52, got 53'],
    [{ weeks: 2.5, k: 1 }, 'weeks must be an integer from 1 to 52, got 2.5'],
    [{ weeks: 2, k: 0 }, 'k must be a positive integer, got 0'],
  ])('refuses %j', (options, message) => {
    expect(() => weeklyTriage([], { asOfMs, ...options })).toThrow(message);
  });

  test('refuses an invalid time', () => {
    expect(() => weeklyTriage([], { asOfMs: Number.NaN, weeks: 2, k: 1 })).toThrow('asOfMs must be a valid time');
  });
});
