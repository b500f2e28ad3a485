import net from 'node:net';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { errorText } from '../shared/error-text';
import { IN_MEMORY, lockDirectory } from './served-lock';
import { SessionTurns, type Turn } from './session-turns';
import { CANCEL_REQUEST, fatalError, FrameReader, GSS_REQUEST, isStartupDone, lastReadyStatus, MAX_MESSAGE_BYTES, passwordMessage, PROTOCOL_3, requestStatement, SSL_REQUEST, startupMessage } from './wire';

/**
 * PGlite in a process of its own, behind the PostgreSQL wire protocol on the loopback interface, so
 * an agent reaches it through `POSTGRES_URL` like any PostgreSQL server. In the agent's process,
 * plugin-sql runs PGlite's file reads and writes on the event loop, and a slow disk stops every
 * reply for as long as it takes (up to 758 ms at a million outcomes, docs/scale-runs.md); here it
 * stops only this process.
 *
 * PGlite has one session, so connections take turns: one holds it from the first message of a
 * request until PGlite is idle again (ReadyForQuery `I`), a whole extended-protocol exchange or a
 * whole transaction; the others wait, in order. Nothing of two connections interleaves.
 *
 * The directory is the one plugin-sql writes (same PGlite, same extensions: vector and
 * fuzzystrmatch), so an agent's existing PGLITE_DATA_DIR can be served as it is, and served no
 * longer. One server at a time holds it (a lock file); the agent must not open it in-process while
 * it is served.
 */

export interface PgliteServerOptions {
  /** The PGlite directory (created when missing), or `memory://` for a database that goes with the process. */
  dataDir: string;
  /** The loopback port; 0 picks a free one. */
  port: number;
  /** Where a connection's failure is told (default: stderr). */
  log?: (line: string) => void;
}

export interface PgliteServer {
  port: number;
  /** `postgres://…` for POSTGRES_URL. */
  url: string;
  /** Stops accepting, ends every connection, closes PGlite and frees the directory. */
  close(): Promise<void>;
}

/** Connections served at once; one more is turned away (PostgreSQL's own default is 100). */
export const MAX_CONNECTIONS = 100;
/** Requests between two emptyings of PGlite's list of parsed answers (see forgetParsedMessages). */
export const FORGET_PARSED_EVERY = 100;
/** A Sync message. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

async function openPglite(dataDir: string): Promise<PGlite> {
  // Loaded here, not at the top: only this command needs PGlite itself (plugin-sql's, a peer dependency).
  const [{ PGlite }, { vector }, { fuzzystrmatch }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/vector'),
    import('@electric-sql/pglite/contrib/fuzzystrmatch'),
  ]);
  return PGlite.create({ dataDir, extensions: { vector, fuzzystrmatch } });
}

/**
 * The answer every client's startup gets: AuthenticationOk, the server's parameters, its key and
 * ReadyForQuery, taken once from PGlite's own startup. A client's startup is answered with it at
 * once, without a turn: a new connection waits for no transaction (plugin-sql's pool gives up on a
 * connection after 5 s), and PGlite's one session is never started again under a client's feet.
 */
async function startupAnswer(db: PGlite): Promise<Uint8Array> {
  await db.execProtocolRaw(startupMessage('postgres', 'postgres'));
  const answer = await db.execProtocolRaw(passwordMessage('postgres'));
  if (!isStartupDone(answer)) throw new Error('PGlite did not finish its startup as expected (AuthenticationOk … ReadyForQuery)');
  return answer;
}

export async function startPgliteServer(options: PgliteServerOptions): Promise<PgliteServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const unlock = lockDirectory(options.dataDir);
  let db: PGlite;
  try {
    db = await openPglite(options.dataDir === IN_MEMORY ? IN_MEMORY : path.resolve(options.dataDir));
  } catch (error) {
    unlock();
    throw error;
  }
  let greeting: Uint8Array;
  try {
    greeting = await startupAnswer(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    unlock();
    throw error;
  }
  const turns = new SessionTurns();
  const sockets = new Set<net.Socket>();
  // PGlite 0.3 parses everything its backend answers and keeps each message in a list that only
  // execProtocol and execProtocolStream empty, never execProtocolRaw: served by raw calls alone,
  // the server's heap reached Node's 4 GB limit and the server died, 13 minutes into learning at
  // 1M outcomes. A Sync given through execProtocol between two requests (the session is at
  // ReadyForQuery, so it changes nothing) empties the list.
  let requestsSinceForget = 0;
  const forgetParsedMessages = async () => {
    if (++requestsSinceForget < FORGET_PARSED_EVERY) return;
    requestsSinceForget = 0;
    await db.execProtocol(SYNC, { syncToFs: false, throwOnError: false });
  };

  const serve = (socket: net.Socket) => {
    if (sockets.size >= MAX_CONNECTIONS) {
      socket.end(fatalError('53300', `too many connections: ${MAX_CONNECTIONS} are served at once`));
      return;
    }
    sockets.add(socket);
    // Each answer goes out at once: with Nagle's algorithm a write after one not yet acknowledged
    // waits for the client's delayed ACK (40 ms on Linux), every statement of a transaction.
    socket.setNoDelay(true);
    const conn: Turn = { statement: null, since: Date.now() };
    const reader = new FrameReader();
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let inTransaction = false;
    let work: Promise<void> = Promise.resolve();
    let closed = false;

    const run = async (messages: Uint8Array[]) => {
      conn.statement = requestStatement(messages) ?? conn.statement;
      conn.since = Date.now();
      await turns.acquire(conn);
      if (closed) return;
      // One call a message (given together, PGlite once left a request's Sync unanswered and its
      // client waiting), its files synced after the last only, and one write of the whole answer.
      const answers: Uint8Array[] = [];
      for (let i = 0; i < messages.length; i++) answers.push(await db.execProtocolRaw(messages[i] as Uint8Array, { syncToFs: i === messages.length - 1 }));
      const answer = Buffer.concat(answers);
      if (answer.byteLength > 0 && !socket.destroyed) socket.write(answer);
      const status = lastReadyStatus(answer);
      if (status !== null) {
        inTransaction = status !== 'I';
        await forgetParsedMessages();
      }
      if (status === 'I') turns.release(conn);
    };

    const close = async () => {
      if (closed) return;
      closed = true;
      sockets.delete(socket);
      turns.forget(conn);
      await work.catch(() => undefined);
      if (turns.holds(conn)) {
        // A client gone inside a transaction leaves nothing half-done behind it.
        if (inTransaction) await db.exec('ROLLBACK').catch(() => undefined);
        turns.release(conn);
      }
    };

    const queue = (messages: Uint8Array[]) => {
      work = work.then(() => run(messages)).catch((error: unknown) => {
        log(`pglite-server: a connection failed: ${errorText(error)}`);
        socket.destroy();
      });
    };

    socket.on('data', (chunk: Buffer) => {
      if (closed) return;
      let frames;
      try {
        frames = reader.push(chunk);
      } catch (error) {
        socket.end(fatalError('08P01', (error as Error).message));
        return;
      }
      for (const frame of frames) {
        if (frame.kind === 'startup') {
          if (frame.code === SSL_REQUEST || frame.code === GSS_REQUEST) {
            socket.write('N');
            continue;
          }
          if (frame.code === CANCEL_REQUEST) {
            socket.end();
            return;
          }
          if (frame.code >>> 16 !== PROTOCOL_3 >>> 16) {
            socket.end(fatalError('0A000', `protocol version ${frame.code >>> 16}.${frame.code & 0xffff} is not served (3.x is)`));
            return;
          }
          reader.started();
          socket.write(greeting);
          continue;
        }
        if (frame.type === 'X') {
          socket.end();
          return;
        }
        pending.push(frame.bytes);
        pendingBytes += frame.bytes.byteLength;
        // A request is held whole until its end: one that never ends may not grow without bound.
        if (pendingBytes > MAX_MESSAGE_BYTES) {
          socket.end(fatalError('08P01', `a request of over ${MAX_MESSAGE_BYTES} bytes without a Sync`));
          return;
        }
        if (frame.endsRequest) {
          const request = pending;
          pending = [];
          pendingBytes = 0;
          queue(request);
        }
      }
    });
    // What close awaits catches its own failures; anything else is told, never left unhandled.
    const closeTold = () => {
      close().catch((error: unknown) => log(`pglite-server: a connection did not close cleanly: ${errorText(error)}`));
    };
    socket.on('close', closeTold);
    socket.on('error', closeTold);
  };

  const server = net.createServer(serve);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await db.close().catch(() => undefined);
    unlock();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'EADDRINUSE' ? `port ${options.port} on 127.0.0.1 is in use: give another with --port` : errorText(error));
  }
  const port = (server.address() as net.AddressInfo).port;
  const watch = setInterval(() => {
    const line = turns.longWait(Date.now());
    if (line) log(line);
  }, 1_000);
  watch.unref();
  let closing: Promise<void> | undefined;
  return {
    port,
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    close() {
      closing ??= (async () => {
        clearInterval(watch);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
        await db.close();
        unlock();
      })();
      return closing;
    },
  };
}
