import type { Parsed } from '../../shared/http/query-params';

/** Where a page of lessons ends (newest evidence first): the last one's `last_seen` as stored and its id. */
export interface ScanLessonCursor {
  lastSeen: string;
  id: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor as callers pass it back (`after=`): opaque, URL-safe. */
export function encodeLessonCursor(cursor: ScanLessonCursor): string {
  return Buffer.from(`${cursor.lastSeen}|${cursor.id}`, 'utf8').toString('base64url');
}

/** An `after=` value back to its cursor; otherwise a message naming the parameter. Absent: no cursor (the first page). */
export function decodeLessonCursor(raw: string | undefined, name: string): Parsed<ScanLessonCursor | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  const refused = { ok: false as const, message: `${name} must be the next_after of a previous page (got ${JSON.stringify(raw.slice(0, 80))})` };
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return refused;
  const [lastSeen, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || lastSeen === undefined || id === undefined || !ISO.test(lastSeen) || !UUID.test(id)) return refused;
  return { ok: true, value: { lastSeen, id: id.toLowerCase() } };
}
