import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { DAY_MS, type GroupKey } from '../../src/scan/model/grouping';
import { draftStatisticalScanLessons, SCAN_LESSON_CATEGORIES, type ScanLessonCategory, scanLessonConfidence, SUPPORTING_RATE } from '../../src/scan/model/scan-lesson';
import { OUTCOME_LABELS, type OutcomeLabel } from '../../src/scan/model/outcome';
import { REWARD_BY_LABEL } from '../../src/scan/model/reward';
import { type GroupStats, type LabelCounts, statisticalSupport, summarizeOutcomes, wilsonInterval } from '../../src/shared/stats';

const KEY: GroupKey = { project: 'payments', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' };
const START = Date.parse('2026-11-01T00:00:00Z');

/** Stats of a group with these label counts, one outcome every hour from 2026-11-01. */
function statsOf(counts: Partial<LabelCounts>): GroupStats {
  const labels = OUTCOME_LABELS.flatMap((l) => Array<OutcomeLabel>(counts[l] ?? 0).fill(l));
  return summarizeOutcomes(labels.map((label, i) => ({ label, reward: REWARD_BY_LABEL[label], tsMs: START + i * 3_600_000 })));
}

function rateOf(category: ScanLessonCategory, stats: GroupStats): string {
  const rate = SUPPORTING_RATE[category](stats.labelCounts, stats.n);
  return `${rate.successes} of ${rate.trials}`;
}

describe('scanLessonConfidence', () => {
  // Supports are 1 - width of the 95% Wilson interval, computed independently.
  const table: [string, ScanLessonCategory, Partial<LabelCounts>, number, number][] = [
    ['FP 30/40, stated 1 => support', 'false-positive-pattern', { rejected_fp: 30, fixed: 10 }, 1, 0.7399],
    ['FP 30/40, stated 0.6 => stated', 'false-positive-pattern', { rejected_fp: 30, fixed: 10 }, 0.6, 0.6],
    ['signal 36/40 => support', 'signal-quality', { fixed: 20, accepted: 16, ignored: 4 }, 0.95, 0.8091],
    ['model-routing reads the same rate as signal-quality', 'model-routing', { fixed: 20, accepted: 16, ignored: 4 }, 0.95, 0.8091],
    ['repo-context-gap 10/40 ignored', 'repo-context-gap', { ignored: 10, fixed: 30 }, 1, 0.7399],
    ['remediation over fixes only: 2 of 4 reopened', 'remediation-effectiveness', { fixed: 2, reopened: 2, ignored: 36 }, 1, 0.3001],
    ['remediation with no fixes => 0', 'remediation-effectiveness', { ignored: 40 }, 0.9, 0],
  ];
  test.each(table)('%s', (_name, category, counts, stated, expected) => {
    expect(scanLessonConfidence({ category, statedConfidence: stated }, statsOf(counts))).toBeCloseTo(expected, 4);
  });

  test('property: min(stated, support), never above the support', () => {
    const counts = fc.record({
      fixed: fc.nat(40),
      accepted: fc.nat(40),
      ignored: fc.nat(40),
      rejected_fp: fc.nat(40),
      reopened: fc.nat(40),
    });
    fc.assert(
      fc.property(counts, fc.constantFrom(...SCAN_LESSON_CATEGORIES), fc.double({ min: 0, max: 1, noNaN: true }), (c, category, stated) => {
        fc.pre(Object.values(c).some((v) => v > 0));
        const stats = statsOf(c);
        const rate = SUPPORTING_RATE[category](stats.labelCounts, stats.n);
        const support = statisticalSupport(rate.successes, rate.trials);
        const confidence = scanLessonConfidence({ category, statedConfidence: stated }, stats);
        expect(confidence).toBe(Math.min(stated, support));
        expect(confidence).toBeLessThanOrEqual(support);
        expect(confidence).toBeLessThanOrEqual(stated);
      }),
    );
  });
});

describe('draftStatisticalScanLessons', () => {
  test('a 75% false-positive group of 40 yields one false-positive-pattern lesson with its count', () => {
    const drafts = draftStatisticalScanLessons(KEY, statsOf({ rejected_fp: 30, fixed: 10 }));
    expect(drafts.map((d) => d.category)).toEqual(['false-positive-pattern']);
    const [fp] = drafts;
    expect(fp).toMatchObject({ statedConfidence: 1, origin: 'statistics' });
    // Wilson 30/40 = [0.598, 0.858]; the span is the first and last day of the group.
    expect(fp?.text).toBe(
      'For semgrep with openai/gpt-4o on project payments, category xss: 75% of xss findings were rejected as false positives ' +
        '(30 of 40, 95% CI 60%-86%, 2026-11-01 to 2026-11-02); treat such findings with scepticism and look for corroborating evidence before reporting them.',
    );
  });

  test('a mostly fixed group yields signal-quality', () => {
    const drafts = draftStatisticalScanLessons(KEY, statsOf({ fixed: 36, ignored: 4 }));
    expect(drafts.map((d) => d.category)).toEqual(['signal-quality']);
    expect(drafts[0]?.text).toContain('90% of xss findings were fixed or accepted (36 of 40, 95% CI 77%-96%');
  });

  test('without a category the text speaks of "findings"', () => {
    const drafts = draftStatisticalScanLessons({ ...KEY, category: null }, statsOf({ fixed: 36, ignored: 4 }));
    expect(drafts[0]?.text).toStartWith('For semgrep with openai/gpt-4o on project payments: 90% of findings were fixed or accepted');
  });

  test('many reopened fixes yield remediation-effectiveness', () => {
    const drafts = draftStatisticalScanLessons(KEY, statsOf({ fixed: 6, reopened: 4 }));
    expect(drafts.map((d) => d.category)).toEqual(['remediation-effectiveness']);
    // Wilson 4/10 = [0.168, 0.687]
    expect(drafts[0]?.text).toContain('4 of 10 fixes of xss findings were reopened (4 of 10, 95% CI 17%-69%');
  });

  test('mostly ignored findings yield repo-context-gap', () => {
    const drafts = draftStatisticalScanLessons(KEY, statsOf({ ignored: 30, fixed: 10 }));
    expect(drafts.map((d) => d.category)).toEqual(['repo-context-gap']);
    expect(drafts[0]?.text).toContain('75% of xss findings were ignored');
  });

  const silent: [string, Partial<LabelCounts>][] = [
    // fp 5/20 low 0.112 < 0.25; good 10/20 low 0.299 < 0.5; ignored 5/20 low 0.112 < 0.4; reopen 0/5
    ['pure noise', { fixed: 5, accepted: 5, ignored: 5, rejected_fp: 5 }],
    // 1/1 rejected: low 0.207 < 0.25
    ['one false positive', { rejected_fp: 1 }],
    ['two mixed outcomes', { rejected_fp: 1, fixed: 1 }],
    // 2 of 4 fixes reopened: low 0.1500 clears 0.15, but fewer than 5 fixes
    ['too few fixes to judge remediation', { fixed: 2, reopened: 2, accepted: 1 }],
  ];
  test.each(silent)('%s yields no lesson', (_name, counts) => {
    expect(draftStatisticalScanLessons(KEY, statsOf(counts))).toEqual([]);
  });

  test('property: a lesson appears exactly when its 95% lower bound clears its floor, and cites its count', () => {
    const floors: [ScanLessonCategory, number, number][] = [
      // [category, floor on the Wilson lower bound, fewest trials]
      ['false-positive-pattern', 0.25, 1],
      ['signal-quality', 0.5, 1],
      ['remediation-effectiveness', 0.15, 5],
      ['repo-context-gap', 0.4, 1],
    ];
    const counts = fc.record({ fixed: fc.nat(30), accepted: fc.nat(30), ignored: fc.nat(30), rejected_fp: fc.nat(30), reopened: fc.nat(30) });
    fc.assert(
      fc.property(counts, (c) => {
        fc.pre(Object.values(c).some((v) => v > 0));
        const stats = statsOf(c);
        const expected = floors
          .filter(([category, floor, fewest]) => {
            const rate = SUPPORTING_RATE[category](stats.labelCounts, stats.n);
            return rate.trials >= fewest && wilsonInterval(rate.successes, rate.trials).low >= floor;
          })
          .map(([category]) => category);
        const drafts = draftStatisticalScanLessons(KEY, stats);
        expect(drafts.map((d) => d.category)).toEqual(expected);
        expect(drafts.map((d) => d.text.includes(`${rateOf(d.category, stats)}, 95% CI`))).toEqual(expected.map(() => true));
      }),
    );
  });

  test('the span covers first to last day', () => {
    const stats = { ...statsOf({ rejected_fp: 30, fixed: 10 }), firstTsMs: START, lastTsMs: START + 6 * DAY_MS };
    expect(draftStatisticalScanLessons(KEY, stats)[0]?.text).toContain('2026-11-01 to 2026-11-07');
  });
});
