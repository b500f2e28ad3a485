import type { Parsed } from '../../shared/http/query-params';
import { decodePosition, encodePosition } from '../../shared/http/position-cursor';

/** Where a page of lessons ends (newest evidence first): the last one's `last_seen` as stored and its id. */
export interface ScanLessonCursor {
  lastSeen: string;
  id: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** The cursor as callers pass it back (`after=`): opaque, URL-safe. */
export function encodeLessonCursor(cursor: ScanLessonCursor): string {
  return encodePosition({ at: cursor.lastSeen, id: cursor.id });
}

/** An `after=` value back to its cursor; otherwise a message naming the parameter. Absent: no cursor (the first page). */
export function decodeLessonCursor(raw: string | undefined, name: string): Parsed<ScanLessonCursor | null> {
  const decoded = decodePosition(raw, name, 'next_after', ISO);
  if (!decoded.ok) return decoded;
  if (decoded.value === null) return { ok: true, value: null };
  return { ok: true, value: { lastSeen: decoded.value.at, id: decoded.value.id.toLowerCase() } };
}
