import { sql } from 'drizzle-orm';
import { getTableConfig, type PgTable, pgSchema } from 'drizzle-orm/pg-core';
import { type Db, queryRows } from './sql';

/**
 * The PostgreSQL schema that holds this plugin's tables. plugin-sql migrates a plugin's drizzle
 * tables (its `schema` field) into a schema named after the plugin: `self-improve` becomes
 * `self_improve`.
 */
export const pluginSchema = pgSchema('self_improve');

/** `schema.table`, as `to_regclass` and people read it. */
export function qualifiedName(table: PgTable): string {
  const { schema, name } = getTableConfig(table);
  return schema ? `${schema}.${name}` : name;
}

/**
 * Throws, naming the first missing table, when any of `tables` does not exist: plugin-sql has not
 * migrated this plugin's schema. A cheap check for a service's start, so a missing migration is
 * reported as such instead of as the first query's "relation does not exist".
 */
export async function requireTables(db: Db, tables: readonly PgTable[]): Promise<void> {
  const names = tables.map(qualifiedName);
  const list = sql.join(
    names.map((name) => sql`(${name}::text)`),
    sql`, `,
  );
  const missing = await queryRows<{ name: string }>(db, sql`SELECT t.name FROM (VALUES ${list}) AS t(name) WHERE to_regclass(t.name) IS NULL`);
  const first = names.find((name) => missing.some((m) => m.name === name));
  if (first === undefined) return;
  throw new Error(
    `plugin-self-improve: table ${first} does not exist. @elizaos/plugin-sql must run this plugin's migrations before its services start: ` +
      'call runtime.initialize() without skipMigrations (or runtime.runPluginMigrations() once the plugin is registered).',
  );
}
