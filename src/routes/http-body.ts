import type { RouteRequest, RouteResponse } from '@elizaos/core';

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

/** The request body as text: raw strings and buffers as they are, parsed JSON re-serialised (one object as a one-row array). */
function bodyText(body: unknown): string | null {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (Array.isArray(body)) return JSON.stringify(body);
  if (body && typeof body === 'object') return JSON.stringify([body]);
  return null;
}

/**
 * The body of a POST as text, or null after answering: 413 when it is larger than
 * SELF_IMPROVE_MAX_BODY_BYTES, 400 when it is empty (`what` says what was expected).
 */
export function readBodyText(req: RouteRequest, res: RouteResponse, maxBytes: number, what: string): string | null {
  const declared = Number(header(req, 'content-length') ?? 0);
  const text = bodyText(req.body);
  if (declared > maxBytes || (text !== null && Buffer.byteLength(text) > maxBytes)) {
    res.status(413).json({ error: `body larger than SELF_IMPROVE_MAX_BODY_BYTES (${maxBytes} bytes); split it into smaller batches` });
    return null;
  }
  if (text === null || text.trim() === '') {
    res.status(400).json({ error: `body must be ${what}` });
    return null;
  }
  return text;
}
