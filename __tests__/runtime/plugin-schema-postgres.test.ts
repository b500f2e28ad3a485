// The plugin's schema migrated by plugin-sql's DatabaseMigrationService over the PostgreSQL wire
// protocol (node-postgres through drizzle), as on a PostgreSQL server: a fresh database from
// helpers/postgres-server.ts (PGlite with pgvector behind self-improve pglite-server, or a throw-away database on
// the PostgreSQL server SELF_IMPROVE_TEST_POSTGRES_URL names).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseMigrationService } from '@elizaos/plugin-sql';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg, { type Client as PgClient } from 'pg';
import { selfImproveTables } from '../../src/shared/schema';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server';
import { catalogOf, declaredCatalog, type Executes, PLUGIN_TABLE_NAMES } from '../helpers/schema-catalog';

const PLUGIN_NAME = 'self-improve';

async function tableNames(db: Executes): Promise<string[]> {
  const { rows } = await db.execute(sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'self_improve' ORDER BY 1`);
  return (rows as { name: string }[]).map((r) => r.name);
}

describe('the plugin schema migrated over the wire on a fresh PostgreSQL database', () => {
  let database: TestPostgres;
  let client: PgClient;
  let db: Executes;
  beforeAll(async () => {
    database = await startTestPostgres();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    db = drizzle(client) as unknown as Executes;
  });
  afterAll(async () => {
    await client.end();
    await database.stop();
  });

  test(`DatabaseMigrationService creates this plugin's ${PLUGIN_TABLE_NAMES.length} tables with their columns, keys and indexes, and a second run changes nothing`, async () => {
    expect(await tableNames(db)).toEqual([]);
    const migrations = new DatabaseMigrationService();
    await migrations.initializeWithDatabase(db);
    migrations.registerSchema(PLUGIN_NAME, selfImproveTables);
    await migrations.runAllPluginMigrations();
    expect(await tableNames(db)).toEqual(PLUGIN_TABLE_NAMES);
    const catalog = await catalogOf(db);
    expect(catalog).toEqual(declaredCatalog(Object.values(selfImproveTables)));
    expect(catalog).toContain('unique index ledger.ledger_once (agent_id, source, source_ref, category)');

    await migrations.runAllPluginMigrations();
    const { rows } = await db.execute(sql`SELECT count(*)::int AS n FROM migrations._migrations WHERE plugin_name = ${PLUGIN_NAME}`);
    expect(rows).toEqual([{ n: 1 }]);
    expect(await catalogOf(db)).toEqual(catalog);
  }, 60_000);
});
