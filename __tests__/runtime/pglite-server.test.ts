// `self-improve pglite-server` as a user runs it (the built package under Node): an agent's PGlite
// directory served as it is and reached through POSTGRES_URL by the CLI, refused to a second
// server and to the CLI opening it in-process while served, and whole again in-process once the
// server stops; connections served by turns, a transaction at a time, and a client's bad bytes or
// its disappearance in a transaction leave the others served.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runCli } from '../helpers/cli';
import { ServerExited, startPgliteServerProcess } from '../helpers/pglite-server-process';
import { makeRows } from '../helpers/rows';
import { MAX_CONNECTIONS } from '../../src/pglite-server/pglite-server';
import { lockFileOf } from '../../src/pglite-server/served-lock';
import { MAX_MESSAGE_BYTES } from '../../src/pglite-server/wire';

const LABELS = ['fixed', 'rejected_fp', 'ignored', 'accepted', 'reopened'] as const;
let dir: string;

const env = (extra: Record<string, string> = {}) => ({ ...process.env, LOG_LEVEL: 'warn', SELF_IMPROVE_LESSON_MODEL: 'off', ...extra });

async function jsonl(name: string, rows: Record<string, unknown>[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-pglite-server-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an agent directory served by self-improve pglite-server', () => {
  test('written in-process, served and written over POSTGRES_URL, then whole in-process again', async () => {
    const dataDir = path.join(dir, 'agent-db');
    const first = await jsonl('first.jsonl', makeRows({ n: 400, labels: [...LABELS], keyPrefix: 'first', stepMinutes: 1 }));
    const second = await jsonl('second.jsonl', makeRows({ n: 300, labels: [...LABELS], keyPrefix: 'second', stepMinutes: 1 }));
    const inProcess = await runCli(['ingest', first, '--db', dataDir, '--json'], env());
    expect(inProcess.code).toBe(0);
    const paidInProcess = json((await runCli(['ledger', 'score', '--db', dataDir, '--json'], env())).stdout);
    const countInProcess = (json((await runCli(['ledger', 'verify', '--db', dataDir, '--json'], env())).stdout).verification as { count: number }).count;
    expect(countInProcess).toBeGreaterThan(0);

    const server = await startPgliteServerProcess(dataDir);
    let stopped = false;
    let countOverWire = 0;
    try {
      expect(server.url).toBe(`postgres://postgres:postgres@127.0.0.1:${server.port}/postgres`);
      expect(existsSync(lockFileOf(dataDir))).toBe(true);
      const overWire = env({ POSTGRES_URL: server.url });
      // The same ledger over the wire as in-process.
      expect(json((await runCli(['ledger', 'score', '--json'], overWire)).stdout)).toEqual(paidInProcess);

      // While served, neither a second server nor the CLI in-process may open the directory.
      const refused = await startPgliteServerProcess(dataDir).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ServerExited);
      expect((refused as ServerExited).code).toBe(1);
      expect((refused as ServerExited).stderr).toContain(`is served by process ${server.pid} already`);
      const cliInProcess = await runCli(['lessons', '--db', dataDir], env());
      expect(cliInProcess.code).toBe(1);
      expect(cliInProcess.stderr).toContain('is served by self-improve pglite-server: set POSTGRES_URL to its URL');

      const ingested = await runCli(['ingest', second, '--json'], overWire);
      expect(ingested.code).toBe(0);
      expect(json(ingested.stdout)).toMatchObject({ accepted: 300, rejected: [] });
      const verifiedOverWire = json((await runCli(['ledger', 'verify', '--json'], overWire)).stdout);
      expect(verifiedOverWire).toMatchObject({ verification: { ok: true } });
      countOverWire = (verifiedOverWire.verification as { count: number }).count;

      const { code, stderr } = await server.stop();
      stopped = true;
      expect(code).toBe(0);
      expect(stderr).toContain(`SIGTERM: ${dataDir} closed`);
      expect(existsSync(lockFileOf(dataDir))).toBe(false);
    } finally {
      if (!stopped) await server.stop();
    }
    // Both files' entries, in-process again, and the chain whole.
    const verified = json((await runCli(['ledger', 'verify', '--db', dataDir, '--json'], env())).stdout);
    expect(verified).toMatchObject({ verification: { ok: true, count: countOverWire } });
    expect(countOverWire).toBeGreaterThan(countInProcess);
  }, 180_000);
});

/** A raw connection that has sent a startup message and read the server's first answer. */
async function rawStartedConnection(port: number): Promise<{ socket: net.Socket; next: () => Promise<Buffer> }> {
  const socket = net.connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  let wake: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    wake?.();
  });
  socket.on('close', () => wake?.());
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const next = async () => {
    while (received.length === 0 && !socket.destroyed && !socket.readableEnded) await new Promise<void>((resolve) => (wake = resolve));
    return Buffer.concat(received.splice(0));
  };
  const body = Buffer.from('user\0postgres\0database\0postgres\0\0', 'latin1');
  const startup = Buffer.alloc(8 + body.length);
  startup.writeInt32BE(8 + body.length, 0);
  startup.writeInt32BE(196608, 4);
  body.copy(startup, 8);
  socket.write(startup);
  const greeting = await next();
  if (greeting[0] === 0x45) {
    socket.destroy();
    throw new Error(greeting.toString('utf8'));
  }
  return { socket, next };
}

describe('connections to self-improve pglite-server', () => {
  test('served by turns, a whole transaction at a time; bad bytes and a client gone mid-transaction leave the rest served', async () => {
    const server = await startPgliteServerProcess('memory://');
    const clients: Client[] = [];
    const connect = async () => {
      const client = new Client({ connectionString: server.url });
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client);
      return client;
    };
    try {
      const [a, b, c] = [await connect(), await connect(), await connect()];
      await a.query('CREATE TABLE t (x int)');

      // A transaction holds the session: another connection's statement runs after its COMMIT, and sees its row.
      await a.query('BEGIN');
      await a.query('INSERT INTO t VALUES (1)');
      let bDone = false;
      const bRead = b.query('SELECT count(*)::int AS n FROM t').then((r) => {
        bDone = true;
        return r.rows[0]?.n as number;
      });
      await Bun.sleep(300);
      expect(bDone).toBe(false);
      await a.query('COMMIT');
      expect(await bRead).toBe(1);

      // A client gone inside its transaction: rolled back, and the session free for the others.
      await c.query('BEGIN');
      await c.query('INSERT INTO t VALUES (2)');
      (c as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      expect((await b.query('SELECT count(*)::int AS n FROM t')).rows[0]?.n).toBe(1);

      // A message longer than any client may send: a FATAL error to that client, its connection closed.
      const raw = await rawStartedConnection(server.port);
      raw.socket.write(Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]));
      const answer = await raw.next();
      expect(String.fromCharCode(answer[0] as number)).toBe('E');
      expect(answer.toString('utf8')).toContain('C08P01');
      expect(answer.toString('utf8')).toContain(`a message of ${0x7fffffff} bytes`);

      // A request that never ends may not grow without bound: over 64 MiB without a Sync ends that connection.
      const endless = await rawStartedConnection(server.port);
      const bind = Buffer.alloc(5 + 33 * 1024 * 1024);
      bind[0] = 0x42;
      bind.writeInt32BE(bind.length - 1, 1);
      endless.socket.write(bind);
      endless.socket.write(bind);
      const refusedRequest = await endless.next();
      expect(refusedRequest.toString('utf8')).toContain(`a request of over ${MAX_MESSAGE_BYTES} bytes without a Sync`);

      // At most MAX_CONNECTIONS at once: one more is turned away, the others still served.
      raw.socket.destroy();
      endless.socket.destroy();
      await Bun.sleep(200);
      // a and b are open (c is gone): MAX_CONNECTIONS - 2 more fill the server.
      const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS - 2 }, () => rawStartedConnection(server.port)));
      const oneTooMany = await rawStartedConnection(server.port).catch((error: unknown) => error);
      expect(oneTooMany).toBeInstanceOf(Error);
      expect(String((oneTooMany as Error).message)).toContain('too many connections: 100 are served at once');
      for (const connection of held) connection.socket.destroy();
      await Bun.sleep(200);

      // Many connections at once: each gets its own answers.
      const many = await Promise.all(Array.from({ length: 6 }, () => connect()));
      const answers = await Promise.all(
        many.map(async (client, i) => {
          const got: number[] = [];
          for (let j = 0; j < 30; j++) got.push((await client.query('SELECT $1::int AS v', [i * 100 + j])).rows[0]?.v as number);
          return got;
        }),
      );
      answers.forEach((got, i) => expect(got).toEqual(Array.from({ length: 30 }, (_, j) => i * 100 + j)));
      expect((await a.query('SELECT count(*)::int AS n FROM t')).rows[0]?.n).toBe(1);
    } finally {
      await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
      const { code } = await server.stop();
      expect(code).toBe(0);
    }
  }, 120_000);
});
