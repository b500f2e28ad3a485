import type { LearningEvent } from './types';

/**
 * Whether a feedback event praises or corrects. No model: a fixed word table, so it is the same
 * on every run and explainable. Only the human's words count (`feedback`, else `problem`).
 */
export type FeedbackPolarity = 'positive' | 'negative' | 'unknown';

/** Tags that state the polarity outright; they win over the words. */
export const POLARITY_BY_TAG: ReadonlyMap<string, Exclude<FeedbackPolarity, 'unknown'>> = new Map([
  ['positive', 'positive'],
  ['praise', 'positive'],
  ['negative', 'negative'],
  ['complaint', 'negative'],
  ['correction', 'negative'],
]);

export const POSITIVE_WORDS: ReadonlySet<string> = new Set([
  'good', 'great', 'thanks', 'thank', 'perfect', 'correct', 'nice', 'excellent', 'works', 'worked',
  'love', 'exactly', 'yes', 'awesome', 'helpful', 'right', 'well', 'better',
]);

export const NEGATIVE_WORDS: ReadonlySet<string> = new Set([
  'wrong', 'bad', 'no', 'not', "don't", 'dont', 'never', 'stop', 'broken', 'broke', 'fail', 'failed',
  'annoying', 'incorrect', 'mistake', 'worse', 'hate', "didn't", "doesn't", "isn't", "shouldn't",
]);

/**
 * Polarity of an event's feedback: a tag of `POLARITY_BY_TAG` decides (the first such tag in
 * sorted order); otherwise count the words of `feedback` (or `problem` when there is no quote)
 * found in `POSITIVE_WORDS` (p) and `NEGATIVE_WORDS` (n): positive when p > n, negative when
 * n > p, unknown on a tie (including no cue at all). Any event type can be asked; only feedback
 * events are counted as feedback by the callers.
 */
export function feedbackPolarity(event: Pick<LearningEvent, 'tags' | 'feedback' | 'problem'>): FeedbackPolarity {
  for (const tag of event.tags) {
    const byTag = POLARITY_BY_TAG.get(tag);
    if (byTag !== undefined) return byTag;
  }
  const words = (event.feedback ?? event.problem).toLowerCase().replace(/’/g, "'").match(/[a-z']+/g) ?? [];
  let positive = 0;
  let negative = 0;
  for (const word of words) {
    if (POSITIVE_WORDS.has(word)) positive++;
    if (NEGATIVE_WORDS.has(word)) negative++;
  }
  if (positive > negative) return 'positive';
  if (negative > positive) return 'negative';
  return 'unknown';
}
