import { z } from 'zod';
import { isoDay } from './dates';
import { emptyEventTypeCounts, evidenceAsKeptNow } from './rule-lessons';
import { firstIssue, wireCount, wireDayMs, wireText } from './wire-fields';
import { EVENT_TYPES, EVIDENCE_LEVELS, type EventType, type RuleLesson } from './types';
import { pathText, wireProblems } from '../../shared/wire-text';

/**
 * Seed 003's lesson format (v1.4.0) and back. Dates are `YYYY-MM-DD` (UTC day), so times keep
 * day precision across the wire. The seed lists `source_events` as timestamps; inside, a lesson
 * keeps the ids of its events (an id is what dedupes and links back). So the wire carries both:
 * `source_events` (ISO times of the events whose time is known) for the seed's readers, and the
 * extension `source_event_ids` for a lossless trip, with `tags`, `event_type_counts`,
 * `candidate_rule`, `trusted_confirmations`, `untrusted_confirmations` and `author_trusted`. A seed file without
 * `source_event_ids` is read with its timestamps as the ids; without `trusted_confirmations`,
 * each of its events counts as one trusted confirmation (as operator events do).
 */
export interface RuleLessonWire {
  id: string;
  created: string;
  category: string;
  subcategory?: string;
  lesson: string;
  context: string;
  trigger: string;
  action: string;
  confidence: RuleLesson['confidence'];
  confidence_score: number;
  times_applied: number;
  times_saved: number;
  promoted_to_rule?: string;
  source_events: string[];
  last_validated: string;
  validation_count: number;
  review_flagged: boolean;
  tags: string[];
  event_type_counts: Record<EventType, number>;
  source_event_ids: string[];
  candidate_rule?: string;
  trusted_confirmations: string[];
  event_confirmations: number;
  untrusted_confirmations: string[];
  author_trusted: boolean;
}

/** `eventTsMs` maps event ids to their times; ids it does not know are left out of `source_events`. */
export function ruleLessonToWire(lesson: RuleLesson, eventTsMs: ReadonlyMap<string, number>): RuleLessonWire {
  const sourceEvents: string[] = [];
  for (const id of lesson.sourceEventIds) {
    const ts = eventTsMs.get(id);
    if (ts !== undefined) sourceEvents.push(new Date(ts).toISOString());
  }
  return {
    id: lesson.id,
    created: isoDay(lesson.createdMs),
    category: lesson.category,
    ...(lesson.subcategory !== undefined ? { subcategory: lesson.subcategory } : {}),
    lesson: lesson.lesson,
    context: lesson.context,
    trigger: lesson.trigger,
    action: lesson.action,
    confidence: lesson.confidence,
    confidence_score: lesson.confidenceScore,
    times_applied: lesson.timesApplied,
    times_saved: lesson.timesSaved,
    ...(lesson.promotedToRule !== undefined ? { promoted_to_rule: lesson.promotedToRule } : {}),
    source_events: sourceEvents,
    last_validated: isoDay(lesson.lastValidatedMs),
    validation_count: lesson.validationCount,
    review_flagged: lesson.reviewFlagged,
    tags: [...lesson.tags],
    event_type_counts: { ...lesson.eventTypeCounts },
    source_event_ids: [...lesson.sourceEventIds],
    ...(lesson.candidateRule !== undefined ? { candidate_rule: lesson.candidateRule } : {}),
    trusted_confirmations: [...lesson.trustedConfirmations],
    event_confirmations: lesson.eventConfirmations,
    untrusted_confirmations: [...lesson.untrustedConfirmations],
    author_trusted: lesson.authorTrusted,
  };
}

const ruleLessonWireSchema = z.object({
  id: z.string({ required_error: 'id is required' }).regex(/^L-\d{3,}$/, 'id must look like L-001'),
  created: wireDayMs('created'),
  category: wireText('category').min(1, 'category must not be empty'),
  subcategory: wireText('subcategory').optional(),
  lesson: wireText('lesson'),
  context: wireText('context').default(''),
  trigger: wireText('trigger').default(''),
  action: wireText('action').default(''),
  confidence: z.enum(EVIDENCE_LEVELS, { errorMap: () => ({ message: `confidence must be one of ${EVIDENCE_LEVELS.join(', ')}` }) }),
  confidence_score: z.number({ invalid_type_error: 'confidence_score must be a number in [0,1]' }).min(0, 'confidence_score must be a number in [0,1]').max(1, 'confidence_score must be a number in [0,1]'),
  times_applied: wireCount('times_applied').default(0),
  times_saved: wireCount('times_saved').default(0),
  promoted_to_rule: z.string({ invalid_type_error: 'promoted_to_rule must be a rule id like R-001' }).regex(/^R-\d{3,}$/, 'promoted_to_rule must be a rule id like R-001').optional(),
  source_events: z.array(wireText('each source event'), { invalid_type_error: 'source_events must be an array of timestamps' }).default([]),
  last_validated: wireDayMs('last_validated'),
  validation_count: wireCount('validation_count').default(0),
  review_flagged: z.boolean({ invalid_type_error: 'review_flagged must be true or false' }).default(false),
  tags: z.array(wireText('each tag'), { invalid_type_error: 'tags must be an array of strings' }).default([]),
  event_type_counts: z.object(Object.fromEntries(EVENT_TYPES.map((t) => [t, wireCount(`event_type_counts.${t}`).default(0)])) as Record<EventType, z.ZodDefault<z.ZodNumber>>).optional(),
  source_event_ids: z.array(wireText('each source event id'), { invalid_type_error: 'source_event_ids must be an array of strings' }).optional(),
  candidate_rule: z.string({ invalid_type_error: 'candidate_rule must be a rule id like R-001' }).regex(/^R-\d{3,}$/, 'candidate_rule must be a rule id like R-001').optional(),
  trusted_confirmations: z.array(wireText('each trusted confirmation'), { invalid_type_error: 'trusted_confirmations must be an array of strings' }).optional(),
  event_confirmations: wireCount('event_confirmations').optional(),
  untrusted_confirmations: z.array(wireText('each untrusted confirmation'), { invalid_type_error: 'untrusted_confirmations must be an array of strings' }).default([]),
  author_trusted: z.boolean({ invalid_type_error: 'author_trusted must be true or false' }).default(true),
});

export type RuleLessonFromWire = { ok: true; lesson: RuleLesson } | { ok: false; code: 'not_an_object' | 'invalid_field'; field: string; message: string };

/** Reads one wire lesson back (`wireProblems`, then zod); the first bad field is named. JSON null means absent. */
export function ruleLessonFromWire(raw: unknown): RuleLessonFromWire {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, code: 'not_an_object', field: '(lesson)', message: 'a lesson must be a JSON object' };
  }
  const [unstorable] = wireProblems(raw);
  if (unstorable) return { ok: false, code: 'invalid_field', field: pathText(unstorable.path, '(lesson)'), message: unstorable.message };
  const parsed = ruleLessonWireSchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null)));
  if (!parsed.success) {
    return { ok: false, code: 'invalid_field', ...firstIssue(parsed.error, '(lesson)') };
  }
  const w = parsed.data;
  const sourceEventIds = w.source_event_ids ?? w.source_events;
  return {
    ok: true,
    lesson: {
      id: w.id,
      createdMs: w.created,
      category: w.category,
      ...(w.subcategory !== undefined ? { subcategory: w.subcategory } : {}),
      tags: [...new Set(w.tags)].sort(),
      lesson: w.lesson,
      context: w.context,
      trigger: w.trigger,
      action: w.action,
      confidence: w.confidence,
      confidenceScore: w.confidence_score,
      timesApplied: w.times_applied,
      timesSaved: w.times_saved,
      ...(w.promoted_to_rule !== undefined ? { promotedToRule: w.promoted_to_rule } : {}),
      ...(w.candidate_rule !== undefined ? { candidateRule: w.candidate_rule } : {}),
      ...evidenceAsKeptNow({ sourceEventIds, trustedConfirmations: w.trusted_confirmations, eventConfirmations: w.event_confirmations, untrustedConfirmations: w.untrusted_confirmations }),
      authorTrusted: w.author_trusted,
      eventTypeCounts: { ...emptyEventTypeCounts(), ...(w.event_type_counts ?? {}) },
      lastValidatedMs: w.last_validated,
      validationCount: w.validation_count,
      reviewFlagged: w.review_flagged,
    },
  };
}
