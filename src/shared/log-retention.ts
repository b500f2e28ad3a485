import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Db, queryRows } from './sql';

/**
 * Keeps each append-only log of one agent to its newest `keep` rows (SELF_IMPROVE_LOG_MAX_ROWS).
 * Logs are keyed by (agent_id, seq), seq growing with each append; a prune deletes every row at or
 * below the (keep+1)-th newest seq, one indexed statement. It runs after every `pruneEvery` rows
 * appended to a log (a tenth of `keep`, at least one), so a log holds at most `keep + pruneEvery`
 * rows and a prune's cost is spread over the appends that made it necessary.
 */
export class LogRetention {
  private readonly sinceLastPrune = new Map<PgTable, number>();
  private readonly pruneEvery: number;

  constructor(
    private readonly agentId: string,
    readonly keep: number,
  ) {
    this.pruneEvery = Math.max(1, Math.floor(keep / 10));
  }

  /** Notes `rows` appended to `table` (on `db`, inside the caller's transaction if it has one) and prunes when due. */
  async noteAppended(db: Db, table: PgTable, rows: number): Promise<number> {
    const since = (this.sinceLastPrune.get(table) ?? 0) + rows;
    if (since < this.pruneEvery) {
      this.sinceLastPrune.set(table, since);
      return 0;
    }
    this.sinceLastPrune.set(table, 0);
    return pruneToNewest(db, table, this.agentId, this.keep);
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
