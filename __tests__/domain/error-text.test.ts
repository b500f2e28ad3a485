import { describe, expect, test } from 'bun:test';
import { errorText } from '../../src/shared/error-text';

describe('errorText: an error in words for a log line', () => {
  test('an error without a cause is its message; anything else, its string', () => {
    expect(errorText(new Error('disk full'))).toBe('disk full');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(42)).toBe('42');
    expect(errorText(undefined)).toBe('undefined');
  });

  test("a wrapped database error names the database's own reason, from the innermost cause", () => {
    const driver = new Error('timeout exceeded when trying to connect');
    const pool = new Error('pool', { cause: driver });
    const drizzle = new Error('Failed query: SELECT count(*) FROM t\nparams: 1', { cause: pool });
    expect(errorText(drizzle)).toBe('Failed query: SELECT count(*) FROM t\nparams: 1 (cause: timeout exceeded when trying to connect)');
  });

  test('a cause the message already says is not said twice; a cause that is not an Error is said as a string', () => {
    expect(errorText(new Error('x failed: deadlock detected', { cause: new Error('deadlock detected') }))).toBe('x failed: deadlock detected');
    expect(errorText(new Error('wrapped', { cause: 'a string reason' }))).toBe('wrapped (cause: a string reason)');
  });

  test('a cycle of causes ends', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errorText(b)).toMatch(/^b/);
  });
});
