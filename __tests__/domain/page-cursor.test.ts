import { describe, expect, test } from 'bun:test';
import { decodeCursor, encodeCursor } from '../../src/trajectories/model/page-cursor';

describe('trajectory page cursors', () => {
  test('a cursor comes back as it was made, microseconds and all', () => {
    for (const cursor of [
      { createdAt: '2026-01-01 00:00:00', id: '0190a4c2-7d6f-7a8b-9c0d-1e2f3a4b5c6d' },
      { createdAt: '2026-11-21 18:00:00.123456', id: 'FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFFF' },
    ]) {
      const text = encodeCursor(cursor);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(text, 'before')).toEqual({ ok: true, value: cursor });
    }
  });

  test('absent is the newest page', () => {
    expect(decodeCursor(undefined, 'before')).toEqual({ ok: true, value: null });
    expect(decodeCursor('', 'before')).toEqual({ ok: true, value: null });
  });

  test('anything else is refused with a message naming the parameter', () => {
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    for (const raw of ['not a cursor', 'a+b/c=', forged('2026-01-01 00:00:00'), forged('2026-01-01 00:00:00|nope'), forged("2026-01-01'; DROP TABLE memories; --|0190a4c2-7d6f-7a8b-9c0d-1e2f3a4b5c6d"), forged('2026-01-01 00:00:00|0190a4c2-7d6f-7a8b-9c0d-1e2f3a4b5c6d|x')]) {
      expect(decodeCursor(raw, 'before')).toEqual({ ok: false, message: `before must be the next_before of a previous page (got ${JSON.stringify(raw.slice(0, 80))})` });
    }
  });
});
