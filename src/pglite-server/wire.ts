/**
 * The PostgreSQL wire protocol as the PGlite server (`self-improve pglite-server`) reads it: a
 * client's byte stream cut into whole messages, and what PGlite's answers say about its session.
 * Pure: no sockets, no PGlite. Every length comes from the client, so every length is checked
 * before anything is kept for it.
 */

/** The codes a startup-phase message may carry instead of a protocol version. */
export const SSL_REQUEST = 80877103;
export const CANCEL_REQUEST = 80877102;
export const GSS_REQUEST = 80877104;

/** A startup-phase message is small (PostgreSQL itself refuses one over 10,000 bytes). */
export const MAX_STARTUP_BYTES = 10_000;
/** The largest message a client may send (a statement with its parameters); larger closes the connection. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Messages after which the client waits for an answer, so the request so far goes to PGlite:
 * Sync, a simple Query, Flush, a FunctionCall, a password (the startup's answer to PGlite's
 * authentication request), and the end or failure of a COPY from the client.
 */
const REQUEST_ENDS = new Set(['S', 'Q', 'H', 'F', 'p', 'c', 'f']);

export type Frame =
  /** The first message of a connection (or an SSL, GSS or cancel request): `code` is the version or request code. */
  | { kind: 'startup'; code: number; bytes: Uint8Array }
  /** A message after the startup: its type letter, and whether the client now waits for an answer. */
  | { kind: 'message'; type: string; endsRequest: boolean; bytes: Uint8Array };

/** A Buffer over the same bytes (no copy), for its readers. */
const viewOf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A typed message: its type letter, its length, and `body`. */
function typedMessage(type: string, body: string): Uint8Array {
  const payload = Buffer.from(body, 'utf8');
  const out = Buffer.alloc(5 + payload.byteLength);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(4 + payload.byteLength, 1);
  payload.copy(out, 5);
  return new Uint8Array(out);
}

export class WireError extends Error {
  override name = 'WireError';
}

/**
 * Cuts a connection's bytes into frames. Before the startup message is accepted, messages have no
 * type byte; `started()` is called once the server has taken one (SSL and GSS requests come
 * before it and are answered, not accepted). Chunks are kept as they come and joined once a whole
 * message is there, so a large message costs one copy, not one per chunk.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private startedUp = false;

  started(): void {
    this.startedUp = true;
  }

  /** The whole frames `chunk` completes, in order; throws WireError on a length no client may send. */
  push(chunk: Uint8Array): Frame[] {
    this.chunks.push(viewOf(chunk));
    this.size += chunk.byteLength;
    const frames: Frame[] = [];
    for (let frame = this.next(); frame; frame = this.next()) frames.push(frame);
    return frames;
  }

  private next(): Frame | null {
    if (!this.startedUp) {
      if (this.size < 8) return null;
      const head = this.peek(8);
      const length = head.readInt32BE(0);
      if (length < 8 || length > MAX_STARTUP_BYTES) throw new WireError(`a startup message of ${length} bytes (8 to ${MAX_STARTUP_BYTES} allowed)`);
      if (this.size < length) return null;
      const bytes = this.take(length);
      // Anything but an SSL or GSS request is the startup itself; the server answers it and calls started().
      return { kind: 'startup', code: head.readInt32BE(4), bytes };
    }
    if (this.size < 5) return null;
    const head = this.peek(5);
    const length = head.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_BYTES) throw new WireError(`a message of ${length} bytes (4 to ${MAX_MESSAGE_BYTES} allowed)`);
    if (this.size < 1 + length) return null;
    const type = String.fromCharCode(head[0] as number);
    return { kind: 'message', type, endsRequest: REQUEST_ENDS.has(type), bytes: this.take(1 + length) };
  }

  /** The first `n` bytes (n <= size), without taking them. */
  private peek(n: number): Buffer {
    if ((this.chunks[0] as Buffer).byteLength < n) this.join();
    return (this.chunks[0] as Buffer).subarray(0, n);
  }

  /** Takes the first `n` bytes (n <= size) as a message of its own. */
  private take(n: number): Uint8Array {
    if ((this.chunks[0] as Buffer).byteLength < n) this.join();
    const first = this.chunks[0] as Buffer;
    const bytes = new Uint8Array(first.subarray(0, n));
    if (first.byteLength === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.size -= n;
    return bytes;
  }

  private join(): void {
    this.chunks = [Buffer.concat(this.chunks, this.size)];
  }
}

/**
 * The transaction status of the last ReadyForQuery in a backend answer: `I` idle, `T` in a
 * transaction, `E` in a failed one; null when the answer has none (the exchange goes on).
 */
export function lastReadyStatus(answer: Uint8Array): string | null {
  const view = viewOf(answer);
  let status: string | null = null;
  for (let at = 0; at + 5 <= view.byteLength; ) {
    const length = view.readInt32BE(at + 1);
    if (length < 4) break;
    if (view[at] === 0x5a && at + 5 < view.byteLength) status = String.fromCharCode(view[at + 5] as number);
    at += 1 + length;
  }
  return status;
}

/** A backend ErrorResponse (severity FATAL) with `message`, for a client the server turns away. */
export function fatalError(code: string, message: string): Uint8Array {
  return typedMessage('E', `SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
}

/** The statement text of a request (its Parse or simple Query message), cut to `max` characters; null when it has none. */
export function requestStatement(messages: readonly Uint8Array[], max = 200): string | null {
  for (const message of messages) {
    const view = viewOf(message);
    const type = view[0];
    let at = 5;
    if (type === 0x50) {
      // Parse: the statement's name, then its text.
      const nameEnd = view.indexOf(0, at);
      if (nameEnd < 0) return null;
      at = nameEnd + 1;
    } else if (type !== 0x51) {
      continue;
    }
    const end = view.indexOf(0, at);
    return view.toString('utf8', at, Math.min(end < 0 ? view.byteLength : end, at + max * 4)).slice(0, max);
  }
  return null;
}

/** The protocol version 3.0 startup message, as a client sends it. */
export function startupMessage(user: string, database: string): Uint8Array {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`, 'utf8');
  const out = Buffer.alloc(8 + body.byteLength);
  out.writeInt32BE(8 + body.byteLength, 0);
  out.writeInt32BE(PROTOCOL_3, 4);
  body.copy(out, 8);
  return new Uint8Array(out);
}

/** A PasswordMessage, as a client answers an authentication request. */
export function passwordMessage(password: string): Uint8Array {
  return typedMessage('p', `${password}\0`);
}

/** The protocol version every client of the server speaks (3.0; the major version is the high 16 bits). */
export const PROTOCOL_3 = 196608;

/**
 * Whether `answer` is a whole successful end of a startup: it begins with AuthenticationOk and ends
 * with ReadyForQuery, idle. The server answers every client's startup with such an answer.
 */
export function isStartupDone(answer: Uint8Array): boolean {
  const view = viewOf(answer);
  return view.byteLength >= 15 && view[0] === 0x52 && view.readInt32BE(1) === 8 && view.readInt32BE(5) === 0 && lastReadyStatus(answer) === 'I' && view[view.byteLength - 6] === 0x5a;
}
