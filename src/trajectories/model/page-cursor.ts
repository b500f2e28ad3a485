import type { Parsed } from '../../shared/http/query-params';
import { decodePosition, encodePosition } from '../../shared/http/position-cursor';

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

/** The cursor as callers pass it back (`before=`): opaque, URL-safe. */
export function encodeCursor(cursor: PageCursor): string {
  return encodePosition({ at: cursor.createdAt, id: cursor.id });
}

/** A `before=` value back to its cursor; otherwise a message naming the parameter. Absent: no cursor (the newest page). */
export function decodeCursor(raw: string | undefined, name: string): Parsed<PageCursor | null> {
  const decoded = decodePosition(raw, name, 'next_before', TIMESTAMP);
  if (!decoded.ok) return decoded;
  if (decoded.value === null) return { ok: true, value: null };
  return { ok: true, value: { createdAt: decoded.value.at, id: decoded.value.id } };
}
