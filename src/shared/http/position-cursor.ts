import type { Parsed } from './query-params';

/** A position in a list paged by (time, id): the time as the database wrote it, and the id. */
export interface Position {
  at: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A position as callers pass it back: opaque, URL-safe. */
export function encodePosition(position: Position): string {
  return Buffer.from(`${position.at}|${position.id}`, 'utf8').toString('base64url');
}

/**
 * A cursor parameter `name` back to its position, its time matching `timePattern` and its id a
 * UUID; otherwise a message naming the parameter and the response field (`field`) it must come
 * from. Absent or empty: no position (the first page).
 */
export function decodePosition(raw: string | undefined, name: string, field: string, timePattern: RegExp): Parsed<Position | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  const refused = { ok: false as const, message: `${name} must be the ${field} of a previous page (got ${JSON.stringify(raw.slice(0, 80))})` };
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return refused;
  const [at, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || at === undefined || id === undefined || !timePattern.test(at) || !UUID.test(id)) return refused;
  return { ok: true, value: { at, id } };
}
