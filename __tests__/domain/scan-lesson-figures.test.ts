import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { bindTextFigures, renderTextParts } from '../../src/scan/model/scan-lesson-figures';
import { emptyLabelCounts, type LabelCounts } from '../../src/shared/stats';

const stats = (counts: Partial<LabelCounts>) => {
  const labelCounts = { ...emptyLabelCounts(), ...counts };
  return { n: Object.values(labelCounts).reduce((a, b) => a + b, 0), labelCounts };
};
const WINDOW = stats({ rejected_fp: 25, fixed: 5, ignored: 4 });
const GROWN = stats({ rejected_fp: 30, fixed: 6, ignored: 4 });

describe('bindTextFigures', () => {
  test('counts, "X of Y", n=, percentages and the interval are bound; rendering with the same statistics gives the text back', () => {
    const text = 'Only 5 were fixed: 25 of 34 (73.5%) were false positives, n=34 (95% CI 56.9-85.4%); see CWE-79.';
    const { parts, unbound } = bindTextFigures(text, 'false-positive-pattern', WINDOW);
    expect(unbound).toEqual([]);
    expect(renderTextParts(parts, WINDOW)).toBe(text);
    expect(renderTextParts(parts, GROWN)).toBe('Only 6 were fixed: 30 of 40 (75.0%) were false positives, n=40 (95% CI 59.8-85.8%); see CWE-79.');
  });

  test('the category\'s own rate is the first reading of an ambiguous figure', () => {
    const s = stats({ rejected_fp: 5, fixed: 5 });
    expect(bindTextFigures('5 of 10 were fixed', 'signal-quality', s).parts[0]).toEqual({ count: 'fixed_or_accepted' });
    expect(bindTextFigures('5 of 10 were rejected', 'false-positive-pattern', s).parts[0]).toEqual({ count: 'rejected_fp' });
  });

  test.each([['14 of 19 were false positives'], ['about 60% were false positives'], ['n=19 findings'], ['95% CI 10-20%']])('"%s" quotes a figure the statistics do not have: unbound', (text) => {
    expect(bindTextFigures(text, 'false-positive-pattern', WINDOW).unbound).toHaveLength(1);
  });

  test('words without figures, and numbers that are names (a CWE, a version, an unmatched integer), stay as written', () => {
    for (const text of ['Corroborate such findings before reporting them.', 'CWE-89 in log4j 2.17 on port 8443.']) {
      expect(bindTextFigures(text, 'false-positive-pattern', WINDOW)).toEqual({ parts: [text], unbound: [] });
    }
  });

  test('property: a text rendered from statistics binds back and renders identically from them', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(50), (rejected, fixed, ignored) => {
        const s = stats({ rejected_fp: rejected + 1, fixed, ignored });
        const pct = Math.round((100 * s.labelCounts.rejected_fp) / s.n);
        const text = `${s.labelCounts.rejected_fp} of ${s.n} (${pct}%) were rejected, n=${s.n}.`;
        const { parts, unbound } = bindTextFigures(text, 'false-positive-pattern', s);
        expect(unbound).toEqual([]);
        expect(renderTextParts(parts, s)).toBe(text);
      }),
    );
  });
});
