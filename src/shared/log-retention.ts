import type { IAgentRuntime } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Db, queryRows, queryRowsInIndexOrder } from './sql';
import { yieldToEventLoop } from './event-loop';
import { errorText } from './error-text';

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

/** A service's retention of `keep` rows per log: a failed prune is logged under `src` (the rows stay; the next append tries again). */
export function logRetentionOf(runtime: IAgentRuntime, keep: number, src: string): LogRetention {
  return new LogRetention(runtime.agentId, keep, (error) =>
    runtime.logger.warn({ src, agentId: runtime.agentId, error: errorText(error) }, 'old log rows not deleted; the next append tries again'),
  );
}

/** Index entries a prune walks past per statement while it looks for its cut (from the newest), and rows it deletes per statement (the oldest first). */
export interface PruneSizes {
  cutStep: number;
  deleteChunk: number;
}

/**
 * The rows a prune keeps to the newest of, and the key they are ordered by (the columns of an index
 * that starts with the agent's own condition), as SQL: `rows` is a FROM with its WHERE, `key` the
 * key as a row value, `select` the key's columns read as text (named as `value` reads them back,
 * and not as a column an ORDER BY names: an output name shadows it), `newestFirst`/`oldestFirst` the
 * ORDER BY that walks the index.
 */
export interface PrunedRows<K> {
  rows: SQL;
  key: SQL;
  select: SQL;
  newestFirst: SQL;
  oldestFirst: SQL;
  value: (key: K) => SQL;
}

/**
 * Deletes all but the newest `keep` of `log`'s rows; returns how many went. Bounded statements with
 * a turn of the event loop between them: the cut (the keep-th newest key) is found `cutStep`
 * entries a statement, and the rows below it are deleted `deleteChunk` at a time, oldest first,
 * each chunk committed on its own. The walks down the index run in index order
 * (`queryRowsInIndexOrder`: with `key < cut`, the planner without statistics read and sorted every
 * row below the cut, 0.5–0.9 s a step at 1M). One statement that skipped 1M entries to find the cut
 * and deleted 100,000 rows held PGlite, and the event loop with it, for 0.7 s. Rows appended
 * meanwhile are newer than the cut and stay; a prune cut short leaves only older rows.
 */
export async function pruneOldest<K>(db: Db, log: PrunedRows<K>, keep: number, sizes: PruneSizes): Promise<number> {
  let cut: K | null = null;
  for (let left = keep; left > 0; ) {
    const step = Math.min(left, sizes.cutStep);
    const below: SQL = cut === null ? sql.empty() : sql`AND ${log.key} < ${log.value(cut)}`;
    const [row]: K[] = await queryRowsInIndexOrder<K>(db, sql`SELECT ${log.select} ${log.rows} ${below} ORDER BY ${log.newestFirst} OFFSET ${step - 1} LIMIT 1`);
    // Fewer than `keep` rows: nothing to delete.
    if (row === undefined) return 0;
    cut = row;
    left -= step;
    if (left > 0) await yieldToEventLoop();
  }
  const belowCut = sql`${log.rows} AND ${log.key} < ${log.value(cut as K)}`;
  let deleted = 0;
  for (;;) {
    await yieldToEventLoop();
    // The chunk's first and last keys: a two-sided range keeps the DELETE on the index.
    const [first]: K[] = await queryRowsInIndexOrder<K>(db, sql`SELECT ${log.select} ${belowCut} ORDER BY ${log.oldestFirst} LIMIT 1`);
    if (first === undefined) return deleted;
    const [last]: K[] = await queryRowsInIndexOrder<K>(db, sql`SELECT ${log.select} ${belowCut} ORDER BY ${log.oldestFirst} OFFSET ${sizes.deleteChunk - 1} LIMIT 1`);
    const upTo: SQL = last === undefined ? sql.empty() : sql`AND ${log.key} <= ${log.value(last)}`;
    const [gone] = await queryRows<{ n: number | string }>(
      db,
      sql`WITH gone AS (DELETE ${belowCut} AND ${log.key} >= ${log.value(first)} ${upTo} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    );
    deleted += Number(gone?.n ?? 0);
  }
}

/** Rows a log prune walks past (finding its cut) and deletes per statement. */
const LOG_PRUNE_SIZES: PruneSizes = { cutStep: 5_000, deleteChunk: 2_000 };

/** Deletes all but the newest `keep` rows (by seq) of one agent in `table`, a log keyed by (agent_id, seq) (`pruneOldest`); returns how many went. */
export function pruneToNewest(db: Db, table: PgTable, agentId: string, keep: number): Promise<number> {
  return pruneOldest<{ at_seq: string }>(
    db,
    {
      rows: sql`FROM ${table} WHERE agent_id = ${agentId}::uuid`,
      key: sql`seq`,
      // Named apart from the column: an ORDER BY seq would sort by the text output.
      select: sql`seq::text AS at_seq`,
      newestFirst: sql`seq DESC`,
      oldestFirst: sql`seq`,
      value: (k) => sql`${k.at_seq}::bigint`,
    },
    keep,
    LOG_PRUNE_SIZES,
  );
}
