import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Db, queryRows } from './sql';

/**
 * Keeps each append-only log of one agent to its newest `keep` rows (SELF_IMPROVE_LOG_MAX_ROWS;
 * stored trajectories: SELF_IMPROVE_TRAJECTORY_MAX_ROWS). A prune deletes every row older than the
 * keep-th newest, one indexed statement (`pruneToNewest` for logs keyed by (agent_id, seq), seq
 * growing with each append; a caller's own statement for other stores). It runs after every
 * `pruneEvery` rows appended to a log (a tenth of `keep`, at least one), so a log holds at most
 * `keep + pruneEvery` rows and a prune's cost is spread over the appends that made it necessary.
 */
export class LogRetention {
  private readonly sinceLastPrune = new Map<unknown, number>();
  private readonly pruneEvery: number;

  constructor(
    private readonly agentId: string,
    readonly keep: number,
  ) {
    this.pruneEvery = Math.max(1, Math.floor(keep / 10));
  }

  /** Notes `rows` appended to `table` (on `db`, inside the caller's transaction if it has one) and prunes when due. */
  async noteAppended(db: Db, table: PgTable, rows: number): Promise<number> {
    return this.noteAppendedTo(table, rows, () => pruneToNewest(db, table, this.agentId, this.keep));
  }

  /** Notes `rows` appended to the log `log` (any key) and, when due, runs `prune` (which keeps the newest `keep`); returns how many it deleted. */
  async noteAppendedTo(log: unknown, rows: number, prune: () => Promise<number>): Promise<number> {
    const since = (this.sinceLastPrune.get(log) ?? 0) + rows;
    if (since < this.pruneEvery) {
      this.sinceLastPrune.set(log, since);
      return 0;
    }
    this.sinceLastPrune.set(log, 0);
    return prune();
  }
}

/** Deletes all but the newest `keep` rows (by seq) of one agent in `table`; returns how many went. */
export async function pruneToNewest(db: Db, table: PgTable, agentId: string, keep: number): Promise<number> {
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`WITH cut AS (SELECT seq FROM ${table} WHERE agent_id = ${agentId}::uuid ORDER BY seq DESC OFFSET ${keep} LIMIT 1),
             gone AS (DELETE FROM ${table} WHERE agent_id = ${agentId}::uuid AND seq <= (SELECT seq FROM cut) RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  return Number(rows[0]?.n ?? 0);
}
