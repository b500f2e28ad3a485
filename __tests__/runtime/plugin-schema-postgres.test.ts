// The plugin's schema migrated by plugin-sql's DatabaseMigrationService over the PostgreSQL wire
// protocol (node-postgres through drizzle), as on a PostgreSQL server: by default a PGlite socket
// server on a loopback port (it serves one session, so one client); with
// SELF_IMPROVE_TEST_POSTGRES_URL set, that PostgreSQL database instead (a throw-away one: the test
// refuses a database that has a self_improve schema already, and removes what it created).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DatabaseMigrationService } from '@elizaos/plugin-sql';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg, { type Client as PgClient } from 'pg';
import { selfImproveTables } from '../../src/shared/schema';
import { catalogOf, declaredCatalog, type Executes, PLUGIN_TABLE_NAMES } from '../helpers/schema-catalog';

const POSTGRES_URL = process.env.SELF_IMPROVE_TEST_POSTGRES_URL;
const PLUGIN_NAME = 'self-improve';

/** A PGlite in memory behind a socket server on a free loopback port. */
async function startSocketServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const pglite = await PGlite.create();
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await pglite.close();
    },
  };
}

async function tableNames(db: Executes): Promise<string[]> {
  const { rows } = await db.execute(sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'self_improve' ORDER BY 1`);
  return (rows as { name: string }[]).map((r) => r.name);
}

describe(`the plugin schema migrated over the wire (${POSTGRES_URL ? 'SELF_IMPROVE_TEST_POSTGRES_URL' : 'PGlite socket server'})`, () => {
  let socketServer: { url: string; stop(): Promise<void> } | null = null;
  let client: PgClient;
  let db: Executes;
  beforeAll(async () => {
    socketServer = POSTGRES_URL ? null : await startSocketServer();
    client = new pg.Client({ connectionString: POSTGRES_URL ?? socketServer?.url });
    await client.connect();
    db = drizzle(client) as unknown as Executes;
    if ((await tableNames(db)).length > 0) throw new Error('the test database has a self_improve schema already: point SELF_IMPROVE_TEST_POSTGRES_URL at a throw-away database');
  });
  afterAll(async () => {
    if (POSTGRES_URL) {
      await db.execute(sql`DROP SCHEMA IF EXISTS self_improve CASCADE`);
      for (const table of ['_migrations', '_journal', '_snapshots']) await db.execute(sql`DELETE FROM ${sql.identifier('migrations')}.${sql.identifier(table)} WHERE plugin_name = ${PLUGIN_NAME}`);
    }
    await client.end();
    await socketServer?.stop();
  });

  test("DatabaseMigrationService creates this plugin's 17 tables with their columns, keys and indexes, and a second run changes nothing", async () => {
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
