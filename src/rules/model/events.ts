import { z } from 'zod';
import { stableId } from '../../shared/ids';
import { parseWireTimeMs } from './dates';
import { EVENT_TYPES, EVIDENCE_LEVELS, type LearningEvent } from './types';
import { wireTimeInRange } from './wire-fields';
import { pathText, wireProblems, wireTimeRangeMessage } from '../../shared/wire-text';

/**
 * Seed 003 events on the wire: checking one row, its stable id, and writing it back. Field names
 * on the wire are the seed's (`greg_feedback` is `feedback` inside).
 */

export const EVENT_CATEGORY_PATTERN = /^[a-z][a-z0-9_-]*$/;
/** A tag after normalisation: lower-case, inner spaces turned into `-`. */
export const EVENT_TAG_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

/** Bounds of an event; a longer value is an error, never silently cut. */
export const EVENT_LIMITS = {
  categoryChars: 40,
  tagChars: 40,
  tags: 20,
  /** `problem`, `solution` and `greg_feedback`. */
  textChars: 2000,
  sourceChars: 64,
} as const;

export type EventRejectionCode = 'not_an_object' | 'missing' | 'invalid_type' | 'invalid_value' | 'too_long' | 'too_many' | 'empty' | 'unstorable' | 'refused_by_database';

/** Why one row was refused; `index` is its 0-based place in its batch, `field` a wire path like `tags.2`. */
export interface EventRejection {
  index: number;
  field: string;
  code: EventRejectionCode;
  message: string;
}

export type EventCheck = { ok: true; event: LearningEvent } | { ok: false; rejection: EventRejection };

/** What a row may leave out: its time (`ts`) and where it came from (`source`). */
export interface EventDefaults {
  nowMs: number;
  source: string;
}

const mustBeString = (field: string) => ({
  required_error: `${field} is required (a string)`,
  invalid_type_error: `${field} must be a string`,
});

const trimmed = (field: string, max: number) =>
  z
    .string(mustBeString(field))
    .max(max, `${field} must be at most ${max} characters`)
    .transform((s) => s.trim());

const oneOf = <T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, {
    errorMap: (issue, ctx) => ({
      message:
        issue.code === 'invalid_type' && ctx.data === undefined
          ? `${field} is required; one of ${values.join(', ')}`
          : `${field} must be one of ${values.join(', ')} (got ${JSON.stringify(ctx.data)})`,
    }),
  });

function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

const tagSchema = z
  .string(mustBeString('each tag'))
  .transform((t) => t.trim().toLowerCase().replace(/\s+/g, '-'))
  .pipe(
    z
      .string()
      .min(1, 'a tag must not be empty')
      .max(EVENT_LIMITS.tagChars, `a tag must be at most ${EVENT_LIMITS.tagChars} characters`)
      .regex(EVENT_TAG_PATTERN, `a tag must be lower-case letters, digits, _, . and - (matching ${EVENT_TAG_PATTERN.source})`),
  );

const eventRowSchema = z
  .object({
    ts: z
      .string(mustBeString('ts'))
      .refine((v) => parseWireTimeMs(v) !== null, {
        message: 'ts must be an ISO-8601 date-time, e.g. 2026-02-11T10:30:00Z (no zone means UTC)',
      })
      .refine(wireTimeInRange, (v) => ({ message: wireTimeRangeMessage('ts', v) }))
      .transform((v) => parseWireTimeMs(v) as number)
      .optional(),
    type: oneOf('type', EVENT_TYPES),
    category: z
      .string(mustBeString('category'))
      .transform((c) => c.trim().toLowerCase())
      .pipe(
        z
          .string()
          .min(1, 'category must not be empty')
          .max(EVENT_LIMITS.categoryChars, `category must be at most ${EVENT_LIMITS.categoryChars} characters`)
          .regex(EVENT_CATEGORY_PATTERN, `category must be lower-case letters, digits, _ and -, starting with a letter (matching ${EVENT_CATEGORY_PATTERN.source})`),
      ),
    tags: z
      .array(tagSchema, { invalid_type_error: 'tags must be an array of strings' })
      .transform(normaliseTags)
      .pipe(z.array(z.string()).max(EVENT_LIMITS.tags, `tags must hold at most ${EVENT_LIMITS.tags} distinct tags`))
      .default([]),
    problem: trimmed('problem', EVENT_LIMITS.textChars).default(''),
    solution: trimmed('solution', EVENT_LIMITS.textChars).default(''),
    confidence: oneOf('confidence', EVIDENCE_LEVELS).default('testing'),
    source: trimmed('source', EVENT_LIMITS.sourceChars).optional(),
    greg_feedback: trimmed('greg_feedback', EVENT_LIMITS.textChars).optional(),
  })
  .superRefine((row, ctx) => {
    if (row.problem === '' && row.solution === '') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['problem'],
        params: { code: 'empty' },
        message: 'problem and solution must not both be empty: give what went wrong or what was learned',
      });
    }
  });

function codeOf(issue: z.ZodIssue): EventRejectionCode {
  switch (issue.code) {
    case 'invalid_type':
      return issue.received === 'undefined' ? 'missing' : 'invalid_type';
    case 'too_big':
      return issue.type === 'array' ? 'too_many' : 'too_long';
    case 'too_small':
      return 'empty';
    case 'custom':
      return (issue.params?.code as EventRejectionCode | undefined) ?? 'invalid_value';
    default:
      return 'invalid_value';
  }
}

/**
 * The identity of an event: `stableId('learning-event', ts, type, category, problem, solution,
 * feedback)`, a UUID (v5) the same for the same content. An event is what happened and when;
 * annotations (`tags`, `confidence`, `source`) do not make it another event, so the same row sent
 * through the CLI and through HTTP is stored once. Re-ingesting is idempotent when the row carries
 * its `ts` (a row without one is stamped with the time it arrived).
 */
export function eventId(event: Omit<LearningEvent, 'id'>): string {
  return stableId('learning-event', String(event.tsMs), event.type, event.category, event.problem, event.solution, event.feedback ?? '');
}

/**
 * Checks one wire event and returns the event or the FIRST problem: text that cannot be stored
 * anywhere in the row (`wireProblems`, code `unstorable`), then the fields in the order of the
 * seed's event format; `ts` must lie in 1970-01-01 .. 2100-12-31. JSON null means absent. Normalised: category lower-cased; tags trimmed,
 * lower-cased, inner spaces as `-`, deduplicated and sorted; texts trimmed; `ts` to epoch ms
 * (`defaults.nowMs` when absent); `confidence` defaults to testing, `source` to `defaults.source`;
 * an empty `greg_feedback` is absent. Unknown fields are ignored.
 */
export function checkEventRow(raw: unknown, index: number, defaults: EventDefaults): EventCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, rejection: { index, field: '(row)', code: 'not_an_object', message: 'an event must be a JSON object with ts, type, category, tags, problem, solution' } };
  }
  const [unstorable] = wireProblems(raw);
  if (unstorable) return { ok: false, rejection: { index, field: pathText(unstorable.path), code: 'unstorable', message: unstorable.message } };
  const cleaned = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  const parsed = eventRowSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.ZodIssue;
    return { ok: false, rejection: { index, field: issue.path.join('.') || '(row)', code: codeOf(issue), message: issue.message } };
  }
  const row = parsed.data;
  const body: Omit<LearningEvent, 'id'> = {
    tsMs: row.ts ?? defaults.nowMs,
    type: row.type,
    category: row.category,
    tags: row.tags,
    problem: row.problem,
    solution: row.solution,
    evidenceLevel: row.confidence,
    source: row.source || defaults.source,
    ...(row.greg_feedback ? { feedback: row.greg_feedback } : {}),
  };
  return { ok: true, event: { id: eventId(body), ...body } };
}

export interface CheckedEvents {
  valid: { index: number; event: LearningEvent }[];
  rejected: EventRejection[];
}

/** Checks a batch: good rows are kept, each bad row gives its first problem. */
export function checkEventRows(rows: readonly unknown[], defaults: EventDefaults): CheckedEvents {
  const batch: CheckedEvents = { valid: [], rejected: [] };
  rows.forEach((raw, index) => {
    const checked = checkEventRow(raw, index, defaults);
    if (checked.ok) batch.valid.push({ index, event: checked.event });
    else batch.rejected.push(checked.rejection);
  });
  return batch;
}

/** Seed 003's event format, as `checkEventRow` reads it back (same id). */
export interface EventWire {
  ts: string;
  type: LearningEvent['type'];
  category: string;
  tags: string[];
  problem: string;
  solution: string;
  confidence: LearningEvent['evidenceLevel'];
  source: string;
  greg_feedback?: string;
}

export function eventToWire(event: LearningEvent): EventWire {
  return {
    ts: new Date(event.tsMs).toISOString(),
    type: event.type,
    category: event.category,
    tags: [...event.tags],
    problem: event.problem,
    solution: event.solution,
    confidence: event.evidenceLevel,
    source: event.source,
    ...(event.feedback !== undefined ? { greg_feedback: event.feedback } : {}),
  };
}
