// A PostgreSQL database for a test, over the wire. By default an in-memory PGlite database served
// by the package's own `self-improve pglite-server` (the built package under Node, as a user runs
// it: plugin-sql's PGlite with vector and fuzzystrmatch); with SELF_IMPROVE_TEST_POSTGRES_URL set,
// a fresh database created on that real PostgreSQL server (it needs the pgvector extension, as
// plugin-sql does) and dropped after.
//
// The server serves every connection from PGlite's one session, by turns: a connection holds it for
// a whole request or a whole transaction. Two processes therefore really share one database and see
// each other's rows, but their transactions never overlap, so the plugin's advisory locks are only
// truly contended on a real PostgreSQL (run the same tests with SELF_IMPROVE_TEST_POSTGRES_URL).
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startPgliteServerProcess } from './pglite-server-process';

export interface TestPostgres {
  /** `postgres://…` of a database nobody else uses. */
  url: string;
  /** What serves it: `pglite` (self-improve pglite-server), or `postgresql` (SELF_IMPROVE_TEST_POSTGRES_URL). */
  kind: 'pglite' | 'postgresql';
  stop(): Promise<void>;
}

async function startPgliteServer(): Promise<TestPostgres> {
  const server = await startPgliteServerProcess('memory://');
  return {
    url: server.url,
    kind: 'pglite',
    async stop() {
      const { code, stderr } = await server.stop();
      if (code !== 0) throw new Error(`self-improve pglite-server exited with ${code}: ${stderr}`);
    },
  };
}

async function createDatabaseOn(serverUrl: string): Promise<TestPostgres> {
  const name = `self_improve_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgresql',
    async stop() {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A fresh, empty PostgreSQL database (see the top of this file for which). */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.SELF_IMPROVE_TEST_POSTGRES_URL;
  return external ? createDatabaseOn(external) : startPgliteServer();
}
