import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pgliteDataDirInProcess } from '../shared/plugin-sql-globals';

/**
 * The lock of a PGlite directory served by `self-improve pglite-server`: a file beside it holding
 * the server's process id. A second server is refused, and so is anything of this package that
 * would open the directory in its own process (two PGlites on one directory corrupt it).
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

/** The process id in a lock file when that process is alive, else null (no file, or a dead holder's). */
function liveHolder(file: string): number | null {
  if (!existsSync(file)) return null;
  const holder = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(holder) && holder > 0 && isAlive(holder) ? holder : null;
}

/** Takes the directory for this process; throws naming the process that holds it. A dead holder's lock is taken over. */
export function lockDirectory(dataDir: string): () => void {
  if (dataDir === IN_MEMORY) return () => undefined;
  mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
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

/** True when `dataDir` is served now by a live `self-improve pglite-server`. */
export const isServed = (dataDir: string): boolean => liveHolder(lockFileOf(dataDir)) !== null;

/**
 * Stops an agent's start when plugin-sql has opened, in the agent's own process, a directory that
 * `self-improve pglite-server` serves (PGLITE_DATA_DIR on it instead of POSTGRES_URL): by then
 * plugin-sql has opened it, but the agent writes nothing more to it.
 */
export function refuseServedDirectory(): void {
  const dataDir = pgliteDataDirInProcess();
  if (dataDir === undefined || dataDir === IN_MEMORY || !isServed(dataDir)) return;
  throw new Error(`${dataDir} is served by self-improve pglite-server (${lockFileOf(dataDir)}), and plugin-sql opened it in this process as well: two PGlites on one directory corrupt it. Start the agent with POSTGRES_URL set to the server's URL instead of PGLITE_DATA_DIR`);
}
