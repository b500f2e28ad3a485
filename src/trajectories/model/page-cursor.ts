import type { Parsed } from '../../shared/http/query-params';

/**
 * Where a page of stored trajectories ends: the last one's storage time (the database's own text
 * of `created_at`, so no precision is lost) and id. Pages are ordered newest first by
 * (created_at, id); the next page holds the rows strictly before this position.
 */
export interface PageCursor {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor as callers pass it back (`before=`): opaque, URL-safe. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');
}

/** A `before=` value back to its cursor; otherwise a message naming the parameter. Absent: no cursor (the newest page). */
export function decodeCursor(raw: string | undefined, name: string): Parsed<PageCursor | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  const refused = { ok: false as const, message: `${name} must be the next_before of a previous page (got ${JSON.stringify(raw.slice(0, 80))})` };
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return refused;
  const [createdAt, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || createdAt === undefined || id === undefined || !TIMESTAMP.test(createdAt) || !UUID.test(id)) return refused;
  return { ok: true, value: { createdAt, id } };
}
