import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import type { LedgerTransaction } from '../domain/ledger-chain';
import { chunks, type Db, ensureSchema, queryRows } from './sql';

export const LEDGER_TABLE = 'self_improve_ledger';
/** The ledger's length and last hash, kept apart from the rows: deleting the last rows is then detected too. */
export const LEDGER_HEAD_TABLE = 'self_improve_ledger_head';
/** Append-only audit records: reconciliation findings, quarantined rows, recoveries. */
export const LEDGER_AUDIT_TABLE = 'self_improve_ledger_audit';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${LEDGER_TABLE} (
    agent_id uuid NOT NULL,
    sequence bigint NOT NULL,
    tx_json jsonb NOT NULL,
    PRIMARY KEY (agent_id, sequence)
  )`,
  `CREATE TABLE IF NOT EXISTS ${LEDGER_HEAD_TABLE} (
    agent_id uuid PRIMARY KEY,
    count bigint NOT NULL,
    last_hash text NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${LEDGER_AUDIT_TABLE} (
    agent_id uuid NOT NULL,
    seq bigserial NOT NULL,
    at timestamptz NOT NULL,
    kind text NOT NULL,
    details jsonb NOT NULL,
    PRIMARY KEY (agent_id, seq)
  )`,
];

export interface LedgerAuditRecord {
  at: string;
  kind: string;
  details: Record<string, unknown>;
}

/** Rows per INSERT statement. */
const INSERT_BATCH = 1_000;

export interface LedgerHead {
  count: number;
  lastHash: string;
}

function parse(value: unknown): LedgerTransaction {
  return (typeof value === 'string' ? JSON.parse(value) : value) as LedgerTransaction;
}

/** The rows of one agent's ledger and its head, in the runtime's database. */
export class LedgerStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
  ) {}

  async ensureSchema(): Promise<void> {
    await ensureSchema(this.db, SCHEMA);
  }

  /** Appends transactions (consecutive, oldest first) and moves the head in one database transaction: all or none. */
  async append(txs: readonly LedgerTransaction[]): Promise<void> {
    const last = txs[txs.length - 1];
    if (!last) return;
    await this.db.transaction(async (t) => {
      for (const batch of chunks(txs, INSERT_BATCH)) {
        const values = sql.join(
          batch.map((tx) => sql`(${this.agentId}::uuid, ${tx.sequence}, ${JSON.stringify(tx)}::jsonb)`),
          sql`, `,
        );
        await t.execute(sql`INSERT INTO ${sql.raw(LEDGER_TABLE)} (agent_id, sequence, tx_json) VALUES ${values}`);
      }
      await t.execute(
        sql`INSERT INTO ${sql.raw(LEDGER_HEAD_TABLE)} (agent_id, count, last_hash) VALUES (${this.agentId}::uuid, ${last.sequence}, ${last.hash})
            ON CONFLICT (agent_id) DO UPDATE SET count = EXCLUDED.count, last_hash = EXCLUDED.last_hash`,
      );
    });
  }

  async audit(kind: string, details: Record<string, unknown>, at = new Date().toISOString()): Promise<void> {
    await this.db.execute(sql`INSERT INTO ${sql.raw(LEDGER_AUDIT_TABLE)} (agent_id, at, kind, details) VALUES (${this.agentId}::uuid, ${at}::timestamptz, ${kind}, ${JSON.stringify(details)}::jsonb)`);
  }

  /** Audit records, newest first. */
  async auditLog(limit: number): Promise<LedgerAuditRecord[]> {
    const rows = await queryRows<{ at: string | Date; kind: string; details: unknown }>(
      this.db,
      sql`SELECT at, kind, details FROM ${sql.raw(LEDGER_AUDIT_TABLE)} WHERE agent_id = ${this.agentId}::uuid ORDER BY seq DESC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ at: new Date(r.at).toISOString(), kind: r.kind, details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown> }));
  }

  /**
   * Recovery: moves every row from `sequence` on into an audit record and points the head at the
   * last row kept, in one database transaction. Nothing is lost: the rows stay readable in the audit log.
   */
  async quarantineFrom(sequence: number, reason: Record<string, unknown>): Promise<number> {
    return this.db.transaction(async (t) => {
      const moved = await queryRows<{ tx_json: unknown }>(
        t,
        sql`DELETE FROM ${sql.raw(LEDGER_TABLE)} WHERE agent_id = ${this.agentId}::uuid AND sequence >= ${sequence} RETURNING tx_json`,
      );
      await t.execute(
        sql`INSERT INTO ${sql.raw(LEDGER_AUDIT_TABLE)} (agent_id, at, kind, details) VALUES (${this.agentId}::uuid, now(), 'quarantine', ${JSON.stringify({ ...reason, from_sequence: sequence, rows: moved.map((m) => parse(m.tx_json)) })}::jsonb)`,
      );
      const [last] = await queryRows<{ tx_json: unknown }>(
        t,
        sql`SELECT tx_json FROM ${sql.raw(LEDGER_TABLE)} WHERE agent_id = ${this.agentId}::uuid ORDER BY sequence DESC LIMIT 1`,
      );
      if (last) {
        const tip = parse(last.tx_json);
        await t.execute(sql`UPDATE ${sql.raw(LEDGER_HEAD_TABLE)} SET count = ${tip.sequence}, last_hash = ${tip.hash} WHERE agent_id = ${this.agentId}::uuid`);
      } else {
        await t.execute(sql`DELETE FROM ${sql.raw(LEDGER_HEAD_TABLE)} WHERE agent_id = ${this.agentId}::uuid`);
      }
      return moved.length;
    });
  }

  async head(): Promise<LedgerHead | null> {
    const [row] = await queryRows<{ count: number | string; last_hash: string }>(
      this.db,
      sql`SELECT count, last_hash FROM ${sql.raw(LEDGER_HEAD_TABLE)} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return row ? { count: Number(row.count), lastHash: row.last_hash } : null;
  }

  /** Every transaction in stored order (by sequence). */
  async all(): Promise<LedgerTransaction[]> {
    const rows = await queryRows<{ tx_json: unknown }>(
      this.db,
      sql`SELECT tx_json FROM ${sql.raw(LEDGER_TABLE)} WHERE agent_id = ${this.agentId}::uuid ORDER BY sequence`,
    );
    return rows.map((r) => parse(r.tx_json));
  }

  /** Sum of every transaction's points, computed in the database (start-up reads no rows). */
  async pointsSum(): Promise<number> {
    const [row] = await queryRows<{ total: number | string | null }>(
      this.db,
      sql`SELECT coalesce(sum((tx_json->>'points')::bigint), 0) AS total FROM ${sql.raw(LEDGER_TABLE)} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return Number(row?.total ?? 0);
  }

  async last(): Promise<LedgerTransaction | null> {
    const [row] = await queryRows<{ tx_json: unknown }>(
      this.db,
      sql`SELECT tx_json FROM ${sql.raw(LEDGER_TABLE)} WHERE agent_id = ${this.agentId}::uuid ORDER BY sequence DESC LIMIT 1`,
    );
    return row ? parse(row.tx_json) : null;
  }
}
