import { describeGroup, type GroupKey } from './grouping';
import type { TextPart } from './scan-lesson-figures';
import { type GroupStats, type LabelCounts, statisticalSupport, wilsonInterval } from '../../shared/stats';

/** Seed 001 §4.3: the five kinds of lesson. */
export const SCAN_LESSON_CATEGORIES = [
  'signal-quality',
  'false-positive-pattern',
  'remediation-effectiveness',
  'repo-context-gap',
  'model-routing',
] as const;
export type ScanLessonCategory = (typeof SCAN_LESSON_CATEGORIES)[number];

/** A lesson before it is stored: text and a stated confidence, from the model or from statistics. */
export interface ScanLessonDraft {
  category: ScanLessonCategory;
  text: string;
  /** What the author (model) claims; statistics claim 1 and let the support decide. */
  statedConfidence: number;
  origin: 'model' | 'statistics';
  /** A model's lesson: its words with the figures bound to the statistics (`bindTextFigures`). */
  textParts?: TextPart[];
}

interface Proportion {
  successes: number;
  trials: number;
}

/**
 * Which observed rate a lesson of each category speaks about. The support of that rate (see
 * `statisticalSupport`) caps the lesson's confidence.
 */
export const SUPPORTING_RATE: Record<ScanLessonCategory, (c: LabelCounts, n: number) => Proportion> = {
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
export function scanLessonConfidence(draft: Pick<ScanLessonDraft, 'category' | 'statedConfidence'>, stats: GroupStats): number {
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

/** The days a statistics lesson names: by default its outcomes' first and last; the learner passes the lesson's window. */
export interface ScanLessonSpan {
  startMs: number;
  endMs: number;
}

/** The categories statistics write lessons in, in the order they are drafted (model-routing is the model's alone). */
const STATISTICAL_CATEGORIES = ['false-positive-pattern', 'signal-quality', 'remediation-effectiveness', 'repo-context-gap'] as const;

/** Which sentence each of those speaks with, and the floor its rate's 95% lower bound must clear (with at least `minTrials`) to be said at all. */
const STATISTICAL_SENTENCES: Record<(typeof STATISTICAL_CATEGORIES)[number], { floor: number; minTrials: number; say: (p: Proportion, what: string, clause: string) => string }> = {
  'false-positive-pattern': {
    floor: 0.25,
    minTrials: 1,
    say: (p, what, clause) =>
      `${pct(p.successes / p.trials)} of ${what} were rejected as false positives (${clause}); treat such findings with scepticism and look for corroborating evidence before reporting them.`,
  },
  'signal-quality': {
    floor: 0.5,
    minTrials: 1,
    say: (p, what, clause) => `${pct(p.successes / p.trials)} of ${what} were fixed or accepted (${clause}); this is a reliable signal worth reporting with confidence.`,
  },
  'remediation-effectiveness': {
    floor: 0.15,
    minTrials: 5,
    say: (p, what, clause) => `${p.successes} of ${p.trials} fixes of ${what} were reopened (${clause}); suggested remediations here often do not hold and need a more complete fix.`,
  },
  'repo-context-gap': {
    floor: 0.4,
    minTrials: 1,
    say: (p, what, clause) =>
      `${pct(p.successes / p.trials)} of ${what} were ignored, neither fixed nor disputed (${clause}); they may lack the repository context that would make them actionable.`,
  },
};

/**
 * The sentence a statistics lesson of `category` says about `stats`, whatever its rate: every
 * figure in it (rate, count of trials, 95% Wilson interval, first and last day of `span`) comes
 * from `stats` and `span`. Reinforcement re-renders a lesson with this from its whole evidence and
 * its widened window, so its text never disagrees with its metadata. Null for a category that has
 * no statistics sentence (model-routing is only written by a model) or a rate with no trials.
 */
export function renderStatisticalScanLesson(category: ScanLessonCategory, key: GroupKey, stats: GroupStats, span: ScanLessonSpan = { startMs: stats.firstTsMs, endMs: stats.lastTsMs }): string | null {
  if (category === 'model-routing') return null;
  const p = SUPPORTING_RATE[category](stats.labelCounts, stats.n);
  if (p.trials === 0) return null;
  const what = key.category ? `${key.category} findings` : 'findings';
  return `For ${describeGroup(key)}: ${STATISTICAL_SENTENCES[category].say(p, what, `${rateClause(p)}, ${day(span.startMs)} to ${day(span.endMs)}`)}`;
}

/**
 * Lessons written from statistics alone: what the plugin learns when no language model is
 * registered (and what it falls back to when the model's answer is unusable). Each is a plain,
 * grounded sentence about one group (`renderStatisticalScanLesson`): a rate, its count and its
 * interval, over the span. A pattern is reported only when its 95% lower bound clears a floor
 * (false positives 25%, fixed-or-accepted 50%, reopened 15% of at least 5 fixes, ignored 40%), so
 * noise says nothing.
 */
export function draftStatisticalScanLessons(key: GroupKey, stats: GroupStats, span?: ScanLessonSpan): ScanLessonDraft[] {
  const drafts: ScanLessonDraft[] = [];
  for (const category of STATISTICAL_CATEGORIES) {
    const sentence = STATISTICAL_SENTENCES[category];
    const p = SUPPORTING_RATE[category](stats.labelCounts, stats.n);
    if (p.trials < sentence.minTrials || !clearlyAtLeast(p, sentence.floor)) continue;
    const text = renderStatisticalScanLesson(category, key, stats, span);
    if (text !== null) drafts.push({ category, text, statedConfidence: 1, origin: 'statistics' });
  }
  return drafts;
}
