import { z } from 'zod';
import { isWireTimeMs, pathText, wireNumber, wireProblems, wireTimeRangeMessage } from '../../shared/wire-text';

/** Every label a finding can be given, in the order the seed lists them. */
export const OUTCOME_LABELS = ['fixed', 'accepted', 'ignored', 'rejected_fp', 'reopened'] as const;
export type OutcomeLabel = (typeof OUTCOME_LABELS)[number];

/** Longest accepted free-text field; longer text is an error, not silently cut. */
export const MAX_TEXT_CHARS = 4000;
const MAX_KEY_CHARS = 512;

const requiredString = (field: string, max = MAX_KEY_CHARS) =>
  z
    .string({ required_error: `${field} is required`, invalid_type_error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

const optionalText = (field: string) =>
  z
    .string({ invalid_type_error: `${field} must be a string` })
    .max(MAX_TEXT_CHARS, `${field} must be at most ${MAX_TEXT_CHARS} characters`)
    .optional();

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** ISO-8601 date-time with a zone whose calendar fields exist (no 30 February, no hour 24). */
export function isIsoDateTime(text: string): boolean {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[7] ?? '0'].map(Number) as number[];
  const calendar = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  return (
    calendar.getUTCMonth() === (month as number) - 1 &&
    calendar.getUTCDate() === day &&
    (hour as number) < 24 &&
    (minute as number) < 60 &&
    (second as number) < 60 &&
    !Number.isNaN(Date.parse(text))
  );
}

/**
 * An ISO-8601 date-time with a zone (`isIsoDateTime`) between 1970-01-01 and 2100-12-31 UTC,
 * normalised to UTC ISO-8601. Messages name the field, the format and the range.
 */
export function isoDateTimeField(field: string, params: { required_error?: string } = {}) {
  return z
    .string({ ...params, invalid_type_error: `${field} must be an ISO-8601 string` })
    .refine(isIsoDateTime, { message: `${field} must be an ISO-8601 date-time with a time zone, e.g. 2026-11-02T14:03:00Z` })
    .refine((v) => !isIsoDateTime(v) || isWireTimeMs(Date.parse(v)), (v) => ({ message: wireTimeRangeMessage(field, v) }))
    .transform((v) => new Date(v).toISOString());
}

/**
 * The outcome row on the wire (JSONL line, HTTP body item, service call item), as the README's
 * "Data" section documents it. Unknown fields are ignored; `ts` is normalised to UTC ISO-8601.
 */
export const outcomeRowSchema = z.object({
  finding_key: requiredString('finding_key'),
  label: z.enum(OUTCOME_LABELS, {
    errorMap: (issue, ctx) => ({
      message:
        issue.code === 'invalid_type' && ctx.data === undefined
          ? `label is required; one of ${OUTCOME_LABELS.join(', ')}`
          : `label must be one of ${OUTCOME_LABELS.join(', ')} (got ${JSON.stringify(ctx.data)})`,
    }),
  }),
  ts: isoDateTimeField('ts', { required_error: 'ts is required (ISO-8601 date-time)' }),
  project: requiredString('project'),
  scanner: requiredString('scanner'),
  model_provider: requiredString('model_provider'),
  model_name: requiredString('model_name'),
  category: requiredString('category').optional(),
  cwe: wireNumber('cwe', 'an integer', z.number().int('cwe must be an integer').nonnegative('cwe must not be negative')).optional(),
  confidence: wireNumber('confidence', 'a number in [0,1]', z.number().min(0, 'confidence must be a number in [0,1]').max(1, 'confidence must be a number in [0,1]')).optional(),
  severity: optionalText('severity'),
  prompt_version: optionalText('prompt_version'),
  strategy_version: optionalText('strategy_version'),
  summary: optionalText('summary'),
  source: optionalText('source'),
  notes: optionalText('notes'),
});

export type OutcomeRow = z.output<typeof outcomeRowSchema>;
/** A finding before it has a label: the input of a triage prediction. */
export type FindingRow = Omit<OutcomeRow, 'label'>;

/** Why one row of a batch was refused. `index` is the row's 0-based position in its batch. */
export interface RowRejection {
  index: number;
  field: string;
  message: string;
}

export type RowCheck<T = OutcomeRow> = { ok: true; row: T } | { ok: false; rejections: RowRejection[] };

/** A finding on the wire: an outcome row without its label (triage input, findings awaiting labels). */
export const findingRowSchema = outcomeRowSchema.omit({ label: true });

/** Fields whose JSON null is a bad value rather than "absent". */
const NUMBER_FIELDS: ReadonlySet<string> = new Set(['cwe', 'confidence']);

/**
 * Checks one row: first what no field may carry (`wireProblems`: U+0000, unpaired surrogates, nesting
 * deeper than 64, anywhere in the row, unknown fields included), then the schema; every bad field is
 * reported once.
 */
function checkRow<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown, index: number): RowCheck<T> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, rejections: [{ index, field: '(row)', message: 'row must be a JSON object' }] };
  }
  // JSON null means "absent" for text fields; a number field given as null is refused by its schema.
  const cleaned = Object.fromEntries(Object.entries(raw).filter(([k, v]) => v !== null || NUMBER_FIELDS.has(k)));
  const unstorable = wireProblems(raw).map((p) => ({ index, field: pathText(p.path), message: p.message }));
  const parsed = schema.safeParse(cleaned);
  if (parsed.success && unstorable.length === 0) return { ok: true, row: parsed.data };
  const named = new Set(unstorable.map((r) => r.field));
  const invalid = parsed.success ? [] : parsed.error.issues.map((issue) => ({ index, field: issue.path.join('.') || '(row)', message: issue.message }));
  return { ok: false, rejections: [...unstorable, ...invalid.filter((r) => !named.has(r.field))] };
}

/** Validates one wire row; every bad field is reported, each with its own message. */
export function checkOutcomeRow(raw: unknown, index: number): RowCheck {
  return checkRow(outcomeRowSchema, raw, index);
}

/** Validates one finding (a row without a label) the same way. */
export function checkFindingRow(raw: unknown, index: number): RowCheck<FindingRow> {
  return checkRow(findingRowSchema, raw, index);
}

export interface CheckedBatch {
  valid: { index: number; row: OutcomeRow }[];
  rejected: RowRejection[];
}

/** Validates rows; `firstIndex` is the index of `rows[0]` in the caller's whole input (what rejections and valid rows are numbered by). */
export function checkOutcomeRows(rows: readonly unknown[], firstIndex = 0): CheckedBatch {
  const batch: CheckedBatch = { valid: [], rejected: [] };
  rows.forEach((raw, i) => {
    const index = firstIndex + i;
    const checked = checkOutcomeRow(raw, index);
    if (checked.ok) batch.valid.push({ index, row: checked.row });
    else batch.rejected.push(...checked.rejections);
  });
  return batch;
}
