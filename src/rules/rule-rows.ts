import { z } from 'zod';
import { type GuardEntry, guardEntryFromWire, guardEntryWireSchema, type ParseErrorEntry, parseErrorFromWire, parseErrorWireSchema } from './model/logs';
import { EVENT_TYPES, EVIDENCE_LEVELS, type LearningEvent, RULE_STATUSES, RULE_TYPES, type Rule, type RuleLesson } from './model/types';
import { evidenceAsKeptNow } from './model/rule-lessons';

/**
 * Rows of the rules tables as read back from the database. The database is a boundary (another
 * version of the plugin, a person with psql, a damaged file may have written them), so every row
 * is validated; a row that does not validate is reported and left out, never thrown.
 */

/** A row left out on load: which table, which row, and the first problem zod found. */
export interface RowIssue {
  table: string;
  id: string;
  message: string;
}

/** What a load returns: the rows that validated and the ones that did not. */
export interface Loaded<T> {
  items: T[];
  skipped: RowIssue[];
}

/** Vector sources: the TEXT_EMBEDDING model, or the built-in lexical vector. */
export const VECTOR_SOURCES = ['model', 'lexical'] as const;
export type VectorSource = (typeof VECTOR_SOURCES)[number];

/** The vector a lesson is compared by, stored so a restart does not need to re-embed. */
export interface RuleLessonVector {
  values: number[];
  source: VectorSource;
}

/** A lesson with its vector; on upsert an absent vector keeps the stored one. */
export interface StoredRuleLesson {
  lesson: RuleLesson;
  vector?: RuleLessonVector;
}

const CATEGORY = /^[a-z][a-z0-9_-]*$/;

/** Some drivers hand jsonb back as text; text that is not JSON is passed on for the schema to reject. */
function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
const json = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(parsedJson, schema);
const epochMs = z.coerce.number().finite().transform(Math.round);
const count = z.number().int().nonnegative();
const score = z.number().min(0).max(1);

export const eventRowSchema = z
  .object({
    id: z.string().min(1),
    ts_ms: epochMs,
    type: z.enum(EVENT_TYPES),
    category: z.string().regex(CATEGORY),
    tags: json(z.array(z.string())),
    problem: z.string(),
    solution: z.string(),
    confidence: z.enum(EVIDENCE_LEVELS),
    source: z.string(),
    feedback: z.string().nullable(),
    teacher_id: z.string().nullable().default(null),
    teacher_trusted: z.boolean().nullable().default(null),
    lesson_id: z.string().nullable().default(null),
  })
  .transform((r): LearningEvent => {
    const event: LearningEvent = { id: r.id, tsMs: r.ts_ms, type: r.type, category: r.category, tags: r.tags, problem: r.problem, solution: r.solution, evidenceLevel: r.confidence, source: r.source };
    if (r.feedback !== null) event.feedback = r.feedback;
    if (r.teacher_id !== null) event.teacher = { entityId: r.teacher_id, trusted: r.teacher_trusted === true };
    if (r.lesson_id !== null) event.lessonId = r.lesson_id;
    return event;
  });

const eventTypeCounts = z.object(Object.fromEntries(EVENT_TYPES.map((t) => [t, count])) as Record<(typeof EVENT_TYPES)[number], typeof count>);

/**
 * A lesson document. Rows written before people were told apart have no confirmation lists and no
 * author: each of their events counts as one trusted confirmation and their words as trusted, as
 * they did when they were written. Rows written before events without a teacher were counted
 * (`eventConfirmations`) keep an `event:<id>` key for each, and every event id: the keys are
 * counted and the lists cut to what a lesson keeps now (`evidenceAsKeptNow`).
 */
const ruleLessonSchema = z
  .object({
  id: z.string().min(1),
  createdMs: z.number().finite(),
  category: z.string().regex(CATEGORY),
  subcategory: z.string().optional(),
  tags: z.array(z.string()),
  lesson: z.string(),
  context: z.string(),
  trigger: z.string(),
  action: z.string(),
  confidence: z.enum(EVIDENCE_LEVELS),
  confidenceScore: score,
  timesApplied: count,
  timesSaved: count,
  promotedToRule: z.string().optional(),
  candidateRule: z.string().optional(),
  sourceEventIds: z.array(z.string()),
  trustedConfirmations: z.array(z.string()).optional(),
  eventConfirmations: count.optional(),
  untrustedConfirmations: z.array(z.string()).default([]),
  authorTrusted: z.boolean().default(true),
  eventTypeCounts,
  lastValidatedMs: z.number().finite(),
  validationCount: count,
  reviewFlagged: z.boolean(),
  })
  .transform(({ trustedConfirmations, eventConfirmations, ...l }): RuleLesson => ({ ...l, ...evidenceAsKeptNow({ ...l, trustedConfirmations, eventConfirmations }) })) satisfies z.ZodType<RuleLesson, z.ZodTypeDef, unknown>;

export const ruleLessonRowSchema = z
  .object({
    doc: json(ruleLessonSchema),
    vector: json(z.array(z.number().finite()).nullable()),
    vector_source: z.enum(VECTOR_SOURCES).nullable(),
  })
  .transform((r): StoredRuleLesson => (r.vector && r.vector_source ? { lesson: r.doc, vector: { values: r.vector, source: r.vector_source } } : { lesson: r.doc }));

export const ruleSchema = z.object({
  id: z.string().min(1),
  type: z.enum(RULE_TYPES),
  category: z.string().regex(CATEGORY),
  tags: z.array(z.string()),
  rule: z.string(),
  reason: z.string(),
  createdMs: z.number().finite(),
  sourceLesson: z.string(),
  violations: count,
  lastCheckedMs: z.number().finite(),
  lastValidatedMs: z.number().finite(),
  validationCount: count,
  confidenceScore: score,
  reviewFlagged: z.boolean(),
  status: z.enum(RULE_STATUSES),
  conflictsWith: z.array(z.string()),
}) satisfies z.ZodType<Rule>;

export const ruleRowSchema = z.object({ doc: json(ruleSchema) }).transform((r) => r.doc);

export const guardRowSchema = z.object({ entry: json(guardEntryWireSchema) }).transform((r): GuardEntry => guardEntryFromWire(r.entry));

export const parseErrorRowSchema = z.object({ entry: json(parseErrorWireSchema) }).transform((r): ParseErrorEntry => parseErrorFromWire(r.entry));

/** Validates rows; the ones that fail are reported with `idOf(row)` and left out. */
export function validateRows<T>(table: string, rows: readonly Record<string, unknown>[], schema: z.ZodType<T, z.ZodTypeDef, unknown>, idOf: (row: Record<string, unknown>) => unknown): Loaded<T> {
  const loaded: Loaded<T> = { items: [], skipped: [] };
  for (const row of rows) {
    const parsed = schema.safeParse(row);
    if (parsed.success) loaded.items.push(parsed.data);
    else loaded.skipped.push({ table, id: String(idOf(row) ?? ''), message: issueText(parsed.error) });
  }
  return loaded;
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'row'}: ${issue.message}` : 'invalid row';
}
