import { expect, test } from 'bun:test';
import { LONG_WAIT_MS, SessionTurns, type Turn } from '../../src/pglite-server/session-turns';

const turn = (statement: string, since: number): Turn => ({ statement, since });

test('the session goes to one connection at a time, to the waiters in the order they came', async () => {
  const turns = new SessionTurns();
  const [a, b, c] = [turn('a', 0), turn('b', 0), turn('c', 0)];
  const order: string[] = [];
  await turns.acquire(a);
  await turns.acquire(a); // the holder asking again keeps it
  const bTurn = turns.acquire(b).then(() => order.push('b'));
  const cTurn = turns.acquire(c).then(() => order.push('c'));
  await Bun.sleep(1);
  expect(order).toEqual([]);
  turns.release(b); // only the holder releases
  await Bun.sleep(1);
  expect(order).toEqual([]);
  turns.release(a);
  await bTurn;
  expect(turns.holds(b)).toBe(true);
  expect(order).toEqual(['b']);
  turns.release(b);
  await cTurn;
  expect(order).toEqual(['b', 'c']);
  expect(turns.holds(c)).toBe(true);
});

test('a connection gone while waiting is passed over', async () => {
  const turns = new SessionTurns();
  const [a, b, c] = [turn('a', 0), turn('b', 0), turn('c', 0)];
  await turns.acquire(a);
  void turns.acquire(b);
  const cTurn = turns.acquire(c);
  turns.forget(b);
  turns.release(a);
  await cTurn;
  expect(turns.holds(c)).toBe(true);
  expect(turns.holds(b)).toBe(false);
});

test('a long wait is told once per holder, with what the waiter and the holder ran', async () => {
  const turns = new SessionTurns();
  const holder = turn('INSERT INTO t VALUES (1)', 1_000);
  const waiter = turn('begin', 2_000);
  await turns.acquire(holder);
  void turns.acquire(waiter);
  expect(turns.longWait(2_000 + LONG_WAIT_MS - 1)).toBeNull();
  const line = turns.longWait(2_000 + LONG_WAIT_MS);
  expect(line).toContain('1 connection(s) waiting, the first for 10 s to run "begin"');
  expect(line).toContain('whose last statement, 11 s ago, was "INSERT INTO t VALUES (1)"');
  expect(turns.longWait(2_000 + 3 * LONG_WAIT_MS)).toBeNull();
  expect(new SessionTurns().longWait(1e12)).toBeNull();
});
