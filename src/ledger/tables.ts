import { bigint, bigserial, index, jsonb, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/** Refuses a second entry for the same claim: at most one per (agent, source, source record, category). */
export const LEDGER_ONCE_INDEX = 'ledger_once';

/**
 * The reward ledger: one row per transaction, `tx_json` the whole transaction (what the chain
 * hashes); `source`, `source_ref` and `category` are copies of its claim, for the unique index.
 */
export const ledgerTable = pluginSchema.table(
  'ledger',
  {
    agentId: uuid('agent_id').notNull(),
    sequence: bigint('sequence', { mode: 'number' }).notNull(),
    txJson: jsonb('tx_json').notNull(),
    source: text('source').notNull(),
    sourceRef: text('source_ref').notNull(),
    category: text('category').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.sequence] }),
    uniqueIndex(LEDGER_ONCE_INDEX).on(t.agentId, t.source, t.sourceRef, t.category),
    // History of one category, newest first, without reading the others.
    index('ledger_category_idx').on(t.agentId, t.category, t.sequence),
  ],
);

/** The ledger's length and last hash, kept apart from the rows: deleting the last rows is then detected too. */
export const ledgerHead = pluginSchema.table('ledger_head', {
  agentId: uuid('agent_id').primaryKey(),
  count: bigint('count', { mode: 'number' }).notNull(),
  lastHash: text('last_hash').notNull(),
  /** The head's signature under the ledger secret, or null without one. */
  mac: text('mac'),
});

/** Append-only audit records: reconciliation findings, quarantined rows, recoveries. */
export const ledgerAudit = pluginSchema.table(
  'ledger_audit',
  {
    agentId: uuid('agent_id').notNull(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    kind: text('kind').notNull(),
    details: jsonb('details').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.seq] })],
);

/**
 * The totals of an agent's ledger up to a transaction (`StoredFold`), kept so that a new process
 * extends them by the rows appended since instead of reading the whole ledger. Used only while the
 * transaction it names still has the hash it names; `verify` never relies on it.
 */
export const ledgerFold = pluginSchema.table('ledger_fold', {
  agentId: uuid('agent_id').primaryKey(),
  fold: jsonb('fold').notNull(),
});

/**
 * Where the last reconciliation of an agent's ledger left off (`ReconcileMark`): the ledger's
 * length and the hash of its last transaction, each reconciled source's position (the newest record it had then), so the next
 * incremental reconciliation, in this process or another, compares only what is newer; and when
 * the last full one ran.
 */
export const ledgerReconciled = pluginSchema.table('ledger_reconciled', {
  agentId: uuid('agent_id').primaryKey(),
  ledgerCount: bigint('ledger_count', { mode: 'number' }).notNull(),
  /** The hash of the transaction at `ledger_count` then (null for an empty ledger): a mark whose transaction changed since is not gone on from. */
  lastHash: text('last_hash'),
  positions: jsonb('positions').notNull(),
  fullAt: timestamp('full_at', { withTimezone: true }),
});

/**
 * The last transaction a reconciliation found the chain whole up to, signed with the ledger secret
 * (`StoredVerifiedMark`): a new process's first checkpoint and incremental reconciliation verify
 * only what follows it. Written only when there is a secret.
 */
export const ledgerVerified = pluginSchema.table('ledger_verified', {
  agentId: uuid('agent_id').primaryKey(),
  sequence: bigint('sequence', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  keyed: bigint('keyed', { mode: 'number' }).notNull(),
  mac: text('mac').notNull(),
});

export const ledgerTables = { ledger: ledgerTable, ledgerHead, ledgerAudit, ledgerFold, ledgerReconciled, ledgerVerified };
