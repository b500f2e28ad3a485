import type { RouteRequest, RouteResponse } from '@elizaos/core';
import { jsonNestingDepthExceeds } from '../json-depth';
import { MAX_WIRE_DEPTH } from '../wire-text';

export function header(req: RouteRequest, name: string): string | undefined {
  const value = req.headers?.[name] ?? req.headers?.[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** A query parameter as a string, or undefined. */
export function queryParam(req: RouteRequest, name: string): string | undefined {
  const value = req.query?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/**
 * A request body as the route sees it. `parsed` is set when the server parsed JSON itself (the
 * 1.7.2 server does for `Content-Type: application/json`); `text` is always the body as text
 * (parsed bodies re-serialised, one object as a one-row array).
 */
export interface RequestBody {
  text: string;
  parsed?: unknown;
}

/** The incoming stream behind an Express response, when the host passes one (`res.req`). */
type BodyStream = AsyncIterable<Uint8Array | string> & { readableEnded?: boolean; resume?: () => void };

/**
 * The request stream unless something read it already (`readableEnded`). Not `complete`: that is
 * true once the whole body has arrived, read or not, as it has when a handler waited (for the
 * services' start) before reading.
 */
function unreadStream(res: RouteResponse): BodyStream | null {
  const req = (res as { req?: unknown }).req as BodyStream | undefined;
  if (!req || typeof req[Symbol.asyncIterator] !== 'function' || req.readableEnded) return null;
  return req;
}

class BodyTooLarge extends Error {}

const isEmptyObject = (value: unknown): boolean => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/** Reads the stream up to `maxBytes`; throws BodyTooLarge as soon as it goes over (the rest is discarded, not buffered). */
async function readStream(stream: BodyStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    bytes += buffer.byteLength;
    if (bytes > maxBytes) throw new BodyTooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(res: RouteResponse, maxBytes: number): null {
  res.status(413).json({ error: `body larger than SELF_IMPROVE_MAX_BODY_BYTES (${maxBytes} bytes); split it into smaller batches` });
  return null;
}

function badRequest(res: RouteResponse, message: string): null {
  res.status(400).json({ error: message });
  return null;
}

/** A body the server already parsed as JSON: an array as it is, one object as a one-row array; the plugin's limit applies to it as sent. */
function parsedBody(value: unknown, res: RouteResponse, maxBytes: number, what: string): RequestBody | null {
  if (jsonNestingDepthExceeds(value, MAX_WIRE_DEPTH)) {
    return badRequest(res, `body is nested deeper than ${MAX_WIRE_DEPTH} levels; expected ${what}`);
  }
  if (value === null || typeof value !== 'object') return badRequest(res, `body must be ${what} (got JSON ${value === null ? 'null' : typeof value})`);
  if (isEmptyObject(value)) return badRequest(res, `body must be ${what} (got an empty JSON object)`);
  const text = JSON.stringify(Array.isArray(value) ? value : [value]);
  if (Buffer.byteLength(text) > maxBytes) return tooLarge(res, maxBytes);
  return { text, parsed: value };
}

/**
 * The body of a POST, whatever the host's body parser did with it, or null after answering:
 * JSON the server already parsed is used as it is (depth-checked, top level an array or object);
 * any other content type is read from the request stream with SELF_IMPROVE_MAX_BODY_BYTES enforced
 * while reading (413 naming the limit, as soon as it is exceeded); text must be UTF-8; an empty
 * body is a 400 saying what was expected (`what`).
 */
export async function readRequestBody(req: RouteRequest, res: RouteResponse, maxBytes: number, what: string): Promise<RequestBody | null> {
  const declared = Number(header(req, 'content-length') ?? 0);
  if (declared > maxBytes) return tooLarge(res, maxBytes);
  const body: unknown = req.body;
  const stream = unreadStream(res);
  let bytes: Uint8Array | null = null;
  if (typeof body === 'string') bytes = Buffer.from(body);
  else if (body instanceof Uint8Array) bytes = body;
  else if (stream && (body === undefined || isEmptyObject(body))) {
    try {
      bytes = await readStream(stream, maxBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      res.setHeader?.('Connection', 'close');
      stream.resume?.();
      return tooLarge(res, maxBytes);
    }
  } else if (body !== undefined) {
    return parsedBody(body, res, maxBytes, what);
  }
  if (bytes === null || bytes.byteLength === 0) return badRequest(res, `body must be ${what}`);
  if (bytes.byteLength > maxBytes) return tooLarge(res, maxBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return badRequest(res, `body is not valid UTF-8 text; expected ${what}`);
  }
  if (text.trim() === '') return badRequest(res, `body must be ${what}`);
  return { text };
}
