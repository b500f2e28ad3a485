import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { LedgerTransaction } from './chain';
import { type ChainCheck, type ChainProblem, verifyChain } from './chain-check';
import { isIsoDateTime } from '../../scan/model/outcome';

/** Format version of a checkpoint document. */
export const CHECKPOINT_VERSION = 1;

/**
 * A signed head checkpoint: where the ledger stood (its length, running total and last hash) at
 * a time, with an HMAC over all of it keyed with the ledger secret. Kept outside the database
 * (a file, another system), it pins every transaction up to `sequence`: whoever rewrites and
 * re-hashes the table without the key cannot make the chain end in `head_hash` again, nor forge
 * a new checkpoint. Snake_case: written as JSON.
 */
export interface LedgerCheckpoint {
  version: typeof CHECKPOINT_VERSION;
  agent_id: string;
  /** The number of transactions up to and including the head (0: an empty ledger). */
  sequence: number;
  running_total: number;
  /** The head transaction's hash (64 zeros for an empty ledger). */
  head_hash: string;
  /** ISO-8601, when the checkpoint was made. */
  at: string;
  /** hex(HMAC-SHA256(utf8(key), utf8(checkpointCanonicalJson(checkpoint)))). */
  mac: string;
}

export type UnsignedCheckpoint = Omit<LedgerCheckpoint, 'mac'>;

const HEX_64 = /^[0-9a-f]{64}$/;

/** A checkpoint document as read from a file: zod at the boundary. */
export const checkpointSchema = z
  .object({
    version: z.literal(CHECKPOINT_VERSION),
    agent_id: z.string().min(1).max(64),
    sequence: z.number().int().nonnegative(),
    running_total: z.number().int(),
    head_hash: z.string().regex(HEX_64, 'must be 64 lowercase hex digits'),
    at: z.string().refine(isIsoDateTime, 'must be an ISO-8601 date-time with a zone'),
    mac: z.string().regex(HEX_64, 'must be 64 lowercase hex digits'),
  })
  .strict();

/** `JSON.stringify` of the signed fields in this fixed order: version, agent_id, sequence, running_total, head_hash, at. */
export function checkpointCanonicalJson(c: UnsignedCheckpoint): string {
  return JSON.stringify({ version: c.version, agent_id: c.agent_id, sequence: c.sequence, running_total: c.running_total, head_hash: c.head_hash, at: c.at });
}

/** `mac = hex(HMAC-SHA256(utf8(key), utf8(checkpointCanonicalJson(c))))`. */
export function checkpointMac(c: UnsignedCheckpoint, key: string): string {
  return createHmac('sha256', key).update(checkpointCanonicalJson(c), 'utf8').digest('hex');
}

/**
 * The checkpoint of a ledger whose transactions are `txs` (in order), made at `atIso`:
 * `sequence = txs.length`, `running_total` and `head_hash` of the last transaction (0 and 64
 * zeros when empty), signed with `key`.
 */
export function makeCheckpoint(agentId: string, txs: readonly LedgerTransaction[], atIso: string, key: string): LedgerCheckpoint {
  const head = txs[txs.length - 1];
  const body: UnsignedCheckpoint = {
    version: CHECKPOINT_VERSION,
    agent_id: agentId,
    sequence: head?.sequence ?? 0,
    running_total: head?.running_total ?? 0,
    head_hash: head?.hash ?? '0'.repeat(64),
    at: atIso,
  };
  return { ...body, mac: checkpointMac(body, key) };
}

export type CheckpointProblemCode = 'forged_checkpoint' | 'other_agent' | 'rows_missing' | 'head_differs' | 'chain_broken';

export type CheckpointCheck =
  | { ok: true; sequence: number; running_total: number }
  | { ok: false; code: CheckpointProblemCode; message: string; chain_problem?: ChainProblem };

/** Whether the hex MAC `given` is `expected`, compared in constant time. */
export function sameMac(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function macMatches(c: LedgerCheckpoint, key: string): boolean {
  return sameMac(c.mac, checkpointMac(c, key));
}

/**
 * Checks a ledger (`txs`, in stored order) against a checkpoint, in this order:
 * `forged_checkpoint` (the MAC is not the key's: the file was edited or made without the key),
 * `other_agent`, `chain_broken` (the transactions up to the checkpoint fail `verifyChain` with the
 * key), `rows_missing` (fewer transactions than the checkpoint counted), `head_differs` (the
 * transaction at the checkpoint's sequence has another hash or running total: the ledger was
 * rewritten up to there). Transactions after the checkpoint are not looked at here.
 */
export function verifyAgainstCheckpoint(txs: readonly LedgerTransaction[], checkpoint: LedgerCheckpoint, key: string, agentId: string): CheckpointCheck {
  const upTo = txs.slice(0, checkpoint.sequence);
  return checkAgainstCheckpoint(verifyChain(upTo, key), upTo[upTo.length - 1] ?? null, upTo.length, checkpoint, key, agentId);
}

/**
 * `verifyAgainstCheckpoint` of a ledger read a page at a time: `chain` is `verifyChain` of its
 * first `checkpoint.sequence` transactions (`ChainVerifier`), of which there are `rows`, the last
 * of them `last`.
 */
export function checkAgainstCheckpoint(chain: ChainCheck, last: LedgerTransaction | null, rows: number, checkpoint: LedgerCheckpoint, key: string, agentId: string): CheckpointCheck {
  if (!macMatches(checkpoint, key)) {
    return { ok: false, code: 'forged_checkpoint', message: 'the checkpoint was not signed with this key: it was edited, or made without the key' };
  }
  if (checkpoint.agent_id !== agentId) {
    return { ok: false, code: 'other_agent', message: `the checkpoint is of agent ${checkpoint.agent_id}, not ${agentId}` };
  }
  if (!chain.ok) return { ok: false, code: 'chain_broken', message: `before the checkpoint: ${chain.first.message}`, chain_problem: chain.first };
  if (rows < checkpoint.sequence) {
    return { ok: false, code: 'rows_missing', message: `the checkpoint counts ${checkpoint.sequence} transactions; the ledger has ${rows}` };
  }
  const headHash = last?.hash ?? '0'.repeat(64);
  const total = last?.running_total ?? 0;
  if (headHash !== checkpoint.head_hash || total !== checkpoint.running_total) {
    return {
      ok: false,
      code: 'head_differs',
      message: `tx-${checkpoint.sequence} has hash ${headHash} and running total ${total}; the checkpoint signed ${checkpoint.head_hash} and ${checkpoint.running_total}: the ledger was rewritten up to it`,
    };
  }
  return { ok: true, sequence: checkpoint.sequence, running_total: checkpoint.running_total };
}

/**
 * The signature of a ledger's head as kept beside it in the database:
 * `hex(HMAC-SHA256(utf8(key), utf8(JSON.stringify(["self-improve-ledger-head/1", agentId, count, lastHash]))))`.
 * Whoever rewrites the table without the key cannot re-sign the head, so a rewrite shows even
 * when every row was re-hashed (an older head and rows put back whole need a checkpoint to show).
 */
export function headMac(agentId: string, count: number, lastHash: string, key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(['self-improve-ledger-head/1', agentId, count, lastHash]), 'utf8').digest('hex');
}

/** Whether `mac` is the head signature of (agentId, count, lastHash) under `key`, compared in constant time. */
export function headMacMatches(mac: string, agentId: string, count: number, lastHash: string, key: string): boolean {
  return sameMac(mac, headMac(agentId, count, lastHash, key));
}
