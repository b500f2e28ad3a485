/** Seed 000: category keys of `by_category` are snake_case words. */
export const LEDGER_CATEGORY_PATTERN = /^[a-z_]+$/;
export const MAX_CATEGORY_CHARS = 64;

export const LEDGER_TYPES = ['reward', 'penalty'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

/**
 * Largest |points| of one transaction. Points are integers (as in the seed), so every total is
 * exact and the checksum needs no tolerance; with this bound a running total stays a safe integer
 * for at least 9·10⁹ transactions.
 */
export const MAX_ABS_POINTS = 1_000_000;

/** Longest text of each free-text field of an entry; longer is an error, never silently cut. */
export const MAX_TEXT_CHARS: Record<'action' | 'source' | 'source_ref', number> = {
  action: 1000,
  source: 64,
  source_ref: 256,
};
const TEXT_FIELDS = Object.keys(MAX_TEXT_CHARS) as (keyof typeof MAX_TEXT_CHARS)[];

/** What a caller asks to record; the ledger adds id, sequence, totals and hashes. */
export interface LedgerEntryInput {
  type: LedgerType;
  category: string;
  /** A non-zero integer: > 0 for a reward, < 0 for a penalty. */
  points: number;
  action: string;
  /** The kind of record that caused it, e.g. `scan_outcome`, `trajectory`, `rule`. */
  source: string;
  /** The id of that record. */
  source_ref: string;
}

export type EntryErrorCode =
  | 'not_an_object'
  | 'invalid_type'
  | 'invalid_category'
  | 'unregistered_category'
  | 'invalid_points'
  | 'sign_mismatch'
  | 'invalid_text'
  | 'text_too_long';

export interface EntryError {
  ok: false;
  code: EntryErrorCode;
  field: string;
  message: string;
}

export type EntryCheck = { ok: true; entry: LedgerEntryInput } | EntryError;

/** A value as an error message quotes it: JSON for strings, at most 60 characters. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function fail(code: EntryErrorCode, field: string, message: string): EntryError {
  return { ok: false, code, field, message };
}

/** The first problem of an entry, in field order; the registry check is skipped when it is null. */
export function parseEntry(input: unknown, registry: ReadonlySet<string> | null): EntryCheck {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return fail('not_an_object', '(entry)', `entry must be an object with type, category, points, ${TEXT_FIELDS.join(', ')}`);
  }
  const raw = input as Record<string, unknown>;
  const { type, category, points } = raw;
  if (type !== 'reward' && type !== 'penalty') {
    return fail('invalid_type', 'type', `type must be one of ${LEDGER_TYPES.join(', ')} (got ${show(type)})`);
  }
  if (typeof category !== 'string' || category.length > MAX_CATEGORY_CHARS || !LEDGER_CATEGORY_PATTERN.test(category)) {
    return fail(
      'invalid_category',
      'category',
      `category must be 1 to ${MAX_CATEGORY_CHARS} lowercase letters or underscores, matching ${LEDGER_CATEGORY_PATTERN.source} (got ${show(category)})`,
    );
  }
  if (registry !== null && !registry.has(category)) {
    const known = [...registry].sort();
    const allowed = known.length === 0 ? 'no categories are registered' : `registered: ${known.join(', ')}`;
    return fail('unregistered_category', 'category', `category ${show(category)} is not registered (${allowed})`);
  }
  if (typeof points !== 'number' || !Number.isSafeInteger(points) || points === 0 || Math.abs(points) > MAX_ABS_POINTS) {
    return fail('invalid_points', 'points', `points must be a non-zero integer from -${MAX_ABS_POINTS} to ${MAX_ABS_POINTS} (got ${show(points)})`);
  }
  if (type === 'reward' && points < 0) {
    return fail('sign_mismatch', 'points', `a reward must have points > 0 (got ${points}); record a loss as a penalty`);
  }
  if (type === 'penalty' && points > 0) {
    return fail('sign_mismatch', 'points', `a penalty must have points < 0 (got ${points}); record a gain as a reward`);
  }
  for (const field of TEXT_FIELDS) {
    const value = raw[field];
    if (typeof value !== 'string' || value.trim() === '') {
      return fail('invalid_text', field, `${field} must be a non-empty string (got ${show(value)})`);
    }
    if (value.length > MAX_TEXT_CHARS[field]) {
      return fail('text_too_long', field, `${field} must be at most ${MAX_TEXT_CHARS[field]} characters (got ${value.length})`);
    }
  }
  const { action, source, source_ref } = raw as Record<(typeof TEXT_FIELDS)[number], string>;
  return { ok: true, entry: { type, category, points, action, source, source_ref } };
}

/**
 * Checks an entry before it is recorded (seed 000, "Step 1: validate"). Checked in this order, the
 * first problem is returned: the value is an object; `type` is reward or penalty; `category`
 * matches `LEDGER_CATEGORY_PATTERN` (≤ 64 chars) and is in `registry`; `points` is a non-zero
 * integer with |points| ≤ `MAX_ABS_POINTS`; its sign agrees with the type (reward > 0,
 * penalty < 0); `action`, `source`, `source_ref` are non-blank strings within `MAX_TEXT_CHARS`.
 * Unknown fields are dropped; the text fields are kept as given.
 */
export function checkEntry(input: unknown, registry: ReadonlySet<string>): EntryCheck {
  return parseEntry(input, registry);
}

