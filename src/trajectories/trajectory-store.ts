import { type SQL, sql } from 'drizzle-orm';
import { ledgerTable } from '../ledger/tables';
import { type Db, queryRows, queryRowsInIndexOrder } from '../shared/sql';
import { type PruneSizes, pruneOldest } from '../shared/log-retention';
import type { PageCursor } from './model/page-cursor';

export const TRAJECTORY_MEMORY_TYPE = 'agent-trajectory';
/**
 * The memory table (memory type) of trajectories. Not `custom`, where lessons live: loading the
 * lessons at start-up must not read every stored transcript.
 */
export const TRAJECTORIES_TABLE = 'trajectories';
/**
 * The index pages, the day's paid sum and retention read trajectories by: one agent's, by storage
 * time then id. plugin-sql's own indexes on `memories` ((type, room_id), metadata type) would
 * leave every page to sort all of the agent's trajectories.
 */
export const TRAJECTORIES_INDEX = 'self_improve_trajectories_newest';

/** The trajectory rows of one agent: the type is a literal, so the planner may use the partial index. */
export const trajectoryRowsOf = (agentId: string): SQL => sql`agent_id = ${agentId}::uuid AND type = ${sql.raw(`'${TRAJECTORIES_TABLE}'`)}`;
/** Whether the trajectory whose metadata is `m` (a column or a trigger's row) was accepted: SQL text, for pages, totals and the triggers alike. */
export const acceptedIn = (m: string) => `${m}->'evaluation'->>'accepted' = 'true'`;
/** What the trajectory whose metadata is `m` was paid, 0 unless it is a JSON number, so malformed metadata never fails a read or a write: SQL text. */
export const paidSatsIn = (m: string) => `CASE WHEN jsonb_typeof(${m}->'paid_sats') = 'number' THEN (${m}->>'paid_sats')::numeric ELSE 0 END`;
const ACCEPTED = sql.raw(acceptedIn('metadata'));

/** A stored trajectory's row as pages read it: the memory's text and metadata, and its position. */
export interface TrajectoryRow {
  id: string;
  createdAt: string;
  text: string;
  metadata: Record<string, unknown>;
}

/**
 * Creates `TRAJECTORIES_INDEX` on plugin-sql's `memories` table when it is missing: a partial
 * index (trajectory rows only), so other memories' writes do not pay for it. Without it (a
 * database user that may not create indexes) every query still answers, only slower.
 */
export async function ensureTrajectoriesIndex(db: Db): Promise<void> {
  await db.execute(sql.raw(`CREATE INDEX IF NOT EXISTS ${TRAJECTORIES_INDEX} ON memories (agent_id, created_at, id) WHERE type = '${TRAJECTORIES_TABLE}'`));
}

/** One page of an agent's trajectories, newest first by (created_at, id): `limit` rows before `before` (the newest without). */
export async function trajectoryPage(db: Db, agentId: string, options: { limit: number; before: PageCursor | null; acceptedOnly?: boolean }): Promise<TrajectoryRow[]> {
  // In index order: PGlite never analyses, and without statistics a page was planned as a sort of every stored trajectory (18 ms for 50 of 10,000).
  const rows = await queryRowsInIndexOrder<{ id: string; created_at: string; text: string | null; metadata: unknown }>(db, trajectoryPageQuery(agentId, options));
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at,
    text: r.text ?? '',
    metadata: (typeof r.metadata === 'string' ? JSON.parse(r.metadata) : (r.metadata ?? {})) as Record<string, unknown>,
  }));
}

/** The statement of `trajectoryPage`. Its ORDER BY names the indexed columns (not the text output `created_at`), so a page is read in index order and stops at `limit`. */
export function trajectoryPageQuery(agentId: string, options: { limit: number; before: PageCursor | null; acceptedOnly?: boolean }): SQL {
  const before = options.before === null ? sql.empty() : sql`AND (created_at, id) < (${options.before.createdAt}::timestamp, ${options.before.id}::uuid)`;
  return sql`SELECT id, created_at::text AS created_at, content->>'text' AS text, metadata FROM memories
      WHERE ${trajectoryRowsOf(agentId)} ${before} ${options.acceptedOnly ? sql`AND ${ACCEPTED}` : sql.empty()}
      ORDER BY memories.created_at DESC, memories.id DESC LIMIT ${options.limit}`;
}

/** Σ paid_sats of the trajectories submitted (HTTP, CLI) and stored at or after `sinceMs`. */
export async function submittedPaidSince(db: Db, agentId: string, sinceMs: number): Promise<number> {
  const [row] = await queryRows<{ paid: string | number | null }>(
    db,
    sql`SELECT COALESCE(SUM(${sql.raw(paidSatsIn('metadata'))}), 0) AS paid FROM memories
        WHERE ${trajectoryRowsOf(agentId)} AND metadata->>'source' IN ('http', 'cli') AND created_at >= ${new Date(sinceMs).toISOString()}::timestamptz`,
  );
  return Number(row?.paid ?? 0);
}

/** Index entries a trajectory prune walks past per statement, and trajectories it deletes per statement (each a memory, with plugin-sql's cascades). */
const TRAJECTORY_PRUNE_SIZES: PruneSizes = { cutStep: 5_000, deleteChunk: 500 };

/**
 * Deletes all but the newest `keep` trajectories of one agent (by created_at, then id: the
 * trajectories index), as the logs are pruned (`pruneOldest`: bounded statements, each committed
 * on its own; one statement that skipped 100,000 entries and deleted 10,000 memories held the
 * event loop for the whole of it); returns how many went. Their ledger entries stay (the ledger is
 * never pruned).
 */
export function pruneTrajectories(db: Db, agentId: string, keep: number, sizes: PruneSizes = TRAJECTORY_PRUNE_SIZES): Promise<number> {
  return pruneOldest<{ created_at: string; id: string }>(
    db,
    {
      rows: sql`FROM memories WHERE ${trajectoryRowsOf(agentId)}`,
      key: sql`(created_at, id)`,
      select: sql`created_at::text AS created_at, id::text AS id`,
      newestFirst: sql`memories.created_at DESC, memories.id DESC`,
      oldestFirst: sql`memories.created_at, memories.id`,
      value: (k) => sql`(${k.created_at}::timestamp, ${k.id}::uuid)`,
    },
    keep,
    sizes,
  );
}

/**
 * Whether the ledger already holds the reward of trajectory `id` (one lookup on its claim index).
 * The ledger outlives the trajectories: a trajectory deleted by retention and sent again has the
 * same id (its content's) and finds its old payment here.
 */
export async function trajectoryPaidBefore(db: Db, agentId: string, id: string): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM ${ledgerTable} WHERE agent_id = ${agentId}::uuid AND source = 'trajectory' AND source_ref = ${id} AND category = 'trajectory_accepted' LIMIT 1`,
  );
  return rows.length > 0;
}
