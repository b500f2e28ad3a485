import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import type { LedgerTransaction } from './model/chain';
import type { ChainVerifier } from './model/chain-check';
import { type ClaimKey, claimKeyOf } from './model/claims';
import type { StoredFold } from './model/totals';
import { agentLockKey, chunks, type Db, epochMs, jsonRows, queryRows, queryRowsInIndexOrder } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { ledgerTable, ledgerAudit, ledgerFold, ledgerHead, ledgerReconciled, ledgerVerified } from './tables';
import type { StoredVerifiedMark } from './model/verified-mark';
import { type RangeSummary, type RefRange, uuidBound } from './model/ref-ranges';

/**
 * Transactions read per page while verifying (the event loop gets a turn between pages). 1,000 a
 * page were statements of 35–90 ms and 15–20 ms of hashing on the 1M bench database (a full
 * reconciliation's stalls of about 100 ms in bench/stall-trace.ts).
 */
export const VERIFY_PAGE = 500;

/**
 * `column` within `range`: compared as text, or (`uuid`) as a uuid column against the lowest
 * UUIDs the bounds start, which orders the same as their lowercase text and keeps its index.
 */
export function inRefRange(column: SQL, range: RefRange, as: 'text' | 'uuid' = 'text'): SQL {
  const bound = (b: string) => (as === 'uuid' ? sql`${uuidBound(b)}::uuid` : sql`${b}`);
  // A uuid range is always closed (the lowest and highest uuids stand in for "open"): PGlite never
  // analyses, and a one-sided range looks unselective enough for the planner to read every row of
  // the agent through another index (at 1M outcomes, 0.8-1.8 s for the first and the last range).
  const lo = range.lo !== null ? sql`${column} >= ${bound(range.lo)}` : as === 'uuid' ? sql`${column} >= ${LOWEST_UUID}::uuid` : sql`TRUE`;
  const hi = range.hi !== null ? sql`${column} < ${bound(range.hi)}` : as === 'uuid' ? sql`${column} <= ${HIGHEST_UUID}::uuid` : sql`TRUE`;
  return sql`(${lo} AND ${hi})`;
}

const LOWEST_UUID = '00000000-0000-0000-0000-000000000000';
const HIGHEST_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** `pg_advisory_xact_lock(class, key)` class of the ledger of one agent: 'SILG'. */
const LEDGER_LOCK_CLASS = 0x53494c47;


export interface LedgerAuditRecord {
  at: string;
  kind: string;
  details: Record<string, unknown>;
}

/**
 * Rows of one ledger statement that reads or adds index entries at random keys: an INSERT's rows
 * (each adds to `ledger_once` under a random id), a claim lookup's record ids, a source lookup's
 * ids and an incremental reconciliation's page of outcomes (`ledger-sources.ts`). Each such key
 * is a page read on a cold cache, and each statement one synchronous block in PGlite, so the
 * statement's rows bound the stall. At 1M: an INSERT of up to 250 rows was a 79 ms stall (29c2171),
 * a source lookup of 250 ids 123 ms (43b8510), a reconciliation page of 250 97 ms while learning;
 * in a process of its own on that database a page of 250 took 21-36 ms and one of 100 8-16 ms.
 */
export const RANDOM_KEYS_PER_STATEMENT = 100;
const INSERT_BATCH = RANDOM_KEYS_PER_STATEMENT;

/** A key of `eachBatch`'s list written as text, or as a uuid. */
export const asText = (key: string): SQL => sql`${key}`;
export const asUuid = (key: string): SQL => sql`${key}::uuid`;

/**
 * Runs `query` on each RANDOM_KEYS_PER_STATEMENT of `keys` (each written as `cast` makes it, the
 * batch joined into the list `query` puts in its `IN (…)`), handing each batch's rows to `take`,
 * with a turn of the event loop after each statement: lookups run inside appends and beside an
 * ingest. The ledger's claim lookups (`ofRefs`) and its sources' record lookups (`ledger-sources.ts`).
 */
export async function eachBatch<T>(db: Db, keys: readonly string[], cast: (key: string) => SQL, query: (list: SQL) => SQL, take: (rows: T[]) => void): Promise<void> {
  for (const batch of chunks(keys, RANDOM_KEYS_PER_STATEMENT)) {
    take(await queryRows<T>(db, query(sql.join(batch.map(cast), sql`, `))));
    await yieldToEventLoop();
  }
}

/** Transactions per statement when points are summed. */
const SUM_PAGE = 10_000;

/**
 * Where a reconciliation left off: the ledger's length then, and each reconciled source's position
 * (`ReconciledSource.position`); `fullAtMs`, when the last full reconciliation ended (null: never).
 */
export interface ReconcileMark {
  count: number;
  /** The hash of the transaction at `count` then (null: an empty ledger). */
  lastHash: string | null;
  positions: Record<string, number>;
  fullAtMs: number | null;
}

export interface LedgerHead {
  count: number;
  lastHash: string;
  /** `headMac` under the ledger secret, or null when the head was written without one. */
  mac: string | null;
}

/** Signs a head (count, last hash) with the ledger secret, or null when there is none. */
export type HeadSigner = (count: number, lastHash: string) => string | null;

function parse(value: unknown): LedgerTransaction {
  return (typeof value === 'string' ? JSON.parse(value) : value) as LedgerTransaction;
}

/** `LedgerStore.newest`'s query: the `limit` newest transactions of the agent (of `category` only, when given). */
export function newestQuery(agentId: string, limit: number, category?: string): SQL {
  return sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${agentId}::uuid${category === undefined ? sql`` : sql` AND category = ${category}`} ORDER BY sequence DESC LIMIT ${limit}`;
}

/**
 * The rows of one agent's ledger and its head, in the runtime's database. Methods that take a
 * `db` run on it (a transaction holding `lock`); the others on the runtime's database.
 */
export class LedgerStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
  ) {}

  /**
   * Takes the agent's ledger lock until the end of `t`'s transaction: every append, recovery and
   * reconciliation of this ledger, from any process on the database, runs one at a time.
   */
  async lock(t: Db): Promise<void> {
    await t.execute(sql`SELECT pg_advisory_xact_lock(${LEDGER_LOCK_CLASS}, ${agentLockKey(this.agentId)})`);
  }

  /** Appends transactions (consecutive, oldest first) and moves the head (signed by `sign`), inside `t` (which holds the lock). */
  async append(t: Db, txs: readonly LedgerTransaction[], sign: HeadSigner): Promise<void> {
    const last = txs[txs.length - 1];
    if (!last) return;
    for (const batch of chunks(txs, INSERT_BATCH)) {
      await t.execute(
        sql`INSERT INTO ${ledgerTable} (agent_id, sequence, tx_json, source, source_ref, category)
            SELECT ${this.agentId}::uuid, (v.tx_json->>'sequence')::bigint, v.tx_json, v.tx_json->>'source', v.tx_json->>'source_ref', v.tx_json->>'category'
            FROM ${jsonRows(
              batch.map((tx) => ({ tx_json: tx })),
              { tx_json: 'jsonb' },
            )}`,
      );
      await yieldToEventLoop();
    }
    await this.setHead(t, last.sequence, last.hash, sign);
  }

  /** Points the head at (count, lastHash), signed by `sign`; inside `t` (which holds the lock). */
  async setHead(t: Db, count: number, lastHash: string, sign: HeadSigner): Promise<void> {
    await t.execute(
      sql`INSERT INTO ${ledgerHead} (agent_id, count, last_hash, mac) VALUES (${this.agentId}::uuid, ${count}, ${lastHash}, ${sign(count, lastHash)})
          ON CONFLICT (agent_id) DO UPDATE SET count = EXCLUDED.count, last_hash = EXCLUDED.last_hash, mac = EXCLUDED.mac`,
    );
  }

  /**
   * The transactions that already hold these claims, by claim key: one lookup in the unique index
   * per source and RANDOM_KEYS_PER_STATEMENT records (all their categories: the few other ones are left out
   * here), the event loop getting a turn between them. Without table statistics (PGlite never
   * analyses a table) a join with the list of claims is planned as a hash join over the agent's
   * whole ledger, and a condition on the category as a scan of every row of that category.
   */
  async claimed(t: Db, claims: readonly ClaimKey[]): Promise<Map<string, LedgerTransaction>> {
    const wanted = new Set(claims.map(claimKeyOf));
    const refsBySource = new Map<string, Set<string>>();
    for (const c of claims) refsBySource.set(c.source, (refsBySource.get(c.source) ?? new Set<string>()).add(c.source_ref));
    const found = new Map<string, LedgerTransaction>();
    for (const [source, refs] of refsBySource) {
      for (const tx of await this.ofRefs(source, [...refs], t)) {
        const key = claimKeyOf(tx);
        if (wanted.has(key)) found.set(key, tx);
      }
    }
    return found;
  }

  async audit(kind: string, details: Record<string, unknown>, db: Db = this.db, at = new Date().toISOString()): Promise<void> {
    await db.execute(sql`INSERT INTO ${ledgerAudit} (agent_id, at, kind, details) VALUES (${this.agentId}::uuid, ${at}::timestamptz, ${kind}, ${JSON.stringify(details)}::jsonb)`);
  }

  /** Audit records, newest first. */
  async auditLog(limit: number): Promise<LedgerAuditRecord[]> {
    const rows = await queryRows<{ at: string | Date; kind: string; details: unknown }>(
      this.db,
      sql`SELECT at, kind, details FROM ${ledgerAudit} WHERE agent_id = ${this.agentId}::uuid ORDER BY seq DESC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ at: new Date(r.at).toISOString(), kind: r.kind, details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown> }));
  }

  /**
   * Recovery, inside `t` (which holds the lock): moves every row from `sequence` on into an audit
   * record and points the head at the last row kept. Nothing is lost: the rows stay readable in
   * the audit log.
   */
  async quarantineFrom(t: Db, sequence: number, reason: Record<string, unknown>, sign: HeadSigner): Promise<number> {
    const moved = await queryRows<{ tx_json: unknown }>(
      t,
      sql`DELETE FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND sequence >= ${sequence} RETURNING tx_json`,
    );
    await t.execute(
      sql`INSERT INTO ${ledgerAudit} (agent_id, at, kind, details) VALUES (${this.agentId}::uuid, now(), 'quarantine', ${JSON.stringify({ ...reason, from_sequence: sequence, rows: moved.map((m) => parse(m.tx_json)) })}::jsonb)`,
    );
    const tip = await this.last(t);
    if (tip) {
      await this.setHead(t, tip.sequence, tip.hash, sign);
    } else {
      await t.execute(sql`DELETE FROM ${ledgerHead} WHERE agent_id = ${this.agentId}::uuid`);
    }
    return moved.length;
  }

  async head(db: Db = this.db): Promise<LedgerHead | null> {
    const [row] = await queryRows<{ count: number | string; last_hash: string; mac: string | null }>(
      db,
      sql`SELECT count, last_hash, mac FROM ${ledgerHead} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return row ? { count: Number(row.count), lastHash: row.last_hash, mac: row.mac } : null;
  }

  /**
   * Up to `limit` transactions after `sequence`, in sequence order: a page of the ledger. Read by
   * sequence range (`sequence`, `sequence + limit`], so a page costs its own rows whatever the
   * ledger's length (an open `sequence > n ORDER BY sequence LIMIT k` is planned, without table
   * statistics, as a scan of every later row and a sort). Sequences are consecutive in a sound
   * ledger; where rows are missing, the range after the gap is read next.
   */
  async after(sequence: number, limit: number, db: Db = this.db): Promise<LedgerTransaction[]> {
    const page: LedgerTransaction[] = [];
    let from = sequence;
    while (page.length < limit) {
      const want = limit - page.length;
      const rows = await queryRows<{ tx_json: unknown }>(
        db,
        sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND sequence > ${from} AND sequence <= ${from + want} ORDER BY sequence`,
      );
      for (const r of rows) page.push(parse(r.tx_json));
      if (rows.length === want) break;
      // Fewer rows than sequences: the end of the ledger, or a gap in it.
      const next = await this.firstSequenceAfter(from + want, db);
      if (next === null) break;
      from = next - 1;
    }
    return page;
  }

  /** The lowest sequence above `sequence`, or null (min() reads one index entry). */
  private async firstSequenceAfter(sequence: number, db: Db): Promise<number | null> {
    const [row] = await queryRows<{ s: number | string | null }>(db, sql`SELECT min(sequence) AS s FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND sequence > ${sequence}`);
    return row?.s === null || row?.s === undefined ? null : Number(row.s);
  }

  /**
   * The `limit` newest transactions (of `category` only, when given), newest first. With a
   * category, walked backwards along `ledger_category_idx` (`queryRowsInIndexOrder`): without
   * statistics the planner read every transaction of the category and sorted them (30 ms at 100k
   * outcomes, 28,412 false positives; 0.6 ms in index order).
   */
  async newest(limit: number, category?: string, db: Db = this.db): Promise<LedgerTransaction[]> {
    const query = newestQuery(this.agentId, limit, category);
    const rows = await (category === undefined ? queryRows<{ tx_json: unknown }>(db, query) : queryRowsInIndexOrder<{ tx_json: unknown }>(db, query));
    return rows.map((r) => parse(r.tx_json));
  }

  /** The count, points and record-id checksum of `source`'s entries whose record id is in `range` (one indexed aggregate). */
  async rangeSummary(source: string, range: RefRange, db: Db = this.db): Promise<RangeSummary> {
    const [row] = await queryRows<{ n: number | string; points: number | string; checksum: string }>(
      db,
      sql`SELECT count(*) AS n, coalesce(sum((tx_json->>'points')::bigint), 0) AS points, coalesce(sum(hashtext(source_ref)::bigint), 0)::text AS checksum
          FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND source = ${source} AND ${inRefRange(sql`source_ref`, range)}`,
    );
    return { count: Number(row?.n ?? 0), points: Number(row?.points ?? 0), checksum: row?.checksum ?? '0' };
  }

  /** `source`'s transactions whose record id is in `range`, in sequence order. */
  async inRange(source: string, range: RefRange, db: Db = this.db): Promise<LedgerTransaction[]> {
    const rows = await queryRows<{ tx_json: unknown }>(
      db,
      sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND source = ${source} AND ${inRefRange(sql`source_ref`, range)} ORDER BY sequence`,
    );
    return rows.map((r) => parse(r.tx_json));
  }

  /**
   * `source`'s transactions with `after < sequence <= through`, in sequence order (one statement:
   * the caller pages). The source is picked out here, not in SQL: without table statistics a
   * `source = …` condition is planned through `ledger_once`, reading every entry of the source
   * (0.5 s at 1M).
   */
  async sourceBetween(source: string, after: number, through: number, db: Db = this.db): Promise<LedgerTransaction[]> {
    const rows = await queryRows<{ source: string; tx_json: unknown }>(
      db,
      sql`SELECT source, tx_json FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND sequence > ${after} AND sequence <= ${through} ORDER BY sequence`,
    );
    return rows.filter((r) => r.source === source).map((r) => parse(r.tx_json));
  }

  /** Every transaction of `source` for these record ids, in sequence order (through `ledger_once`, a batch of ids per statement: `eachBatch`). */
  async ofRefs(source: string, refs: readonly string[], db: Db = this.db): Promise<LedgerTransaction[]> {
    const txs: LedgerTransaction[] = [];
    await eachBatch<{ tx_json: unknown }>(db, refs, asText, (list) => sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND source = ${source} AND source_ref IN (${list})`, (rows) => {
      for (const r of rows) txs.push(parse(r.tx_json));
    });
    return txs.sort((a, b) => a.sequence - b.sequence);
  }

  /** Where the last reconciliation left off, or null (none yet, or a mark this code cannot read: a range reconciliation then starts again). */
  async reconcileMark(db: Db = this.db): Promise<ReconcileMark | null> {
    const [row] = await queryRows<{ ledger_count: number | string; last_hash: string | null; positions: unknown; full_at_ms: number | null }>(
      db,
      sql`SELECT ledger_count, last_hash, positions, ${epochMs('full_at')} AS full_at_ms FROM ${ledgerReconciled} WHERE agent_id = ${this.agentId}::uuid`,
    );
    if (!row) return null;
    const positions = typeof row.positions === 'string' ? (JSON.parse(row.positions) as unknown) : row.positions;
    if (positions === null || typeof positions !== 'object' || Array.isArray(positions)) return null;
    const entries = Object.entries(positions as Record<string, unknown>);
    if (!entries.every(([, v]) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return null;
    return {
      count: Number(row.ledger_count),
      lastHash: row.last_hash,
      positions: Object.fromEntries(entries) as Record<string, number>,
      fullAtMs: row.full_at_ms === null ? null : Number(row.full_at_ms),
    };
  }

  /** Records where a reconciliation left off, on `t` (it commits with the reconciliation); a full one also records its time. */
  async saveReconcileMark(t: Db, mark: Pick<ReconcileMark, 'count' | 'lastHash' | 'positions'>, full: boolean): Promise<void> {
    const fullAt = full ? sql`now()` : sql`NULL`;
    await t.execute(
      sql`INSERT INTO ${ledgerReconciled} (agent_id, ledger_count, last_hash, positions, full_at)
          VALUES (${this.agentId}::uuid, ${mark.count}, ${mark.lastHash}, ${JSON.stringify(mark.positions)}::jsonb, ${fullAt})
          ON CONFLICT (agent_id) DO UPDATE SET ledger_count = EXCLUDED.ledger_count, last_hash = EXCLUDED.last_hash, positions = EXCLUDED.positions${full ? sql`, full_at = EXCLUDED.full_at` : sql``}`,
    );
  }

  /** The stored verified mark (`ledger_verified`), as stored (its signature not checked), or null. */
  async verifiedMark(): Promise<StoredVerifiedMark | null> {
    const [row] = await queryRows<{ sequence: number | string; hash: string; keyed: number | string; mac: string }>(
      this.db,
      sql`SELECT sequence, hash, keyed, mac FROM ${ledgerVerified} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return row ? { sequence: Number(row.sequence), hash: row.hash, keyed: Number(row.keyed), mac: row.mac } : null;
  }

  /** Replaces the stored verified mark, on `t` (it commits with the reconciliation that verified it). */
  async saveVerifiedMark(t: Db, mark: StoredVerifiedMark): Promise<void> {
    await t.execute(
      sql`INSERT INTO ${ledgerVerified} (agent_id, sequence, hash, keyed, mac) VALUES (${this.agentId}::uuid, ${mark.sequence}, ${mark.hash}, ${mark.keyed}, ${mark.mac})
          ON CONFLICT (agent_id) DO UPDATE SET sequence = EXCLUDED.sequence, hash = EXCLUDED.hash, keyed = EXCLUDED.keyed, mac = EXCLUDED.mac`,
    );
  }

  /** The stored totals (`ledger_fold`), as stored, or null. */
  async storedFold(): Promise<unknown> {
    const [row] = await queryRows<{ fold: unknown }>(this.db, sql`SELECT fold FROM ${ledgerFold} WHERE agent_id = ${this.agentId}::uuid`);
    if (!row) return null;
    return typeof row.fold === 'string' ? JSON.parse(row.fold) : row.fold;
  }

  /** Replaces the stored totals (on `db`: inside an append, they commit with the rows they cover). */
  async storeFold(fold: StoredFold, db: Db = this.db): Promise<void> {
    await db.execute(
      sql`INSERT INTO ${ledgerFold} (agent_id, fold) VALUES (${this.agentId}::uuid, ${JSON.stringify(fold)}::jsonb)
          ON CONFLICT (agent_id) DO UPDATE SET fold = EXCLUDED.fold`,
    );
  }

  /**
   * Feeds the chain after the verifier's mark to it, a page of VERIFY_PAGE at a time, until the end
   * or a problem; the event loop gets a turn between pages (inside a locked transaction too: other
   * queries wait for it either way, and a timer or a request must not).
   */
  async feedVerifier(verifier: ChainVerifier, db: Db = this.db): Promise<void> {
    for (;;) {
      const page = await this.after(verifier.mark?.last.sequence ?? 0, VERIFY_PAGE, db);
      verifier.add(page);
      if (page.length < VERIFY_PAGE || !verifier.ok) return;
      await yieldToEventLoop();
    }
  }

  /** The hash of the transaction at `sequence`, or null when there is none. */
  async hashAt(sequence: number, db: Db = this.db): Promise<string | null> {
    const [row] = await queryRows<{ hash: string | null }>(
      db,
      sql`SELECT tx_json->>'hash' AS hash FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid AND sequence = ${sequence}`,
    );
    return row?.hash ?? null;
  }

  /**
   * Sum of the points of the transactions with `after < sequence <= upTo`, computed in the
   * database a range of SUM_PAGE sequences at a time, the event loop getting a turn between ranges
   * (PGlite runs each statement on the main thread).
   */
  async pointsSum(after: number, upTo: number, db: Db = this.db): Promise<number> {
    let total = 0;
    for (let from = after; from < upTo; from += SUM_PAGE) {
      const [row] = await queryRows<{ total: number | string | null }>(
        db,
        sql`SELECT coalesce(sum((tx_json->>'points')::bigint), 0) AS total FROM ${ledgerTable}
            WHERE agent_id = ${this.agentId}::uuid AND sequence > ${from} AND sequence <= ${Math.min(from + SUM_PAGE, upTo)}`,
      );
      total += Number(row?.total ?? 0);
      await yieldToEventLoop();
    }
    return total;
  }

  /** The last transaction (the tip the next append chains to), read on `db`: inside the lock, it is current. */
  async last(db: Db = this.db): Promise<LedgerTransaction | null> {
    const [row] = await queryRows<{ tx_json: unknown }>(
      db,
      sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${this.agentId}::uuid ORDER BY sequence DESC LIMIT 1`,
    );
    return row ? parse(row.tx_json) : null;
  }
}
