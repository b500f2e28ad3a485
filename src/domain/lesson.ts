import { describeGroup, type GroupKey } from './grouping';
import { type GroupStats, type LabelCounts, statisticalSupport, wilsonInterval } from './stats';

/** Seed 001 §4.3: the five kinds of lesson. */
export const LESSON_CATEGORIES = [
  'signal-quality',
  'false-positive-pattern',
  'remediation-effectiveness',
  'repo-context-gap',
  'model-routing',
] as const;
export type LessonCategory = (typeof LESSON_CATEGORIES)[number];

/** A lesson before it is stored: text and a stated confidence, from the model or from statistics. */
export interface LessonDraft {
  category: LessonCategory;
  text: string;
  /** What the author (model) claims; statistics claim 1 and let the support decide. */
  statedConfidence: number;
  origin: 'model' | 'statistics';
}

interface Proportion {
  successes: number;
  trials: number;
}

/**
 * Which observed rate a lesson of each category speaks about. The support of that rate (see
 * `statisticalSupport`) caps the lesson's confidence.
 */
export const SUPPORTING_RATE: Record<LessonCategory, (c: LabelCounts, n: number) => Proportion> = {
  'signal-quality': (c, n) => ({ successes: c.fixed + c.accepted, trials: n }),
  'false-positive-pattern': (c, n) => ({ successes: c.rejected_fp, trials: n }),
  'remediation-effectiveness': (c) => ({ successes: c.reopened, trials: c.fixed + c.reopened }),
  'repo-context-gap': (c, n) => ({ successes: c.ignored, trials: n }),
  'model-routing': (c, n) => ({ successes: c.fixed + c.accepted, trials: n }),
};

/**
 * The confidence a lesson is stored with: `min(stated, support)`, where support is one minus
 * the width of the 95% Wilson interval of the rate its category speaks about. A lesson can never
 * claim more certainty than its sample allows, whatever the model said.
 */
export function lessonConfidence(draft: Pick<LessonDraft, 'category' | 'statedConfidence'>, stats: GroupStats): number {
  const { successes, trials } = SUPPORTING_RATE[draft.category](stats.labelCounts, stats.n);
  return Math.min(draft.statedConfidence, statisticalSupport(successes, trials));
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A rate is "clearly at least `floor`" when its Wilson lower bound reaches it. */
function clearlyAtLeast(p: Proportion, floor: number): boolean {
  return p.trials > 0 && wilsonInterval(p.successes, p.trials).low >= floor;
}

function rateClause(p: Proportion): string {
  const ci = wilsonInterval(p.successes, p.trials);
  return `${p.successes} of ${p.trials}, 95% CI ${pct(ci.low)}-${pct(ci.high)}`;
}

/**
 * Lessons written from statistics alone: what the plugin learns when no language model is
 * registered (and what it falls back to when the model's answer is unusable). Each is a plain,
 * grounded sentence about one group: a rate, its count and its interval, over the window.
 * A pattern is reported only when its 95% lower bound clears a floor, so noise says nothing.
 */
export function draftStatisticalLessons(key: GroupKey, stats: GroupStats): LessonDraft[] {
  const scope = describeGroup(key);
  const what = key.category ? `${key.category} findings` : 'findings';
  const span = `${day(stats.firstTsMs)} to ${day(stats.lastTsMs)}`;
  const c = stats.labelCounts;
  const drafts: LessonDraft[] = [];
  const push = (category: LessonCategory, text: string) => drafts.push({ category, text, statedConfidence: 1, origin: 'statistics' });

  const fp = SUPPORTING_RATE['false-positive-pattern'](c, stats.n);
  if (clearlyAtLeast(fp, 0.25)) {
    push(
      'false-positive-pattern',
      `For ${scope}: ${pct(fp.successes / fp.trials)} of ${what} were rejected as false positives (${rateClause(fp)}, ${span}); treat such findings with scepticism and look for corroborating evidence before reporting them.`,
    );
  }
  const good = SUPPORTING_RATE['signal-quality'](c, stats.n);
  if (clearlyAtLeast(good, 0.5)) {
    push(
      'signal-quality',
      `For ${scope}: ${pct(good.successes / good.trials)} of ${what} were fixed or accepted (${rateClause(good)}, ${span}); this is a reliable signal worth reporting with confidence.`,
    );
  }
  const reopen = SUPPORTING_RATE['remediation-effectiveness'](c, stats.n);
  if (reopen.trials >= 5 && clearlyAtLeast(reopen, 0.15)) {
    push(
      'remediation-effectiveness',
      `For ${scope}: ${reopen.successes} of ${reopen.trials} fixes of ${what} were reopened (${rateClause(reopen)}, ${span}); suggested remediations here often do not hold and need a more complete fix.`,
    );
  }
  const ignored = SUPPORTING_RATE['repo-context-gap'](c, stats.n);
  if (clearlyAtLeast(ignored, 0.4)) {
    push(
      'repo-context-gap',
      `For ${scope}: ${pct(ignored.successes / ignored.trials)} of ${what} were ignored, neither fixed nor disputed (${rateClause(ignored)}, ${span}); they may lack the repository context that would make them actionable.`,
    );
  }
  return drafts;
}
