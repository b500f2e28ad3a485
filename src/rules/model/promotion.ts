import { DAY_MS } from '../../scan/model/grouping';
import type { ScanLessonCategory } from '../../scan/model/scan-lesson';
import { clipText } from '../../shared/prompt-text';
import { peopleOf, taughtByPerson, trustedConfirmationCount } from './confirmations';
import { RULE_START_CONFIDENCE } from './rule-confidence';
import { UNTRUSTED_CONFIRMATIONS_KEPT } from './rule-lessons';
import { isoDay } from './dates';
import { EVENT_CATEGORY_PATTERN } from './events';
import { EVENT_TYPES, type EventType, RULE_TYPE_PRIORITY, RULE_TYPES, type Rule, type RuleLesson, type RuleStatus, type RuleType } from './types';
import { typeCue } from './wording';

/**
 * Seed 003: a lesson that keeps being confirmed becomes a typed rule. Which lessons, and of which
 * type, is decided here from counts and words alone.
 */

export interface PromotionCriteria {
  /**
   * Distinct trusted confirmations behind the lesson (`trustedConfirmationCount`: one per
   * trusted person per UTC day, one per operator event) needed to promote.
   */
  minConfirmations: number;
  /** The same, for a lesson whose evidence level is already `proven`. */
  minConfirmationsWhenProven: number;
  /** Days since the lesson was created (so a burst of events in one sitting can be made to wait). */
  minAgeDays: number;
}

/** 3 confirmations (2 when proven), no minimum age. */
export const DEFAULT_PROMOTION_CRITERIA: PromotionCriteria = { minConfirmations: 3, minConfirmationsWhenProven: 2, minAgeDays: 0 };

export type PromotionRefusal = 'already_promoted' | 'review_flagged' | 'untrusted_author' | 'too_few_confirmations' | 'too_young';
export type PromotionDecision = { promote: true; type: RuleType } | { promote: false; reason: PromotionRefusal; message: string };

/**
 * Checked in order, the first failing one refuses: not promoted yet; not flagged for review;
 * worded by a trusted source (`authorTrusted`: else only an approval makes it a rule);
 * `trustedConfirmations.length ≥ minConfirmations` (`minConfirmationsWhenProven` for a proven
 * lesson); `nowMs − createdMs ≥ minAgeDays` days. A promotion gets `ruleTypeFor(lesson)`.
 * Confirmations from people who may not teach never count: their lesson waits as a candidate.
 */
export function promotionDecision(lesson: RuleLesson, criteria: PromotionCriteria, nowMs: number): PromotionDecision {
  if (lesson.promotedToRule !== undefined) {
    return { promote: false, reason: 'already_promoted', message: `${lesson.id} is already rule ${lesson.promotedToRule}` };
  }
  if (lesson.reviewFlagged) return { promote: false, reason: 'review_flagged', message: `${lesson.id} is flagged for review` };
  if (!lesson.authorTrusted) {
    return { promote: false, reason: 'untrusted_author', message: `${lesson.id} is worded by someone who may not teach: only a trusted person's approval makes it a rule` };
  }
  const needed = lesson.confidence === 'proven' ? criteria.minConfirmationsWhenProven : criteria.minConfirmations;
  const have = trustedConfirmationCount(lesson);
  if (have < needed) {
    return { promote: false, reason: 'too_few_confirmations', message: `${lesson.id} has ${have} of ${needed} trusted confirmations (${lesson.confidence})` };
  }
  const ageDays = (nowMs - lesson.createdMs) / DAY_MS;
  if (ageDays < criteria.minAgeDays) {
    return { promote: false, reason: 'too_young', message: `${lesson.id} is ${ageDays.toFixed(1)} of ${criteria.minAgeDays} days old` };
  }
  return { promote: true, type: ruleTypeFor(lesson) };
}

/**
 * The rule type each event type votes for: a mistake says what not to do (NEVER), feedback is a
 * human stating what is required (MUST; a correction worded "don't …" is caught by the cue
 * first), a debug session says what to verify (CHECK), successes and discoveries say what works (PREFER).
 */
export const RULE_TYPE_VOTE: Record<EventType, RuleType> = {
  mistake: 'NEVER',
  feedback: 'MUST',
  debug_session: 'CHECK',
  success: 'PREFER',
  discovery: 'PREFER',
};

/**
 * A lesson's rule type, first rule that answers:
 * 1. `typeCue(action)` — the words the lesson tells the agent to act on (`TYPE_CUES`);
 * 2. `typeCue(lesson)`;
 * 3. the most votes of `eventTypeCounts` under `RULE_TYPE_VOTE`, a tie going to the type that
 *    comes first in `RULE_TYPE_PRIORITY` (NEVER, MUST, CHECK, PREFER);
 * 4. PREFER when there are no counts (the mildest type for a lesson with no known events).
 */
export function ruleTypeFor(lesson: Pick<RuleLesson, 'action' | 'lesson' | 'eventTypeCounts'>): RuleType {
  const cue = typeCue(lesson.action) ?? typeCue(lesson.lesson);
  if (cue !== null) return cue;
  const votes: Record<RuleType, number> = { MUST: 0, NEVER: 0, PREFER: 0, CHECK: 0 };
  for (const eventType of EVENT_TYPES) votes[RULE_TYPE_VOTE[eventType]] += lesson.eventTypeCounts[eventType];
  const ranked = [...RULE_TYPES].sort((a, b) => votes[b] - votes[a] || RULE_TYPE_PRIORITY[a] - RULE_TYPE_PRIORITY[b]);
  const top = ranked[0] as RuleType;
  return votes[top] > 0 ? top : 'PREFER';
}

/** Longest rule and reason text; longer is cut with `…`. */
export const MAX_RULE_TEXT_CHARS = 1000;

const clip = (text: string) => clipText(text, MAX_RULE_TEXT_CHARS);

const TEMPLATE: Record<RuleType, string> = { NEVER: 'Never', MUST: 'Always', CHECK: 'Check', PREFER: 'Prefer' };

/**
 * A rule's text: the action itself (first letter capitalised) when its first words already name `type` (`typeCue`);
 * otherwise `Never: <trigger>. Instead: <action>` for NEVER (the trigger is what went wrong;
 * just `Never: <action>` without a distinct trigger) and `Always: …`, `Check: …`, `Prefer: …` + action.
 */
export function ruleTextFor(action: string, trigger: string, type: RuleType): string {
  if (typeCue(action) === type) return clip(action.charAt(0).toUpperCase() + action.slice(1));
  if (type === 'NEVER' && trigger !== '' && trigger !== action) return clip(`Never: ${trigger.replace(/[.\s]+$/, '')}. Instead: ${action}`);
  return clip(`${TEMPLATE[type]}: ${action}`);
}

/** Every event behind a lesson (`eventTypeCounts` counts each one; `sourceEventIds` keeps only the newest). */
export function eventCountOf(lesson: Pick<RuleLesson, 'eventTypeCounts'>): number {
  return EVENT_TYPES.reduce((n, t) => n + lesson.eventTypeCounts[t], 0);
}

function countsText(counts: Record<EventType, number>): string {
  return EVENT_TYPES.filter((t) => counts[t] > 0)
    .map((t) => `${counts[t]} ${t}`)
    .join(', ');
}

/** The sentence of a candidate's reason that its approval replaces. */
const CANDIDATE_WAITS = "Waits for approval by the agent's owner or an admin.";

/**
 * The rule a lesson becomes: text `ruleTextFor(action, trigger, type)`, reason naming the lesson
 * and its evidence, category and tags of the lesson, confidence `RULE_START_CONFIDENCE` (0.9),
 * counters 0, created, checked and validated at `nowMs`, no conflicts; status active, or
 * `candidate` (`candidateFromRuleLesson`).
 */
export function ruleFromRuleLesson(lesson: RuleLesson, type: RuleType, id: string, nowMs: number, status: RuleStatus = 'active'): Rule {
  const events = `${eventCountOf(lesson)} events (${countsText(lesson.eventTypeCounts) || 'none counted'})`;
  const people = peopleOf(lesson.untrustedConfirmations);
  const untrusted = lesson.untrustedConfirmations.length;
  const reason =
    status === 'candidate'
      ? `Candidate from lesson ${lesson.id}: ${events}; ${trustedConfirmationCount(lesson)} trusted confirmations, ${untrusted < UNTRUSTED_CONFIRMATIONS_KEPT ? untrusted : `at least ${untrusted}`} from ${untrusted < UNTRUSTED_CONFIRMATIONS_KEPT ? '' : 'at least '}${people} ${people === 1 ? 'person' : 'people'} who may not teach. ${CANDIDATE_WAITS} ${lesson.context}`
      : `Promoted from lesson ${lesson.id} after ${events}, ${lesson.validationCount} validations. ${lesson.context}`;
  return newRule({ id, type, category: lesson.category, tags: [...lesson.tags], rule: ruleTextFor(lesson.action, lesson.trigger, type), reason: clip(reason), sourceLesson: lesson.id }, nowMs, status);
}

/**
 * Whether a lesson that is not promoted should be shown as a candidate rule: a person taught it
 * (`taughtByPerson`: any chat correction or praise, trusted or not, or an action run at a person's
 * request) and it is not flagged for review. A candidate is never in a prompt; a trusted person
 * approves or rejects it, or trusted confirmations promote it.
 */
export function wantsCandidate(lesson: RuleLesson): boolean {
  return lesson.promotedToRule === undefined && !lesson.reviewFlagged && taughtByPerson(lesson);
}

/** The candidate rule of a lesson: `ruleFromRuleLesson` with status `candidate` and type `ruleTypeFor(lesson)`. */
export function candidateFromRuleLesson(lesson: RuleLesson, id: string, nowMs: number): Rule {
  return ruleFromRuleLesson(lesson, ruleTypeFor(lesson), id, nowMs, 'candidate');
}

function newRule(fields: Pick<Rule, 'id' | 'type' | 'category' | 'tags' | 'rule' | 'reason' | 'sourceLesson'>, nowMs: number, status: RuleStatus = 'active'): Rule {
  return {
    ...fields,
    createdMs: nowMs,
    violations: 0,
    lastCheckedMs: nowMs,
    lastValidatedMs: nowMs,
    validationCount: 0,
    confidenceScore: RULE_START_CONFIDENCE,
    reviewFlagged: false,
    status,
    conflictsWith: [],
  };
}

/**
 * A candidate approved at `nowMs`: active as it was listed (type, text, scope), confidence back
 * to `RULE_START_CONFIDENCE`, validated and checked now, not flagged; its reason says when it was
 * approved instead of that it waits.
 */
export function approveCandidate(rule: Rule, nowMs: number): Rule {
  return {
    ...rule,
    status: 'active',
    confidenceScore: RULE_START_CONFIDENCE,
    lastValidatedMs: nowMs,
    lastCheckedMs: nowMs,
    reviewFlagged: false,
    reason: clip(rule.reason.includes(CANDIDATE_WAITS) ? rule.reason.replace(CANDIDATE_WAITS, `Approved on ${isoDay(nowMs)}.`) : `Approved on ${isoDay(nowMs)}. ${rule.reason}`),
  };
}

/** `ruleFromRuleLesson` plus the lesson marked `promotedToRule = id` (`id` is the lesson's candidate's, when it has one). */
export function promoteRuleLesson(lesson: RuleLesson, type: RuleType, id: string, nowMs: number): { rule: Rule; lesson: RuleLesson } {
  return { rule: ruleFromRuleLesson(lesson, type, id, nowMs), lesson: { ...lesson, promotedToRule: id } };
}

/** What the promotion of a `scan-model-lesson` memory (seed 001) looks at. */
export interface ScanLessonStats {
  /** The memory's id: the rule's `sourceLesson`. */
  memoryId: string;
  text: string;
  /** Seed 001's kind of lesson, when known. */
  lessonCategory?: ScanLessonCategory;
  /** The finding category the lesson is about (e.g. `sql-injection`), null for all. */
  findingCategory: string | null;
  sampleSize: number;
  /** The lesson's stored confidence in [0, 1]. */
  scanLessonConfidence: number;
  /** How many times the lesson was re-learned (deduplicated into the same memory). */
  reinforcements: number;
  firstSeenMs: number;
  lastSeenMs: number;
}

export interface ScanPromotionCriteria {
  minSampleSize: number;
  minScanLessonConfidence: number;
  minReinforcements: number;
  /** `lastSeenMs − firstSeenMs` must span this many days: support that lasted. */
  minSpanDays: number;
  /** And the lesson must have been seen within this many days of now. */
  maxIdleDays: number;
}

/** 30 labelled findings, confidence 0.8, re-learned 3 times over at least 14 days, last seen within 30 days. */
export const DEFAULT_SCAN_PROMOTION_CRITERIA: ScanPromotionCriteria = {
  minSampleSize: 30,
  minScanLessonConfidence: 0.8,
  minReinforcements: 3,
  minSpanDays: 14,
  maxIdleDays: 30,
};

export type ScanPromotionRefusal = 'too_few_samples' | 'low_confidence' | 'too_few_reinforcements' | 'too_short_span' | 'stale';
export type ScanPromotionDecision = { promote: true; type: RuleType } | { promote: false; reason: ScanPromotionRefusal; message: string };

/** Rule type of a scan lesson by its kind when its words name none: patterns to doubt or verify are CHECK, what works is PREFER. */
export const SCAN_RULE_TYPE: Record<ScanLessonCategory, RuleType> = {
  'signal-quality': 'PREFER',
  'false-positive-pattern': 'CHECK',
  'remediation-effectiveness': 'CHECK',
  'repo-context-gap': 'CHECK',
  'model-routing': 'PREFER',
};

/**
 * A scan lesson is promoted when all hold, checked in this order: `sampleSize ≥ minSampleSize`,
 * `confidence ≥ minConfidence`, `reinforcements ≥ minReinforcements`,
 * `(lastSeenMs − firstSeenMs) ≥ minSpanDays` days, `(nowMs − lastSeenMs) ≤ maxIdleDays` days.
 * Type: `typeCue(text)`, else `SCAN_RULE_TYPE[lessonCategory]`, else PREFER.
 */
export function scanLessonPromotion(stats: ScanLessonStats, criteria: ScanPromotionCriteria, nowMs: number): ScanPromotionDecision {
  const refuse = (reason: ScanPromotionRefusal, message: string): ScanPromotionDecision => ({ promote: false, reason, message: `${stats.memoryId}: ${message}` });
  if (stats.sampleSize < criteria.minSampleSize) return refuse('too_few_samples', `sample size ${stats.sampleSize} < ${criteria.minSampleSize}`);
  if (stats.scanLessonConfidence < criteria.minScanLessonConfidence) return refuse('low_confidence', `confidence ${stats.scanLessonConfidence} < ${criteria.minScanLessonConfidence}`);
  if (stats.reinforcements < criteria.minReinforcements) return refuse('too_few_reinforcements', `${stats.reinforcements} reinforcements < ${criteria.minReinforcements}`);
  const spanDays = (stats.lastSeenMs - stats.firstSeenMs) / DAY_MS;
  if (spanDays < criteria.minSpanDays) return refuse('too_short_span', `seen over ${spanDays.toFixed(1)} days < ${criteria.minSpanDays}`);
  const idleDays = (nowMs - stats.lastSeenMs) / DAY_MS;
  if (idleDays > criteria.maxIdleDays) return refuse('stale', `last seen ${idleDays.toFixed(1)} days ago > ${criteria.maxIdleDays}`);
  return { promote: true, type: typeCue(stats.text) ?? (stats.lessonCategory ? SCAN_RULE_TYPE[stats.lessonCategory] : 'PREFER') };
}

/** The rule category of a scan lesson: its finding category lower-cased when that is a valid event category, else `scan`. */
export function scanRuleCategory(findingCategory: string | null): string {
  const lower = findingCategory?.trim().toLowerCase() ?? '';
  return lower.length <= 40 && EVENT_CATEGORY_PATTERN.test(lower) ? lower : 'scan';
}

/** The rule a scan lesson becomes: text `ruleTextFor(text, '', type)`, category `scanRuleCategory`, tags `[lessonCategory]` when known, the rest as `ruleFromRuleLesson`. */
export function ruleFromScanLesson(stats: ScanLessonStats, type: RuleType, id: string, nowMs: number): Rule {
  const reason = `Promoted from scan lesson ${stats.memoryId}: ${stats.sampleSize} labelled findings, confidence ${stats.scanLessonConfidence.toFixed(2)}, re-learned ${stats.reinforcements} times between ${isoDay(stats.firstSeenMs)} and ${isoDay(stats.lastSeenMs)}.`;
  return newRule(
    {
      id,
      type,
      category: scanRuleCategory(stats.findingCategory),
      tags: stats.lessonCategory ? [stats.lessonCategory] : [],
      rule: ruleTextFor(stats.text, '', type),
      reason: clip(reason),
      sourceLesson: stats.memoryId,
    },
    nowMs,
  );
}
