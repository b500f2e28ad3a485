import { z } from 'zod';
import type { ScanLessonCategory } from './scan-lesson';
import { OUTCOME_LABELS } from './outcome';
import { type LabelCounts, wilsonInterval } from '../../shared/stats';

/** A statistic of a lesson's evidence that a figure in its text can stand for. */
export const QUANTITIES = ['n', ...OUTCOME_LABELS, 'fixed_or_accepted', 'fixed_or_reopened'] as const;
export type Quantity = (typeof QUANTITIES)[number];
type Ratio = readonly [Quantity, Quantity];

/** A figure bound to the statistic it came from: a count, a share in percent, or a bound of the share's 95% Wilson interval. */
export type Figure = { count: Quantity } | { percent: Ratio; decimals: number; bound?: 'low' | 'high' };
/** A lesson's text as words and figures; rendering it from statistics puts their current values in. */
export type TextPart = string | Figure;

const quantity = z.enum(QUANTITIES);
export const textPartSchema: z.ZodType<TextPart> = z.union([
  z.string(),
  z.object({ count: quantity }).strict(),
  z.object({ percent: z.tuple([quantity, quantity]), decimals: z.number().int().min(0).max(3), bound: z.enum(['low', 'high']).optional() }).strict(),
]);

/** The statistics a figure is rendered from. */
export interface FigureStats {
  n: number;
  labelCounts: LabelCounts;
}

export function quantityValue(q: Quantity, s: FigureStats): number {
  const c = s.labelCounts;
  if (q === 'n') return s.n;
  if (q === 'fixed_or_accepted') return c.fixed + c.accepted;
  if (q === 'fixed_or_reopened') return c.fixed + c.reopened;
  return c[q];
}

/** The rate each category speaks about (as `SUPPORTING_RATE`), by name: the first reading of an ambiguous figure. */
const SUPPORTING: Record<ScanLessonCategory, Ratio> = {
  'signal-quality': ['fixed_or_accepted', 'n'],
  'false-positive-pattern': ['rejected_fp', 'n'],
  'remediation-effectiveness': ['reopened', 'fixed_or_reopened'],
  'repo-context-gap': ['ignored', 'n'],
  'model-routing': ['fixed_or_accepted', 'n'],
};

/**
 * `100 · num / den` with `decimals` decimals (0 when `den` is 0); with `bound`, that end of the
 * share's 95% Wilson interval instead.
 */
function percentOf(f: Extract<Figure, { percent: Ratio }>, s: FigureStats): string {
  const [num, den] = [quantityValue(f.percent[0], s), quantityValue(f.percent[1], s)];
  // 100·num/den, not 100·(num/den): 46/80 is 57.5 exactly, where 100 × 0.575 is 57.49999… and rounds down.
  const percent = f.bound ? 100 * wilsonInterval(num, den)[f.bound] : den > 0 ? (100 * num) / den : 0;
  return percent.toFixed(f.decimals);
}

/** The text the parts say with the figures of `s`. */
export function renderTextParts(parts: readonly TextPart[], s: FigureStats): string {
  return parts.map((p) => (typeof p === 'string' ? p : 'count' in p ? String(quantityValue(p.count, s)) : percentOf(p, s))).join('');
}

/**
 * Figures in a lesson's text, in the order tried at each position: "X of Y" / "X out of Y", "n=N",
 * a confidence interval "CI A-B%", a percentage (not the "95%" of "95% CI"), a bare integer (not
 * part of a name, version or id such as CWE-79 or 2.17).
 */
const FIGURE = /(?<![\w.-])(?<x>\d+)(?<of>\s+(?:out\s+of|of)\s+)(?<y>\d+)(?!\w|\.\d)|\b(?<nIs>n\s*=\s*)(?<n>\d+)(?!\w|\.\d)|(?<ciIs>\bCI\s+)(?<lo>\d+(?:\.\d+)?)%?\s*[-–]\s*(?<hi>\d+(?:\.\d+)?)%|(?<![\w.-])(?<pct>\d+(?:\.\d+)?)(?=\s?%)(?!\s?%\s*(?:CI|confidence))|(?<![\w.-])(?<int>\d+)(?![\w%-]|\.\d)/gi;

const decimalsOf = (written: string) => written.split('.')[1]?.length ?? 0;
const sameFigure = (written: string, rendered: string) => Number(written) === Number(rendered);
const dedupe = <T>(xs: readonly T[]) => [...new Set(xs)];

/**
 * Binds the figures a model wrote to the statistics it was given (`s`, the window it saw), so a
 * reinforcement can re-render them from the grown evidence: each count, "X of Y", "n=N",
 * percentage and "CI A-B%" is matched to the statistic with that value, the category's own rate
 * first, then n, the label counts and the combined counts. `unbound` lists the statistical
 * figures (counts of a kind, shares, intervals) that match no statistic: numbers the model did not
 * get from the data. A bare integer that matches nothing (a CWE, a port) stays as written.
 */
export function bindTextFigures(text: string, category: ScanLessonCategory, s: FigureStats): { parts: TextPart[]; unbound: string[] } {
  const [rateNum, rateDen] = SUPPORTING[category];
  const counts = dedupe<Quantity>([rateNum, rateDen, 'n', ...OUTCOME_LABELS, 'fixed_or_accepted', 'fixed_or_reopened']);
  const ratios: Ratio[] = [SUPPORTING[category], ...OUTCOME_LABELS.map((l): Ratio => [l, 'n']), ['fixed_or_accepted', 'n'], ['reopened', 'fixed_or_reopened']];
  const countOf = (written: string, among: readonly Quantity[]) => among.find((q) => quantityValue(q, s) === Number(written));
  const percentFor = (written: string, bound?: 'low' | 'high'): Figure | undefined => {
    const decimals = decimalsOf(written);
    const candidates = bound ? [['rejected_fp', 'n'] as Ratio] : ratios;
    const ratio = candidates.find((r) => sameFigure(written, percentOf({ percent: r, decimals, ...(bound ? { bound } : {}) }, s)));
    return ratio ? { percent: ratio, decimals, ...(bound ? { bound } : {}) } : undefined;
  };
  const parts: TextPart[] = [];
  const unbound: string[] = [];
  let at = 0;
  for (const m of text.matchAll(FIGURE)) {
    const g = m.groups ?? {};
    const found = m[0];
    let bound: TextPart[] | undefined;
    if (g.x !== undefined && g.y !== undefined) {
      const den = countOf(g.y, dedupe<Quantity>([rateDen, 'n', 'fixed_or_reopened']));
      const num = den ? countOf(g.x, counts.filter((q) => q !== den)) : undefined;
      bound = den && num ? [{ count: num }, g.of as string, { count: den }] : undefined;
    } else if (g.n !== undefined) {
      bound = quantityValue('n', s) === Number(g.n) ? [g.nIs as string, { count: 'n' }] : undefined;
    } else if (g.lo !== undefined && g.hi !== undefined) {
      const [lo, hi] = [percentFor(g.lo, 'low'), percentFor(g.hi, 'high')];
      const between = found.slice((g.ciIs as string).length + g.lo.length, found.length - g.hi.length - 1);
      bound = lo && hi ? [g.ciIs as string, lo, between, hi, '%'] : undefined;
    } else if (g.pct !== undefined) {
      const figure = percentFor(g.pct);
      bound = figure ? [figure] : undefined;
    } else if (g.int !== undefined) {
      const q = countOf(g.int, counts);
      bound = q ? [{ count: q }] : [found];
    }
    if (!bound) unbound.push(found);
    parts.push(text.slice(at, m.index), ...(bound ?? [found]));
    at = (m.index ?? 0) + found.length;
  }
  parts.push(text.slice(at));
  return { parts: mergeStrings(parts), unbound };
}

function mergeStrings(parts: readonly TextPart[]): TextPart[] {
  const merged: TextPart[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (typeof p === 'string' && typeof last === 'string') merged[merged.length - 1] = last + p;
    else if (p !== '') merged.push(p);
  }
  return merged;
}
