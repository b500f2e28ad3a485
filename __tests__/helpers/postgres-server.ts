// A PostgreSQL database for a test, over the wire. By default a PGlite database with the vector
// extension served by `__tests__/postgres-server/serve.mjs` in a child process (its packages come
// from npm, so CI needs nothing else); with SELF_IMPROVE_TEST_POSTGRES_URL set, a fresh database
// created on that real PostgreSQL server (it needs the pgvector extension, as plugin-sql does) and
// dropped after.
//
// serve.mjs serves every connection from one PGlite session, by turns: a connection holds it for a
// whole request or a whole transaction. Two processes therefore really share one database and see
// each other's rows, but their transactions never overlap, so the plugin's advisory locks are only
// truly contended on a real PostgreSQL (run the same tests with SELF_IMPROVE_TEST_POSTGRES_URL).
// (`@electric-sql/pglite-socket` 0.2.17 was tried first: with several connections it interleaves
// one connection's Parse and another's Bind, "bind message supplies 5 parameters, but prepared
// statement "" requires 1", and the clients hang.)
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface TestPostgres {
  /** `postgres://…` of a database nobody else uses. */
  url: string;
  /** What serves it: `pglite` (serve.mjs), or `postgresql` (SELF_IMPROVE_TEST_POSTGRES_URL). */
  kind: 'pglite' | 'postgresql';
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/** The socket server's own folder: it needs a newer PGlite than plugin-sql's, so it has its own dependencies. */
const SERVER_DIR = path.join(import.meta.dir, '..', 'postgres-server');
const SERVER_SCRIPT = path.join(SERVER_DIR, 'serve.mjs');
const SERVER_PACKAGES = path.join(SERVER_DIR, 'node_modules', '@electric-sql', 'pglite-pgvector');

/** Installs the socket server from its lock file on first use (npm ci, as on a fresh clone). */
function ensureServerInstalled(): void {
  if (existsSync(SERVER_PACKAGES)) return;
  process.stderr.write('[self-improve tests] installing the PostgreSQL test server (PGlite with pgvector) in __tests__/postgres-server\n');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: SERVER_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function startPgliteServer(): Promise<TestPostgres> {
  ensureServerInstalled();
  const proc = Bun.spawn(
    ['node', SERVER_SCRIPT],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  // stdout is read to its end (the server logs every connection): a pipe nobody reads would stop it.
  const decoder = new TextDecoder();
  let seen = '';
  const port = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the test PostgreSQL server did not listen within ${START_TIMEOUT_MS} ms: ${seen}`)), START_TIMEOUT_MS);
    void (async () => {
      for await (const chunk of proc.stdout) {
        if (seen.length < 10_000) seen += decoder.decode(chunk, { stream: true });
        const listening = /listening on (\{.*\})/.exec(seen);
        if (listening) {
          clearTimeout(timer);
          resolve((JSON.parse(listening[1] as string) as { port: number }).port);
        }
      }
      clearTimeout(timer);
      reject(new Error(`the test PostgreSQL server exited: ${seen}${await new Response(proc.stderr).text()}`));
    })();
  });
  const listeningPort = await port;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${listeningPort}/postgres`,
    kind: 'pglite',
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
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
