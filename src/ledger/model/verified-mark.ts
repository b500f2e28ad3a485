import { createHmac } from 'node:crypto';
import type { LedgerTransaction } from './chain';
import { ownHashHolds, type VerifiedMark } from './chain-check';
import { sameMac } from './checkpoint';

/**
 * A verified mark as a reconciliation stores it (`ledger_verified`), so that another process, or
 * this agent after a restart, verifies only what follows it: the transaction a verification found
 * the chain whole up to (its sequence and hash), how many up to it are keyed, and an HMAC of those
 * with the ledger secret. Only a process holding the secret can write one that is taken.
 */
export interface StoredVerifiedMark {
  sequence: number;
  hash: string;
  keyed: number;
  mac: string;
}

/** hex(HMAC-SHA256(key, JSON ["self-improve-ledger-verified/1", agentId, sequence, hash, keyed])). */
export function verifiedMarkMac(agentId: string, sequence: number, hash: string, keyed: number, key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(['self-improve-ledger-verified/1', agentId, sequence, hash, keyed]), 'utf8').digest('hex');
}

/** `mark` signed with `key` for `agentId`, to store. */
export function signVerifiedMark(mark: VerifiedMark, agentId: string, key: string): StoredVerifiedMark {
  const { sequence, hash } = mark.last;
  return { sequence, hash, keyed: mark.keyed, mac: verifiedMarkMac(agentId, sequence, hash, mark.keyed, key) };
}

/**
 * The mark to verify on from, or null (verify from the first transaction): `stored` when it is
 * signed with `key` for `agentId`, and `tx`, the transaction now at its sequence, is the one it
 * names (same sequence and hash) with its own hash intact (its running total and hash algorithm,
 * which the next transaction is checked against, are as they were hashed).
 */
export function resumableMark(stored: StoredVerifiedMark | null, tx: LedgerTransaction | null, agentId: string, key: string): VerifiedMark | null {
  if (stored === null || tx === null) return null;
  if (!sameMac(stored.mac, verifiedMarkMac(agentId, stored.sequence, stored.hash, stored.keyed, key))) return null;
  if (tx.sequence !== stored.sequence || tx.hash !== stored.hash || !ownHashHolds(tx, key)) return null;
  return { last: tx, keyed: stored.keyed };
}
