import type { LearningEvent } from './types';

/** Whether the person (or the outcome) approved of what the agent did. */
export const POLARITIES = ['positive', 'negative', 'neutral'] as const;
export type Polarity = (typeof POLARITIES)[number];

/** An event before it has an id (the caller derives the id from the content). */
export type EventDraft = Omit<LearningEvent, 'id'> & { polarity: Polarity };

/** Longest problem or solution text kept in a draft; the person's exact words are kept whole in `feedback`. */
export const MAX_DRAFT_TEXT_CHARS = 300;

/** Text on one line (runs of white space become one space), cut to `MAX_DRAFT_TEXT_CHARS` with an ellipsis. */
export function draftText(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_DRAFT_TEXT_CHARS ? `${one.slice(0, MAX_DRAFT_TEXT_CHARS - 1)}…` : one;
}
