// A PostgreSQL server for the tests: one in-memory PGlite (with pgvector) behind the PostgreSQL
// wire protocol, for any number of client connections. PGlite has one session, so connections
// take turns: a connection holds the session from the first message of a request until PGlite
// says it is idle again (ReadyForQuery 'I'): a whole extended-protocol exchange (Parse … Sync), a
// simple query, or a whole transaction. Others wait their turn; nothing of two connections ever
// interleaves. Locks therefore never contend here (one transaction runs at a time); on a real
// PostgreSQL they do.
//
//   node serve.mjs [--port=N]   prints `listening on {"port":N}` once it accepts connections.
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const GSS_REQUEST = 80877104;
/** Messages after which the client waits for an answer: the request is complete. */
const REQUEST_ENDS = new Set(['S', 'Q', 'H', 'X']);

const portArg = process.argv.find((a) => a.startsWith('--port='));
const db = await PGlite.create({ dataDir: 'memory://', extensions: { vector } });

/** Who holds the one session, and who waits for it (in arrival order). */
const session = {
  owner: null,
  waiting: [],
  async acquire(conn) {
    if (this.owner === conn) return;
    if (this.owner === null) {
      this.owner = conn;
      return;
    }
    await new Promise((resolve) => this.waiting.push({ conn, resolve }));
  },
  release(conn) {
    if (this.owner !== conn) return;
    const next = this.waiting.shift();
    this.owner = next ? next.conn : null;
    next?.resolve();
  },
  forget(conn) {
    this.waiting = this.waiting.filter((w) => w.conn !== conn);
  },
};

/** The status byte of the last ReadyForQuery in a backend output, or null when there is none. */
function lastReadyStatus(out) {
  let status = null;
  for (let at = 0; at + 5 <= out.length; ) {
    const length = out.readInt32BE(at + 1);
    if (out[at] === 0x5a) status = String.fromCharCode(out[at + 5]);
    at += 1 + length;
  }
  return status;
}

function serve(socket) {
  const conn = {};
  // Each answer goes out at once. With Nagle's algorithm on, a write that follows one not yet
  // acknowledged waits for the client's delayed ACK (40 ms on Linux): every statement of a
  // transaction cost that, a rollup step held the one session for 3.4 s, and the other process's
  // queries waited out plugin-sql's 5 s pool timeout.
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  let started = false;
  let inTransaction = false;
  let work = Promise.resolve();
  let closed = false;

  const run = async (messages) => {
    await session.acquire(conn);
    let status = null;
    for (const message of messages) {
      const out = Buffer.from(await db.execProtocolRaw(new Uint8Array(message)));
      if (out.length > 0 && !socket.destroyed) socket.write(out);
      status = lastReadyStatus(out) ?? status;
    }
    if (status !== null) inTransaction = status !== 'I';
    if (status === 'I') session.release(conn);
  };

  const close = async () => {
    if (closed) return;
    closed = true;
    session.forget(conn);
    await work.catch(() => undefined);
    if (session.owner === conn) {
      if (inTransaction) await db.exec('ROLLBACK').catch(() => undefined);
      session.release(conn);
    }
  };

  let pending = [];
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          socket.end();
          return;
        }
        started = true;
        work = work.then(() => run([message]));
        continue;
      }
      if (buffer.length < 5) return;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) return;
      const type = String.fromCharCode(buffer[0]);
      const message = buffer.subarray(0, length);
      buffer = buffer.subarray(length);
      if (type === 'X') {
        socket.end();
        return;
      }
      pending.push(message);
      if (REQUEST_ENDS.has(type)) {
        const request = pending;
        pending = [];
        work = work.then(() => run(request)).catch((error) => {
          process.stderr.write(`serve.mjs: ${error?.message ?? error}\n`);
          socket.destroy();
        });
      }
    }
  });
  socket.on('close', () => void close());
  socket.on('error', () => void close());
}

const server = net.createServer(serve);
server.listen(portArg ? Number(portArg.slice('--port='.length)) : 0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${JSON.stringify({ port: server.address().port })}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close();
    void db.close().finally(() => process.exit(0));
  });
}
