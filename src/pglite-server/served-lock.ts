import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pgliteDataDirInProcess } from '../shared/plugin-sql-globals';

/**
 * The lock of a PGlite directory served by `self-improve pglite-server`: a file beside it holding
 * the server's process id and, where the system tells it, which process that is (`lockText`). A
 * second server is refused, and so is anything of this package that would open the directory in
 * its own process (two PGlites on one directory corrupt it).
 */

/** The lock file of a served directory: beside it, not in it (PGlite makes a new database only in an empty directory). */
export const lockFileOf = (dataDir: string) => `${path.resolve(dataDir)}.pglite-server.lock`;
/** PGlite's name for a database that goes with the process: nothing to lock. */
export const IN_MEMORY = 'memory://';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Which process `pid` is, beyond its number, where the system tells (Linux's /proc): the boot and
 * the process's start time since boot. A number the system gave to another process since (after a
 * restart, say) then has another identity. Null where there is no /proc, or no such process.
 */
export function processIdentity(pid: number): string | null {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, which may hold spaces): state is the 3rd, start time the 22nd.
    const startTicks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return bootId && startTicks ? `${bootId}:${startTicks}` : null;
  } catch {
    return null;
  }
}

/** A lock file's text: the holder's process id, then its identity when the system tells one. */
export const lockText = (pid: number): string => [pid, processIdentity(pid)].filter((part) => part !== null).join(' ');

/**
 * The process id in a lock file when that process is alive and is the one that wrote it, else null
 * (no file, a dead holder's, or its number now another process's). A lock without an identity
 * (written where the system tells none) is judged by the number alone.
 */
function liveHolder(file: string): number | null {
  if (!existsSync(file)) return null;
  const [pidText, identity] = readFileSync(file, 'utf8').trim().split(' ');
  const holder = Number(pidText);
  if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) return null;
  if (identity === undefined) return holder;
  const now = processIdentity(holder);
  return now === null || now === identity ? holder : null;
}

/** Takes the directory for this process; throws naming the process that holds it. A dead holder's lock, or one whose number another process has now, is taken over. */
export function lockDirectory(dataDir: string): () => void {
  if (dataDir === IN_MEMORY) return () => undefined;
  mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, lockText(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = liveHolder(file);
      if (holder !== null) throw new Error(`${dataDir} is served by process ${holder} already (${file}); stop it first`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take ${file}`);
}

/** True when `dataDir` is served now by a live `self-improve pglite-server` (never `memory://`, which is never locked). */
export const isServed = (dataDir: string): boolean => dataDir !== IN_MEMORY && liveHolder(lockFileOf(dataDir)) !== null;

/**
 * Stops an agent's start when plugin-sql has opened, in the agent's own process, a directory that
 * `self-improve pglite-server` serves (PGLITE_DATA_DIR on it instead of POSTGRES_URL): by then
 * plugin-sql has opened it, but the agent writes nothing more to it.
 */
export function refuseServedDirectory(): void {
  const dataDir = pgliteDataDirInProcess();
  if (dataDir === undefined || !isServed(dataDir)) return;
  throw new Error(`${dataDir} is served by self-improve pglite-server (${lockFileOf(dataDir)}), and plugin-sql opened it in this process as well: two PGlites on one directory corrupt it. Start the agent with POSTGRES_URL set to the server's URL instead of PGLITE_DATA_DIR`);
}
