import { GENESIS_PREV_HASH, KEYED_HASH_ALG, LEDGER_CATEGORY_PATTERN, type LedgerTransaction, show, transactionHash } from './chain';

// Verification of a stored chain (seed 000): every transaction checked against the one before it,
// the first bad one named.

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

/** Whether `tx`'s hash is that of its contents (under `key` when keyed): nothing in it was edited since it was hashed. */
export function ownHashHolds(tx: LedgerTransaction, key: string | null): boolean {
  return hashProblem(tx, null, key) === null;
}

function problemOf(tx: LedgerTransaction, previous: LedgerTransaction | null, key: string | null): ChainProblem | null {
  const at = (code: ChainProblemCode, message: string): ChainProblem => ({ sequence: tx.sequence, id: tx.id, code, message: `${tx.id}: ${message}` });
  if (!Number.isSafeInteger(tx.sequence) || tx.sequence < 1 || tx.id !== `tx-${tx.sequence}`) {
    return at('bad_id', `id must be "tx-<sequence>" with a positive integer sequence (sequence ${show(tx.sequence)}, id ${show(tx.id)})`);
  }
  // Every id before is tx-1 … tx-<previous.sequence> (each checked like this one), so an id at or
  // below the previous sequence was seen: no set of ids is kept, whatever the ledger's length.
  if (previous !== null && tx.sequence <= previous.sequence) return at('duplicate_id', 'the id appears earlier in the chain; ids are never reused');
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
  return new ChainVerifier(key).add(txs).result();
}

/** The last transaction of a verified prefix of a chain, and how many of that prefix are keyed. */
export interface VerifiedMark {
  last: LedgerTransaction;
  keyed: number;
}

/**
 * `verifyChain` fed a page at a time, in stored order: it keeps only the previous transaction and
 * three counts, so a ledger of any length is verified in bounded memory. After a problem, later
 * pages are ignored.
 */
export class ChainVerifier {
  private previous: LedgerTransaction | null = null;
  private count = 0;
  private keyed = 0;
  private problem: ChainProblem | null = null;

  constructor(private readonly key: string | null = null) {}

  /**
   * A verifier that continues after `mark`: the transactions up to `mark.last` were verified
   * earlier (`keyed` of them keyed), so the next page starts at its sequence + 1.
   */
  static resume(key: string | null, mark: VerifiedMark | null): ChainVerifier {
    const verifier = new ChainVerifier(key);
    if (mark !== null) {
      verifier.previous = mark.last;
      verifier.count = mark.last.sequence;
      verifier.keyed = mark.keyed;
    }
    return verifier;
  }

  /** Where this verifier stands: resume from it to verify only what comes after. */
  get mark(): VerifiedMark | null {
    return this.previous === null ? null : { last: this.previous, keyed: this.keyed };
  }

  add(txs: readonly LedgerTransaction[]): this {
    for (const tx of txs) {
      if (this.problem !== null) return this;
      this.problem = problemOf(tx, this.previous, this.key);
      if (this.problem !== null) return this;
      if (tx.hash_alg === KEYED_HASH_ALG) this.keyed++;
      this.count++;
      this.previous = tx;
    }
    return this;
  }

  /** False once a bad transaction was found. */
  get ok(): boolean {
    return this.problem === null;
  }

  /** The last transaction that passed. */
  get last(): LedgerTransaction | null {
    return this.previous;
  }

  result(): ChainCheck {
    if (this.problem !== null) return { ok: false, first: this.problem, checked: this.count };
    return { ok: true, count: this.count, total: this.previous?.running_total ?? 0, keyed: this.keyed };
  }
}
