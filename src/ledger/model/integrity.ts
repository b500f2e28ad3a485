import { KEYED_HASH_ALG, type LedgerTransaction, transactionHash } from './chain';
import { type ChainCheck, type ChainProblem, verifyChain } from './chain-check';
import { headMacMatches } from './checkpoint';

/** The ledger's head as stored beside its rows: its length, last hash and signature (null when written without a key). */
export interface SignedHead {
  count: number;
  lastHash: string;
  mac: string | null;
}

/** How the chain is protected: every transaction keyed, none, or the older ones unkeyed. */
export type LedgerIntegrity = 'keyed' | 'unkeyed' | 'partly_keyed';

/**
 * What is wrong with the head: it does not match the rows (`head_mismatch`), or — with a key — a
 * ledger holding keyed rows has a head without a signature (`head_unsigned`), or a signature the
 * key did not make (`head_forged`).
 */
export type HeadProblem = { sequence: number; id: string; code: 'head_mismatch' | 'head_unsigned' | 'head_forged'; message: string };

/** A whole ledger verified: the chain, then the head kept apart from the rows (so deleted last rows show too). */
export type LedgerVerification =
  | { ok: true; count: number; total: number; keyed: number; integrity: LedgerIntegrity; note: string }
  | { ok: false; first: ChainProblem | HeadProblem; checked: number };

const UNKEYED_NOTE = 'unkeyed: detects accidental corruption only; anyone who can write the table can rewrite and re-hash it';

/** What the protection of a verified ledger of `count` transactions, `keyed` of them keyed, amounts to, in words. */
export function integrityOf(count: number, keyed: number, hasKey: boolean): { integrity: LedgerIntegrity; note: string } {
  if (keyed === 0 && hasKey && count > 0) {
    return { integrity: 'unkeyed', note: `${UNKEYED_NOTE}. SELF_IMPROVE_LEDGER_SECRET is set and no transaction is keyed yet: the ledger predates the key, or was rewritten without it (a signed checkpoint tells)` };
  }
  if (keyed === 0 && !hasKey) return { integrity: 'unkeyed', note: `${UNKEYED_NOTE} (set SELF_IMPROVE_LEDGER_SECRET)` };
  if (keyed < count) {
    return {
      integrity: 'partly_keyed',
      note: `transactions 1 to ${count - keyed} are unkeyed (written before SELF_IMPROVE_LEDGER_SECRET was set): they detect accidental corruption only, unless a signed checkpoint covers them; the other ${keyed} are keyed (HMAC-SHA256)`,
    };
  }
  return { integrity: 'keyed', note: 'keyed (HMAC-SHA256): a rewrite without the key fails verification' };
}

/**
 * Verifies a ledger: `verifyChain(txs, key)`, then the head — `head_mismatch` when its count or
 * last hash differ from the rows; with a key, `head_unsigned` when keyed rows exist and it has no
 * signature (every keyed append signs it; a ledger older than its key has none until then), and
 * `head_forged` when its signature is not `headMac` under the key.
 */
export function verifyLedger(txs: readonly LedgerTransaction[], head: SignedHead | null, key: string | null, agentId: string): LedgerVerification {
  return verifyAgainstHead(verifyChain(txs, key), txs.at(-1) ?? null, head, key, agentId);
}

/** `verifyLedger` of a chain already checked (`chain`, whose last transaction is `last`): the head checks. */
export function verifyAgainstHead(chain: ChainCheck, last: LedgerTransaction | null, head: SignedHead | null, key: string | null, agentId: string): LedgerVerification {
  if (!chain.ok) return chain;
  const sequence = chain.count + 1;
  const problem = (code: HeadProblem['code'], message: string): LedgerVerification => ({ ok: false, checked: chain.count, first: { sequence, id: `tx-${sequence}`, code, message } });
  if ((head?.count ?? 0) !== chain.count || (last && head?.lastHash !== last.hash)) {
    return problem('head_mismatch', `the head records ${head?.count ?? 0} transactions ending in ${head?.lastHash ?? 'nothing'}; the log has ${chain.count}`);
  }
  if (key !== null && head) {
    if (head.mac === null && chain.keyed > 0) return problem('head_unsigned', 'the ledger holds keyed transactions and its head carries no signature: it was rewritten by someone without the key');
    if (head.mac !== null && !headMacMatches(head.mac, agentId, head.count, head.lastHash, key)) {
      return problem('head_forged', "the head signature is not the key's: the ledger was rewritten (or signed with another key)");
    }
  }
  return { ...chain, ...integrityOf(chain.count, chain.keyed, key !== null) };
}

/**
 * Why nothing may be appended to (or recovered in) a ledger, or null: it is keyed — its tip is
 * HMAC-SHA256 or its head is signed — and there is no key, or a key that does not verify the tip,
 * or its head is unsigned or not signed by the key (every keyed append signs it).
 */
export function keyProblemOf(tip: LedgerTransaction | null, head: SignedHead | null, key: string | null, agentId: string): string | null {
  const keyedTip = tip?.hash_alg === KEYED_HASH_ALG ? tip : null;
  const mac = head?.mac ?? null;
  if (keyedTip === null && mac === null) return null;
  if (key === null) return `the reward ledger is keyed (${keyedTip ? `${keyedTip.id} is HMAC-SHA256` : 'its head is signed'}) and SELF_IMPROVE_LEDGER_SECRET is not set`;
  if (keyedTip && transactionHash(keyedTip, key) !== keyedTip.hash) {
    return `SELF_IMPROVE_LEDGER_SECRET is not the key the reward ledger was written with (${keyedTip.id} does not verify under it)`;
  }
  if (head && (mac === null || !headMacMatches(mac, agentId, head.count, head.lastHash, key))) {
    return 'the reward ledger head is not signed by SELF_IMPROVE_LEDGER_SECRET: it was rewritten without the key (or signed with another)';
  }
  return null;
}
