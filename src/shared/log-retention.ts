import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Db, queryRows, queryRowsInIndexOrder } from './sql';
import { yieldToEventLoop } from './event-loop';

/**
 * Keeps each append-only log of one agent to its newest `keep` rows (SELF_IMPROVE_LOG_MAX_ROWS;
 * stored trajectories: SELF_IMPROVE_TRAJECTORY_MAX_ROWS). A prune deletes every row older than the
 * keep-th newest (`pruneToNewest` for logs keyed by (agent_id, seq), seq growing with each append,
 * in bounded statements; a caller's own statement for other stores), after the append committed,
 * never inside the appending transaction. It runs after every
 * `pruneEvery` rows appended to a log (a tenth of `keep`, at least one), so a log holds at most
 * `keep + pruneEvery` rows and a prune's cost is spread over the appends that made it necessary.
 */
export class LogRetention {
  private readonly sinceLastPrune = new Map<unknown, number>();
  private readonly pruneEvery: number;

  constructor(
    private readonly agentId: string,
    readonly keep: number,
    /**
     * Told of a prune that failed (the rows stay; the next append tries again). Without it the
     * failure is thrown to the appender, whose rows are committed all the same.
     */
    private readonly onPruneFailed?: (error: unknown) => void,
  ) {
    this.pruneEvery = Math.max(1, Math.floor(keep / 10));
  }

  /** Notes `rows` appended to `table` and committed, and prunes when due (on `db`: not a transaction, since a prune commits as it goes). */
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
    try {
      return await prune();
    } catch (error) {
      this.sinceLastPrune.set(log, since);
      if (!this.onPruneFailed) throw error;
      this.onPruneFailed(error);
      return 0;
    }
  }
}

/** Index entries a prune walks past per statement while it looks for its cut (from the newest). */
const CUT_STEP = 5_000;
/** Rows a prune deletes per statement (the oldest first). */
const DELETE_CHUNK = 2_000;

/**
 * Deletes all but the newest `keep` rows (by seq) of one agent in `table`; returns how many went.
 * Bounded statements with a turn of the event loop between them: the cut (the keep-th newest seq)
 * is found CUT_STEP entries at a time, and the rows below it are deleted DELETE_CHUNK at a time,
 * oldest first, each chunk committed on its own; the walks down the index run in index order
 * (`queryRowsInIndexOrder`: with `seq < cut`, the planner without statistics read and sorted every
 * row below the cut, 0.5–0.9 s a step at 1M). One statement that skipped 1M entries to find the cut
 * and deleted 100,000 rows held PGlite, and the event loop with it, for 0.7 s. Rows
 * appended meanwhile are newer than the cut and stay; a prune cut short leaves only older rows.
 */
export async function pruneToNewest(db: Db, table: PgTable, agentId: string, keep: number): Promise<number> {
  const ofAgent = sql`agent_id = ${agentId}::uuid`;
  let cut: number | null = null;
  for (let left = keep; left > 0; ) {
    const step = Math.min(left, CUT_STEP);
    const below: SQL = cut === null ? sql`` : sql`AND seq < ${cut}`;
    const [row]: { seq: number | string }[] = await queryRowsInIndexOrder<{ seq: number | string }>(db, sql`SELECT seq FROM ${table} WHERE ${ofAgent} ${below} ORDER BY seq DESC OFFSET ${step - 1} LIMIT 1`);
    // Fewer than `keep` rows: nothing to delete.
    if (!row) return 0;
    cut = Number(row.seq);
    left -= step;
    if (left > 0) await yieldToEventLoop();
  }
  let deleted = 0;
  for (;;) {
    await yieldToEventLoop();
    const [span] = await queryRowsInIndexOrder<{ lo: number | string | null; hi: number | string | null }>(
      db,
      sql`SELECT min(seq) AS lo, max(seq) AS hi FROM (SELECT seq FROM ${table} WHERE ${ofAgent} AND seq < ${cut} ORDER BY seq LIMIT ${DELETE_CHUNK}) oldest`,
    );
    if (span?.lo === null || span?.lo === undefined) return deleted;
    const [gone] = await queryRows<{ n: number | string }>(
      db,
      sql`WITH gone AS (DELETE FROM ${table} WHERE ${ofAgent} AND seq >= ${Number(span.lo)} AND seq <= ${Number(span.hi)} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    );
    deleted += Number(gone?.n ?? 0);
  }
}
