import { createHash, createHmac } from 'node:crypto';
import { isIsoDateTime } from '../../scan/model/outcome';

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

/** `prev_hash` of the first transaction: 64 zeros. */
export const GENESIS_PREV_HASH = '0'.repeat(64);

/**
 * How a transaction's `hash` was made. Absent (every transaction written before keys existed, and
 * every one written without a key): SHA-256, which anyone can recompute, so it detects accidental
 * corruption only. `hmac-sha256`: HMAC-SHA256 keyed with the ledger secret, which nobody without
 * the key can recompute after an edit.
 */
export const KEYED_HASH_ALG = 'hmac-sha256';

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

/** One row of the ledger, field names as printed in `progress.json` (seed 000): the entry plus what the ledger adds. */
export interface LedgerTransaction extends LedgerEntryInput {
  /** `tx-<sequence>`. */
  id: string;
  /** 1, 2, 3 … in append order, never reused. */
  sequence: number;
  /** ISO-8601, given by the caller. */
  timestamp: string;
  /** The previous transaction's running_total (0 before the first) + points. */
  running_total: number;
  /** True for every transaction made by `nextTransaction`: its entry passed the entry checks. */
  verified: boolean;
  /** `hash` of the previous transaction, or `GENESIS_PREV_HASH` for the first. */
  prev_hash: string;
  /** `KEYED_HASH_ALG` when the hash is keyed; absent when it is plain SHA-256. Hashed like the other fields. */
  hash_alg?: typeof KEYED_HASH_ALG;
  /** `transactionHash` of every other field. */
  hash: string;
}

export type UnhashedTransaction = Omit<LedgerTransaction, 'hash'>;

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

/** A value as quoted in an error message, cut to 60 characters. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function fail(code: EntryErrorCode, field: string, message: string): EntryError {
  return { ok: false, code, field, message };
}

/** The first problem of an entry, in field order; the registry check is skipped when it is null. */
function parseEntry(input: unknown, registry: ReadonlySet<string> | null): EntryCheck {
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

/** Exhaustive table of the hashed fields; its key order is the canonical order. */
const HASHED_FIELDS: Record<keyof UnhashedTransaction, true> = {
  id: true,
  sequence: true,
  timestamp: true,
  type: true,
  category: true,
  points: true,
  action: true,
  source: true,
  source_ref: true,
  running_total: true,
  verified: true,
  prev_hash: true,
  hash_alg: true,
};
export const HASHED_FIELD_ORDER = Object.keys(HASHED_FIELDS) as (keyof UnhashedTransaction)[];

/**
 * The canonical JSON of a transaction: `JSON.stringify` of an object holding exactly the fields
 * of `HASHED_FIELD_ORDER`, in that order (so `hash` and any unknown field are left out; an absent
 * `hash_alg` is left out too, so transactions written before it existed hash as they always did).
 */
export function canonicalTransactionJson(tx: UnhashedTransaction): string {
  return JSON.stringify(Object.fromEntries(HASHED_FIELD_ORDER.map((field) => [field, tx[field]])));
}

/**
 * `hash = hex(SHA-256(utf8(canonicalTransactionJson(tx))))` when `tx.hash_alg` is absent, and
 * `hex(HMAC-SHA256(utf8(key), utf8(canonicalTransactionJson(tx))))` when it is `hmac-sha256`;
 * covers prev_hash, so it chains. Throws a RangeError for a keyed transaction without a key
 * (callers check `hash_alg` first: a programmer error).
 */
export function transactionHash(tx: UnhashedTransaction, key: string | null = null): string {
  const canonical = canonicalTransactionJson(tx);
  if (tx.hash_alg === undefined) return createHash('sha256').update(canonical, 'utf8').digest('hex');
  if (key === null) throw new RangeError(`transactionHash: ${tx.id} is keyed (${KEYED_HASH_ALG}) and no key was given`);
  return createHmac('sha256', key).update(canonical, 'utf8').digest('hex');
}

/**
 * The transaction that records `entry` after `previous` (null for the first):
 * `sequence = previous.sequence + 1` (1 first), `id = tx-<sequence>`,
 * `running_total = previous.running_total + points` (points first),
 * `prev_hash = previous.hash` (`GENESIS_PREV_HASH` first), `verified = true`,
 * `hash_alg = hmac-sha256` when a `key` is given (absent without one),
 * `hash = transactionHash(all of that, key)`. Throws a RangeError on an entry that `checkEntry` would
 * refuse for any reason but the registry, or on a timestamp that is not ISO-8601 with a zone:
 * callers check entries first, so either is a programmer error.
 */
export function nextTransaction(previous: LedgerTransaction | null, entry: LedgerEntryInput, timestamp: string, key: string | null = null): LedgerTransaction {
  const checked = parseEntry(entry, null);
  if (!checked.ok) throw new RangeError(`nextTransaction: ${checked.message}`);
  if (typeof timestamp !== 'string' || !isIsoDateTime(timestamp)) {
    throw new RangeError(`nextTransaction: timestamp must be an ISO-8601 date-time with a zone, e.g. 2026-01-02T03:04:05Z (got ${show(timestamp)})`);
  }
  const { type, category, points, action, source, source_ref } = checked.entry;
  const sequence = previous === null ? 1 : previous.sequence + 1;
  const running_total = (previous?.running_total ?? 0) + points;
  if (!Number.isSafeInteger(running_total)) {
    throw new RangeError(`nextTransaction: running_total ${running_total} is not a safe integer`);
  }
  const body: UnhashedTransaction = {
    id: `tx-${sequence}`,
    sequence,
    timestamp,
    type,
    category,
    points,
    action,
    source,
    source_ref,
    running_total,
    verified: true,
    prev_hash: previous?.hash ?? GENESIS_PREV_HASH,
    ...(key === null ? {} : { hash_alg: KEYED_HASH_ALG }),
  };
  return { ...body, hash: transactionHash(body, key) };
}
