import { afterAll, afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isServed, lockDirectory, lockFileOf, lockText, processIdentity, refuseServedDirectory } from '../../src/pglite-server/served-lock';

const SQL_SINGLETONS = Symbol.for('@elizaos/plugin-sql/global-singletons');
const globals = globalThis as Record<symbol, Record<string, unknown> | undefined>;
const dir = mkdtempSync(path.join(tmpdir(), 'self-improve-lock-'));
let restore: (() => void) | null = null;

/** plugin-sql's singletons as they are while it runs PGlite on `dataDir` in this process. */
function pluginSqlOn(dataDir: string): void {
  const before = globals[SQL_SINGLETONS];
  const had = before !== undefined && 'pgLiteClientManager' in before;
  const manager = before?.pgLiteClientManager;
  globals[SQL_SINGLETONS] ??= {};
  (globals[SQL_SINGLETONS] as Record<string, unknown>).pgLiteClientManager = { client: { dataDir } };
  restore = () => {
    if (had) (globals[SQL_SINGLETONS] as Record<string, unknown>).pgLiteClientManager = manager;
    else delete (globals[SQL_SINGLETONS] as Record<string, unknown>).pgLiteClientManager;
  };
}

afterEach(() => {
  restore?.();
  restore = null;
});

test('one holder: a second lock is refused naming the holder; released, it is free again', () => {
  const dataDir = path.join(dir, 'db');
  const unlock = lockDirectory(dataDir);
  expect(existsSync(lockFileOf(dataDir))).toBe(true);
  expect(isServed(dataDir)).toBe(true);
  expect(() => lockDirectory(dataDir)).toThrow(`${dataDir} is served by process ${process.pid} already`);
  unlock();
  expect(isServed(dataDir)).toBe(false);
  lockDirectory(dataDir)();
});

test("a dead holder's lock is taken over; memory:// is never locked", () => {
  const dataDir = path.join(dir, 'stale');
  writeFileSync(lockFileOf(dataDir), '2147483646');
  expect(isServed(dataDir)).toBe(false);
  const unlock = lockDirectory(dataDir);
  expect(isServed(dataDir)).toBe(true);
  unlock();
  lockDirectory('memory://')();
  expect(existsSync(lockFileOf('memory://'))).toBe(false);
});

test.if(process.platform === 'linux')("a lock whose process id now belongs to another process is taken over; one in the old form (the id alone) is judged by the id", () => {
  const identity = processIdentity(process.pid);
  expect(identity).toMatch(/^[0-9a-f-]{36}:\d+$/);
  expect(lockText(process.pid)).toBe(`${process.pid} ${identity}`);
  const dataDir = path.join(dir, 'reused');
  // This process's id, written by a process that started at another time: the id was given again.
  writeFileSync(lockFileOf(dataDir), `${process.pid} ${identity?.replace(/:\d+$/, ':1')}`);
  expect(isServed(dataDir)).toBe(false);
  const unlock = lockDirectory(dataDir);
  expect(isServed(dataDir)).toBe(true);
  unlock();
  writeFileSync(lockFileOf(dataDir), String(process.pid));
  expect(isServed(dataDir)).toBe(true);
  expect(() => lockDirectory(dataDir)).toThrow(`is served by process ${process.pid} already`);
  rmSync(lockFileOf(dataDir));
});

test('an agent whose plugin-sql opened a served directory in its own process is stopped', () => {
  const dataDir = path.join(dir, 'agent');
  const unlock = lockDirectory(dataDir);
  pluginSqlOn(dataDir);
  expect(() => refuseServedDirectory()).toThrow(`${dataDir} is served by self-improve pglite-server`);
  unlock();
  expect(() => refuseServedDirectory()).not.toThrow();
  pluginSqlOn('memory://');
  expect(() => refuseServedDirectory()).not.toThrow();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
