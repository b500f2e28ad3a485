import type { IAgentRuntime } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';

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

export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = await db.execute(query);
  return result.rows as T[];
}

/** Runs idempotent DDL statements in order. */
export async function ensureSchema(db: Db, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await db.execute(sql.raw(statement));
}

/** Splits a list into chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
