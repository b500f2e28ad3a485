import type { IAgentRuntime } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { clipText } from './prompt-text';
import { innermostCause, messageOf } from './error-text';
import { withPairedSurrogates } from './wire-text';
import { turnForResult } from './event-loop';

/**
 * The part of the runtime's drizzle database this plugin uses. plugin-sql gives the same drizzle
 * surface for PGlite and PostgreSQL, so one code path serves both.
 */
export interface Db {
  execute(query: SQL): Promise<{ rows: Record<string, unknown>[] }>;
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
}

export function dbOf(runtime: IAgentRuntime): Db {
  const db = runtime.db as Partial<Db> | undefined;
  if (!db || typeof db.execute !== 'function' || typeof db.transaction !== 'function') {
    throw new Error('plugin-self-improve needs the runtime database from @elizaos/plugin-sql');
  }
  return db as Db;
}

/**
 * Milliseconds since the epoch of the timestamptz `column`, as a float8: what a JavaScript `Date`
 * counts. `column` is a column or expression of the code's own (`'o.ts'`), never outside text.
 */
export function epochMs(column: string): SQL {
  return sql.raw(`(extract(epoch from ${column}) * 1000)::float8`);
}

/** The rows of `query`; in work run by `inTurns`, handed back in a turn of its own (`turnForResult`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = await db.execute(query);
  const turn = turnForResult();
  if (turn) await turn;
  return result.rows as T[];
}

/**
 * `queryRows` for a query returning many small rows: the rows come back as one JSON text (`json_agg`)
 * and are parsed at once. On PGlite, moving each row and field over the wire protocol costs more than
 * the query itself (1,500 tally rows: ~25 ms as rows, a few ms as one document). Values arrive as
 * JSON does: numbers (float8 and integer columns alike, exact within 2^53), strings, booleans, null.
 */
export async function queryJsonRows<T>(db: Db, query: SQL): Promise<T[]> {
  const [row] = await queryRows<{ rows: string }>(db, sql`SELECT coalesce(json_agg(q), '[]'::json)::text AS rows FROM (${query}) q`);
  return JSON.parse(row?.rows ?? '[]') as T[];
}

/**
 * A FROM clause that runs `subquery` once for each of `keys` (given to it as the SQL `k.key`, a
 * text), so each key is one index probe, with the subquery's columns under the alias `x`. PGlite
 * never analyses a table, and without statistics `column IN (250 keys)` is planned as a read of
 * every row of the agent, filtered: a cost that grows with everything stored. The lateral
 * subquery's OFFSET 0 keeps the planner from flattening it back into that join. The keys go in
 * as one JSON parameter (see `jsonRows`).
 */
export function eachKey(keys: readonly string[], subquery: (key: SQL) => SQL): SQL {
  return sql`json_array_elements_text(${JSON.stringify(keys.map(withPairedSurrogates))}::json) AS k(key) CROSS JOIN LATERAL (${subquery(sql`k.key`)} OFFSET 0) AS x`;
}

/**
 * Many rows given to a statement as one JSON parameter and read back as a table:
 * `FROM ${jsonRows(rows, { id: 'uuid', n: 'int' })}` is the table `v(id uuid, n int)`, one row per
 * object of `rows` (fields not named are left out, a missing one is NULL). `columns` are the code's
 * constants, never outside text. Built as `VALUES` with a parameter per field instead, a write of
 * 500 rows of 10 fields left about 12 times the garbage and took twice the time
 * (bench/sql-garbage.ts), and the collector ran that much more often. A JSON number gives a
 * numeric column its exact digits. Each named field gets what its own parameter got
 * (`asParameters`): an unpaired surrogate in a text column becomes U+FFFD, an infinite or NaN
 * number stays one; a U+0000 anywhere, or an unpaired surrogate inside a json or jsonb value, makes
 * the database refuse the statement, as before.
 */
export function jsonRows(rows: readonly object[], columns: Readonly<Record<string, string>>): SQL {
  const definition = Object.entries(columns)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
  const names = Object.keys(columns);
  return sql`json_to_recordset(${JSON.stringify(rows.map((row) => asParameters(row, names)))}::json) AS v(${sql.raw(definition)})`;
}

/**
 * `row`, or a copy of it whose fields named in `names` hold what a parameter of their own would
 * have given the database, where JSON differs: an unpaired surrogate in a string is U+FFFD (as
 * encoding it in UTF-8 does, `withPairedSurrogates`), and an infinite or NaN number is its text
 * ('Infinity', which a float8 column reads; JSON would make it null).
 */
function asParameters(row: object, names: readonly string[]): object {
  let copy: Record<string, unknown> | undefined;
  for (const name of names) {
    const value = (row as Record<string, unknown>)[name];
    let given = value;
    if (typeof value === 'string') given = withPairedSurrogates(value);
    else if (typeof value === 'number' && !Number.isFinite(value)) given = String(value);
    if (given === value) continue;
    copy ??= { ...row };
    copy[name] = given;
  }
  return copy ?? row;
}

/**
 * `queryRows` for a query whose LIMIT or OFFSET follows an index's order: run with sorts and
 * bitmap scans made a last resort (set for its transaction only, in a transaction of its own), so
 * the index is walked in order and stops after the rows asked for. PGlite never analyses a table,
 * and without statistics the planner reads every matching row and sorts them, which costs the
 * whole slice. JIT compilation is off too (`inIndexOrder`).
 */
export async function queryRowsInIndexOrder<T>(db: Db, query: SQL): Promise<T[]> {
  return inIndexOrder(db, (tx) => queryRows<T>(tx, query));
}

/** `queryRowsInIndexOrder` with the rows as one JSON document (`queryJsonRows`): for pages of many small rows. */
export async function queryJsonRowsInIndexOrder<T>(db: Db, query: SQL): Promise<T[]> {
  return inIndexOrder(db, (tx) => queryJsonRows<T>(tx, query));
}

/**
 * Runs `read` in a transaction whose planner walks indexes in order (`queryRowsInIndexOrder`), the
 * settings made in one statement. JIT is off as well: a plan that must still sort (a few rows, as
 * the lesson count's last row or the top-k walk's aggregates) carries the penalty cost of a
 * disabled sort (10^10), above every JIT threshold, so a PostgreSQL built with LLVM (Debian's is)
 * compiled each such statement: 160-200 ms for a 2 ms lesson count on the 1M bench database (an
 * agent's start-up read of its 100,000 lessons took 63 s; 7.4 s with JIT off), several ms for
 * each top-k walk of the weekly metrics.
 */
async function inIndexOrder<T>(db: Db, read: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)`);
    return read(tx);
  });
}

/** The key of an agent's advisory locks: the first 32 bits of its id, as a signed int4 (a collision only serialises two agents). */
export function agentLockKey(agentId: string): number {
  return Number.parseInt(agentId.replace(/-/g, '').slice(0, 8), 16) | 0;
}

/** Splits a list into chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Longest database reason quoted back to a caller. */
const REASON_CHARS = 300;

/**
 * Why the database refused a statement: the driver's own message (drizzle wraps it in "Failed
 * query: <sql> params: <values>", which must not be echoed), cut to 300 characters.
 */
export function databaseReason(error: unknown): string {
  return clipText(messageOf(innermostCause(error)), REASON_CHARS);
}

/** What `writeIsolatingRefusals` wrote, and which items (by position) the database refused, with its reason. */
export interface IsolatedWrite<R> {
  written: R[];
  refused: { position: number; reason: string }[];
}

/**
 * Thrown when the database refuses every row of a write, each on its own as well as together:
 * not the content of some rows but the database itself (full, closed, a bad statement). `cause` is
 * the error of the whole batch.
 */
export class DatabaseFailure extends Error {
  constructor(cause: unknown) {
    super(databaseReason(cause), { cause });
    this.name = 'DatabaseFailure';
  }
}

/**
 * Writes `items` with `write` inside `tx`, in one savepoint; when the database refuses that (the
 * content of a row it will not store), writes them again one by one, each in its own savepoint, so
 * only the rows it refuses are left out and the others stay in the enclosing transaction. Nothing
 * of a refused row is written: its savepoint is rolled back. Throws `DatabaseFailure` when no row
 * at all could be written.
 */
export async function writeIsolatingRefusals<T, R>(tx: Db, items: readonly T[], write: (db: Db, part: readonly T[]) => Promise<R[]>): Promise<IsolatedWrite<R>> {
  let batchError: unknown;
  try {
    return { written: await tx.transaction((savepoint) => write(savepoint, items)), refused: [] };
  } catch (error) {
    // One row the database will not store fails the whole statement: the rows are tried one by one below.
    batchError = error;
  }
  const result: IsolatedWrite<R> = { written: [], refused: [] };
  for (const [position, item] of items.entries()) {
    try {
      result.written.push(...(await tx.transaction((savepoint) => write(savepoint, [item]))));
    } catch (error) {
      result.refused.push({ position, reason: databaseReason(error) });
    }
  }
  if (result.refused.length === items.length) throw new DatabaseFailure(batchError);
  return result;
}
