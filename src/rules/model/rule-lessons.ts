import { clipText } from '../../shared/prompt-text';
import { isTrustedEvidence, legacyTrustedConfirmations, mayJoin, personConfirmationKey, trustedConfirmationCount } from './confirmations';
import { feedbackPolarity } from './feedback';
import { EVENT_TYPES, type EventType, type EvidenceLevel, type LearningEvent, type RuleLesson } from './types';
import { cosineSimilarity } from '../../shared/similarity';

/**
 * Seed 003: events cluster into lessons. An event joins the most similar lesson of its category
 * when that similarity reaches a threshold, otherwise it starts a new lesson. No model is needed:
 * the lesson's text is built from the event's own words (degraded mode); a model may rewrite it later.
 */

/** Default `chooseRuleLessonFor` threshold on `ruleLessonSimilarity`. */
export const DEFAULT_RULE_LESSON_MATCH_THRESHOLD = 0.5;
/** Weight of tag overlap in `ruleLessonSimilarity`. */
export const TAG_JACCARD_WEIGHT = 0.25;
/** A lesson is `proven` once this many distinct trusted confirmations stand behind it (or one trusted `proven` event). */
export const PROVEN_AFTER_EVENTS = 3;
/** The numeric `confidence_score` of a lesson, by its evidence level. */
export const RULE_LESSON_SCORE_BY_EVIDENCE: Record<EvidenceLevel, number> = { testing: 0.6, proven: 0.9 };
/**
 * A lesson keeps the ids of its newest this many events (`sourceEventIds`): its document, written
 * with every event it absorbs, stays the same size however many events a year brings. The full
 * provenance is the events' own `lessonId`.
 */
export const SOURCE_EVENT_IDS_KEPT = 100;
/**
 * A lesson keeps this many of the newest confirmations from people who may not teach: they never
 * count toward promotion, and anyone who can reach the agent, under as many names as they like, can
 * add them.
 */
export const UNTRUSTED_CONFIRMATIONS_KEPT = 100;
/** The lists and counts of a lesson read back (stored, or in the seed's format), as an earlier version may have written them. */
export interface ReadLessonEvidence {
  sourceEventIds: readonly string[];
  trustedConfirmations?: readonly string[];
  eventConfirmations?: number;
  untrustedConfirmations: readonly string[];
}

/**
 * A lesson's evidence as a lesson keeps it now: written before operator events were counted (no
 * `eventConfirmations`), its `event:<id>` keys are counted (`legacyTrustedConfirmations`); every
 * list is cut to its newest SOURCE_EVENT_IDS_KEPT ids and UNTRUSTED_CONFIRMATIONS_KEPT
 * confirmations of people who may not teach.
 */
export function evidenceAsKeptNow(read: ReadLessonEvidence): Pick<RuleLesson, 'sourceEventIds' | 'trustedConfirmations' | 'eventConfirmations' | 'untrustedConfirmations'> {
  return {
    ...(read.eventConfirmations === undefined
      ? legacyTrustedConfirmations(read.trustedConfirmations, read.sourceEventIds.length)
      : { trustedConfirmations: [...(read.trustedConfirmations ?? [])], eventConfirmations: read.eventConfirmations }),
    sourceEventIds: read.sourceEventIds.slice(-SOURCE_EVENT_IDS_KEPT),
    untrustedConfirmations: read.untrustedConfirmations.slice(-UNTRUSTED_CONFIRMATIONS_KEPT),
  };
}

/** At most this many tags per lesson (as per event). */
export const MAX_RULE_LESSON_TAGS = 20;
/** Longest lesson text field; longer text is cut with `…`. */
export const MAX_RULE_LESSON_TEXT_CHARS = 2000;

const TYPE_LABEL: Record<EventType, string> = {
  mistake: 'mistake',
  success: 'success',
  debug_session: 'debug session',
  feedback: 'feedback',
  discovery: 'discovery',
};

export function emptyEventTypeCounts(): Record<EventType, number> {
  return Object.fromEntries(EVENT_TYPES.map((t) => [t, 0])) as Record<EventType, number>;
}

/** `|a ∩ b| / |a ∪ b|`; 0 when both are empty. */
export function tagJaccard(a: readonly string[], b: readonly string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  let shared = 0;
  for (const tag of setA) if (setB.has(tag)) shared++;
  const union = setA.size + setB.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** The text whose vector stands for an event: `problem solution`. */
export function eventVectorText(event: Pick<LearningEvent, 'problem' | 'solution'>): string {
  return `${event.problem} ${event.solution}`.trim();
}

/** The text whose vector stands for a lesson: `trigger action` (for a new lesson: its first event's problem and solution). */
export function ruleLessonVectorText(lesson: Pick<RuleLesson, 'trigger' | 'action'>): string {
  return `${lesson.trigger} ${lesson.action}`.trim();
}

/**
 * How well an event fits a lesson: 0 across categories, else
 * `max(cos(eventVector, lessonVector), 0) + TAG_JACCARD_WEIGHT × jaccard(event.tags, lesson.tags)`,
 * in [0, 1.25]. Meaning decides; shared tags break near-ties and pull borderline events in.
 */
export function ruleLessonSimilarity(
  event: Pick<LearningEvent, 'category' | 'tags'>,
  eventVector: ArrayLike<number>,
  lesson: Pick<RuleLesson, 'category' | 'tags'>,
  lessonVector: ArrayLike<number>,
): number {
  if (event.category !== lesson.category) return 0;
  return Math.max(cosineSimilarity(eventVector, lessonVector), 0) + TAG_JACCARD_WEIGHT * tagJaccard(event.tags, lesson.tags);
}

export interface RuleLessonChoice {
  lessonId: string;
  score: number;
}

/**
 * The lesson an event joins: among candidates of the event's category that it `mayJoin` (an event
 * from a trusted source never joins a lesson worded by someone who may not teach), the highest
 * `ruleLessonSimilarity` that is ≥ `threshold` (equal scores: the smaller id); null when none reaches
 * it, and the caller starts `newRuleLesson`.
 */
export function chooseRuleLessonFor(
  event: Pick<LearningEvent, 'category' | 'tags' | 'teacher'>,
  eventVector: ArrayLike<number>,
  candidates: Iterable<{ lesson: Pick<RuleLesson, 'id' | 'category' | 'tags'> & Partial<Pick<RuleLesson, 'authorTrusted'>>; vector: ArrayLike<number> }>,
  threshold = DEFAULT_RULE_LESSON_MATCH_THRESHOLD,
): RuleLessonChoice | null {
  let best: RuleLessonChoice | null = null;
  for (const { lesson, vector } of candidates) {
    if (lesson.category !== event.category || !mayJoin(event, lesson)) continue;
    const score = ruleLessonSimilarity(event, eventVector, lesson, vector);
    if (score < threshold) continue;
    if (best === null || score > best.score || (score === best.score && lesson.id < best.lessonId)) best = { lessonId: lesson.id, score };
  }
  return best;
}

const clip = (text: string) => clipText(text, MAX_RULE_LESSON_TEXT_CHARS);

export type RuleLessonText = Pick<RuleLesson, 'lesson' | 'context' | 'trigger' | 'action'>;

/**
 * A lesson's text from one event, without a model:
 * - `trigger` = problem, or `<type> in <category>` when there is none;
 * - `action` = solution; without one, `Avoid: <problem>` for a mistake, else the problem;
 * - `lesson` = the action (the takeaway);
 * - `context` = `From a <type> in <category>: <problem>` plus ` Feedback: "<quote>"` when quoted.
 * Each is cut to `MAX_RULE_LESSON_TEXT_CHARS`.
 */
export function ruleLessonText(event: Pick<LearningEvent, 'type' | 'category' | 'problem' | 'solution' | 'feedback'>): RuleLessonText {
  const label = TYPE_LABEL[event.type];
  const trigger = event.problem || `${label} in ${event.category}`;
  const action = event.solution || (event.type === 'mistake' ? `Avoid: ${event.problem}` : event.problem);
  const context = `From a ${label} in ${event.category}${event.problem ? `: ${event.problem}` : ''}${event.feedback ? ` Feedback: "${event.feedback}"` : ''}`;
  return { lesson: clip(action), context: clip(context), trigger: clip(trigger), action: clip(action) };
}

/**
 * Whether an event confirms the lesson it joins: a success, or feedback whose polarity is
 * positive (`feedbackPolarity`). Mistakes, debug sessions and discoveries add support, not validation.
 */
export function confirmsRuleLesson(event: Pick<LearningEvent, 'type' | 'tags' | 'feedback' | 'problem'>): boolean {
  return event.type === 'success' || (event.type === 'feedback' && feedbackPolarity(event) === 'positive');
}

function mergeTags(kept: readonly string[], added: readonly string[]): string[] {
  const tags = new Set(kept);
  for (const tag of added) {
    if (tags.size >= MAX_RULE_LESSON_TAGS) break;
    tags.add(tag);
  }
  return [...tags].sort();
}

/**
 * The lesson after one more event of its category (an event among its `sourceEventIds` changes
 * nothing; the rule book gives each stored event once, so re-ingesting is idempotent; another
 * category is a programmer error and throws):
 * - `eventTypeCounts[type] + 1`, the event id appended to `sourceEventIds` (the newest
 *   `SOURCE_EVENT_IDS_KEPT` kept);
 * - a person's event: its `personConfirmationKey` added (once) to `trustedConfirmations` when
 *   `isTrustedEvidence(event)`, else to `untrustedConfirmations` (the newest
 *   `UNTRUSTED_CONFIRMATIONS_KEPT` kept); an event without a teacher:
 *   `eventConfirmations + 1`;
 * - tags: the lesson's, then the event's new ones while fewer than `MAX_RULE_LESSON_TAGS`, sorted;
 * - `confidence` becomes `proven` (and stays) on a trusted `proven` event or once
 *   `trustedConfirmationCount ≥ PROVEN_AFTER_EVENTS`; `confidenceScore = RULE_LESSON_SCORE_BY_EVIDENCE[confidence]`;
 * - a success counts as the lesson applied: `timesApplied + 1` (`timesSaved` moves only through
 *   `recordRuleLessonApplied`, when a guard match prevented a mistake);
 * - when trusted and `confirmsRuleLesson(event)`: `validationCount + 1` and
 *   `lastValidatedMs = max(lastValidatedMs, min(event.tsMs, nowMs))`.
 */
export function absorbEvent(lesson: RuleLesson, event: LearningEvent, nowMs: number): RuleLesson {
  if (event.category !== lesson.category) {
    throw new RangeError(`absorbEvent: event category ${event.category} is not lesson ${lesson.id}'s category ${lesson.category}`);
  }
  if (lesson.sourceEventIds.includes(event.id)) return lesson;
  const sourceEventIds = [...lesson.sourceEventIds, event.id].slice(-SOURCE_EVENT_IDS_KEPT);
  const trusted = isTrustedEvidence(event);
  const key = personConfirmationKey(event);
  const withKey = (keys: readonly string[]) => (key === null || keys.includes(key) ? [...keys] : [...keys, key]);
  const confirmations = {
    trustedConfirmations: trusted ? withKey(lesson.trustedConfirmations) : lesson.trustedConfirmations,
    eventConfirmations: lesson.eventConfirmations + (key === null ? 1 : 0),
  };
  const evidenceLevel: EvidenceLevel =
    lesson.confidence === 'proven' || (trusted && event.evidenceLevel === 'proven') || trustedConfirmationCount(confirmations) >= PROVEN_AFTER_EVENTS ? 'proven' : 'testing';
  const confirms = trusted && confirmsRuleLesson(event);
  return {
    ...lesson,
    tags: mergeTags(lesson.tags, event.tags),
    sourceEventIds,
    ...confirmations,
    untrustedConfirmations: trusted ? lesson.untrustedConfirmations : withKey(lesson.untrustedConfirmations).slice(-UNTRUSTED_CONFIRMATIONS_KEPT),
    eventTypeCounts: { ...lesson.eventTypeCounts, [event.type]: lesson.eventTypeCounts[event.type] + 1 },
    confidence: evidenceLevel,
    confidenceScore: RULE_LESSON_SCORE_BY_EVIDENCE[evidenceLevel],
    timesApplied: lesson.timesApplied + (event.type === 'success' ? 1 : 0),
    validationCount: lesson.validationCount + (confirms ? 1 : 0),
    lastValidatedMs: confirms ? Math.max(lesson.lastValidatedMs, Math.min(event.tsMs, nowMs)) : lesson.lastValidatedMs,
  };
}

/** A new lesson `id` created at `nowMs` from its first event (`ruleLessonText`, then `absorbEvent`), worded by the event's source (`authorTrusted`). */
export function newRuleLesson(event: LearningEvent, id: string, nowMs: number): RuleLesson {
  const empty: RuleLesson = {
    id,
    createdMs: nowMs,
    category: event.category,
    tags: [],
    ...ruleLessonText(event),
    confidence: 'testing',
    confidenceScore: RULE_LESSON_SCORE_BY_EVIDENCE.testing,
    timesApplied: 0,
    timesSaved: 0,
    sourceEventIds: [],
    trustedConfirmations: [],
    eventConfirmations: 0,
    untrustedConfirmations: [],
    authorTrusted: isTrustedEvidence(event),
    eventTypeCounts: emptyEventTypeCounts(),
    lastValidatedMs: nowMs,
    validationCount: 0,
    reviewFlagged: false,
  };
  return absorbEvent(empty, event, nowMs);
}

/** The lesson after it was applied once (a guard matched it or its rule): `timesApplied + 1`, `timesSaved + 1` when that prevented a mistake. */
export function recordRuleLessonApplied(lesson: RuleLesson, saved: boolean): RuleLesson {
  return { ...lesson, timesApplied: lesson.timesApplied + 1, timesSaved: lesson.timesSaved + (saved ? 1 : 0) };
}

/**
 * The next id of a series: `<prefix>-<n+1>` where n is the largest number among `existingIds` of
 * the form `<prefix>-<digits>` (0 when none), zero-padded to 3 digits: L-001 … L-999, L-1000.
 * Other ids are ignored, so gaps are never refilled and a deleted id is never reused.
 */
export function nextId(prefix: 'L' | 'R', existingIds: Iterable<string>): string {
  const pattern = new RegExp(`^${prefix}-(\\d+)$`);
  let max = 0;
  for (const id of existingIds) {
    const m = pattern.exec(id);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `${prefix}-${String(max + 1).padStart(3, '0')}`;
}
