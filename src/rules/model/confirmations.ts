import { isoDay } from './dates';
import type { LearningEvent, RuleLesson } from './types';

/**
 * What counts as a confirmation of a lesson. Repetition is not confirmation: one person saying
 * the same thing three times in an afternoon is one confirmation, so promotion needs distinct
 * people or distinct days. Events from the operator (HTTP, CLI, imports) and from the agent's own
 * work carry no teacher; they count one each (`RuleLesson.eventConfirmations`), as they did before
 * people were told apart.
 */

/** Prefix of the key lessons stored before `eventConfirmations` kept for an event without a teacher. */
const EVENT_KEY_PREFIX = 'event:';

/**
 * The confirmation a person's event gives its lesson: `<teacher entity id>@<YYYY-MM-DD>` (the UTC
 * day of the event's time); null for an event without a teacher, which counts in `eventConfirmations`.
 */
export function personConfirmationKey(event: Pick<LearningEvent, 'tsMs' | 'teacher'>): string | null {
  return event.teacher ? `${event.teacher.entityId}@${isoDay(event.tsMs)}` : null;
}

/** The trusted confirmations promotion counts: trusted people's (person, day) keys and events without a teacher. */
export function trustedConfirmationCount(lesson: Pick<RuleLesson, 'trustedConfirmations' | 'eventConfirmations'>): number {
  return lesson.trustedConfirmations.length + lesson.eventConfirmations;
}

/**
 * A lesson's trusted confirmations as stored before events without a teacher were counted: its
 * `event:<id>` keys become `eventConfirmations`; with no list at all (stored before people were
 * told apart), each of its events counted one.
 */
export function legacyTrustedConfirmations(keys: readonly string[] | undefined, eventCount: number): Pick<RuleLesson, 'trustedConfirmations' | 'eventConfirmations'> {
  if (keys === undefined) return { trustedConfirmations: [], eventConfirmations: eventCount };
  const people = keys.filter(isPersonKey);
  return { trustedConfirmations: people, eventConfirmations: keys.length - people.length };
}

/** Whether the event counts toward promotion: taught by a trusted person, or by no person at all. */
export function isTrustedEvidence(event: Pick<LearningEvent, 'teacher'>): boolean {
  return event.teacher?.trusted ?? true;
}

/** Whether a confirmation key names a person (and a day) rather than an event. */
export function isPersonKey(key: string): boolean {
  return !key.startsWith(EVENT_KEY_PREFIX);
}

/** Whether a person taught any of the lesson's events (trusted or not): such a lesson is shown as a candidate until promoted. */
export function taughtByPerson(lesson: Pick<RuleLesson, 'trustedConfirmations' | 'untrustedConfirmations'>): boolean {
  return lesson.untrustedConfirmations.length > 0 || lesson.trustedConfirmations.length > 0;
}

/** The distinct people behind a list of confirmation keys. */
export function peopleOf(keys: readonly string[]): number {
  return new Set(keys.filter(isPersonKey).map((k) => k.slice(0, k.lastIndexOf('@')))).size;
}

/** Whether an event may join a lesson: an event from a trusted source never joins a lesson worded by someone who may not teach. */
export function mayJoin(event: Pick<LearningEvent, 'teacher'>, lesson: { authorTrusted?: boolean }): boolean {
  return !isTrustedEvidence(event) || lesson.authorTrusted !== false;
}
