import { createHash, createHmac } from 'node:crypto';
import { isIsoDateTime } from '../../scan/model/outcome';
import { LEDGER_CATEGORY_PATTERN, type LedgerEntryInput, parseEntry, show } from './entry';

/** `prev_hash` of the first transaction: 64 zeros. */
export const GENESIS_PREV_HASH = '0'.repeat(64);

/**
 * How a transaction's `hash` was made. Absent (every transaction written before keys existed, and
 * every one written without a key): SHA-256, which anyone can recompute, so it detects accidental
 * corruption only. `hmac-sha256`: HMAC-SHA256 keyed with the ledger secret, which nobody without
 * the key can recompute after an edit.
 */
export const KEYED_HASH_ALG = 'hmac-sha256';

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

export type ChainProblemCode =
  | 'bad_id'
  | 'duplicate_id'
  | 'sequence_gap'
  | 'bad_hash'
  | 'key_required'
  | 'unkeyed_after_keyed'
  | 'broken_link'
  | 'bad_running_total'
  | 'bad_sign'
  | 'bad_category';

/** The first bad transaction of a chain: its stored sequence and id, what is wrong, and why. */
export interface ChainProblem {
  sequence: number;
  id: string;
  code: ChainProblemCode;
  message: string;
}

/** `keyed`: how many transactions carry a keyed hash (checked with the key). */
export type ChainCheck = { ok: true; count: number; total: number; keyed: number } | { ok: false; first: ChainProblem; checked: number };

/** The first problem with a transaction's hash: its algorithm, the key it needs, then the value. */
function hashProblem(tx: LedgerTransaction, previous: LedgerTransaction | null, key: string | null): [ChainProblemCode, string] | null {
  if (tx.hash_alg !== undefined && tx.hash_alg !== KEYED_HASH_ALG) return ['bad_hash', `hash_alg ${show(tx.hash_alg)} is not ${KEYED_HASH_ALG} (nor absent, for SHA-256)`];
  if (tx.hash_alg === undefined && previous?.hash_alg === KEYED_HASH_ALG) {
    return ['unkeyed_after_keyed', `plain SHA-256 after the keyed ${previous.id}: a keyed ledger never goes back to unkeyed hashes, so this row was forged without the key`];
  }
  if (tx.hash_alg === KEYED_HASH_ALG && key === null) return ['key_required', `the hash is keyed (${KEYED_HASH_ALG}) and no key was given to check it`];
  if (typeof tx.hash !== 'string' || tx.hash !== transactionHash(tx, key)) {
    const why = tx.hash_alg === KEYED_HASH_ALG ? 'a field was edited, or the key is not the one it was written with' : 'a field was edited';
    return ['bad_hash', `hash does not match the contents: ${why}`];
  }
  return null;
}

function problemOf(tx: LedgerTransaction, previous: LedgerTransaction | null, seenIds: ReadonlySet<string>, key: string | null): ChainProblem | null {
  const at = (code: ChainProblemCode, message: string): ChainProblem => ({ sequence: tx.sequence, id: tx.id, code, message: `${tx.id}: ${message}` });
  if (!Number.isSafeInteger(tx.sequence) || tx.sequence < 1 || tx.id !== `tx-${tx.sequence}`) {
    return at('bad_id', `id must be "tx-<sequence>" with a positive integer sequence (sequence ${show(tx.sequence)}, id ${show(tx.id)})`);
  }
  if (seenIds.has(tx.id)) return at('duplicate_id', 'the id appears earlier in the chain; ids are never reused');
  const expectedSequence = previous === null ? 1 : previous.sequence + 1;
  if (tx.sequence !== expectedSequence) {
    return at('sequence_gap', `sequence ${tx.sequence} where ${expectedSequence} was expected: a row is missing, moved or inserted`);
  }
  const badHash = hashProblem(tx, previous, key);
  if (badHash !== null) return at(...badHash);
  const expectedPrev = previous?.hash ?? GENESIS_PREV_HASH;
  if (tx.prev_hash !== expectedPrev) {
    const of = previous === null ? 'must be 64 zeros for the first transaction' : `must equal the hash of ${previous.id}`;
    return at('broken_link', `prev_hash ${of}: the row before was rewritten, or this row was forged`);
  }
  const expectedTotal = (previous?.running_total ?? 0) + tx.points;
  if (tx.running_total !== expectedTotal) {
    return at('bad_running_total', `running_total ${show(tx.running_total)} must be ${previous?.running_total ?? 0} + ${show(tx.points)} = ${expectedTotal}`);
  }
  const signOk = Number.isSafeInteger(tx.points) && ((tx.type === 'reward' && tx.points > 0) || (tx.type === 'penalty' && tx.points < 0));
  if (!signOk) {
    return at('bad_sign', `type ${show(tx.type)} with points ${show(tx.points)}: a reward needs integer points > 0, a penalty integer points < 0`);
  }
  if (!LEDGER_CATEGORY_PATTERN.test(tx.category)) {
    return at('bad_category', `category ${show(tx.category)} does not match ${LEDGER_CATEGORY_PATTERN.source}`);
  }
  return null;
}

/**
 * Verifies a ledger in its stored order and names the FIRST bad transaction. Each one is checked
 * in this order: `bad_id` (id ≠ `tx-<sequence>`), `duplicate_id`, `sequence_gap` (sequence ≠
 * previous + 1, or ≠ 1 first), the hash — `unkeyed_after_keyed` (a SHA-256 row after a keyed
 * one), `key_required` (a keyed row and `key` null), `bad_hash` (an unknown `hash_alg`, or hash ≠
 * transactionHash(tx, key)) — `broken_link` (prev_hash ≠
 * previous hash, or ≠ 64 zeros first), `bad_running_total` (≠ previous total + points),
 * `bad_sign`, `bad_category` (pattern only: a category later removed from the registry does not
 * invalidate history). `checked` counts the transactions that passed before the bad one; `total`
 * is the last running_total (0 when empty). Timestamps are not required to be ordered.
 *
 * What a chain alone cannot show: the last rows deleted, or (unkeyed) the last row edited with its
 * hash recomputed, or (unkeyed) the whole table rewritten and re-hashed. The caller keeps the head
 * (`count` and the last `hash`) elsewhere and compares; a signed checkpoint kept outside the
 * database (`verifyAgainstCheckpoint`) pins the chain up to it against a rewrite.
 */
export function verifyChain(txs: readonly LedgerTransaction[], key: string | null = null): ChainCheck {
  const seenIds = new Set<string>();
  let previous: LedgerTransaction | null = null;
  let keyed = 0;
  for (const [index, tx] of txs.entries()) {
    const problem = problemOf(tx, previous, seenIds, key);
    if (problem !== null) return { ok: false, first: problem, checked: index };
    seenIds.add(tx.id);
    if (tx.hash_alg === KEYED_HASH_ALG) keyed++;
    previous = tx;
  }
  return { ok: true, count: txs.length, total: previous?.running_total ?? 0, keyed };
}
