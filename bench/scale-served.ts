import { type PgliteServerProcess, startPgliteServerProcess } from '../__tests__/helpers/pglite-server-process';
import { processMemoryMb } from './lib';

/**
 * A PGlite directory served by `self-improve pglite-server` in a process of its own (the built
 * package under Node, as a user runs it), for `bench/scale.ts` with SCALE_PGLITE_SERVER=1: the
 * agent reaches it through its URL, as it reaches PostgreSQL, and PGlite's file reads and writes
 * stop that process, not the agent's event loop.
 */
export interface ServedDirectory {
  dataDir: string;
  /** `postgres://…` of the server; the same across `whileStopped`. */
  url: string;
  /** Runs `work` with the server stopped (the directory free to copy), then serves it again on the same port. */
  whileStopped<T>(work: () => Promise<T>): Promise<T>;
  /** The server process's resident memory now and at its highest, in MB (`/proc/PID/status`). */
  memoryMb(): { rss_mb: number | null; peak_rss_mb: number | null };
  stop(): Promise<void>;
}

/** What runs the server: Node, as `npx self-improve` does (default), or this Bun (SCALE_PGLITE_SERVER_ENGINE=bun). */
export const SERVER_ENGINE = process.env.SCALE_PGLITE_SERVER_ENGINE === 'bun' ? 'bun' : 'node';

/** The built command on `dataDir`, its stderr passed on to the bench's. */
const startServer = (dataDir: string, port: number) => startPgliteServerProcess(dataDir, { port, runtime: SERVER_ENGINE, stderr: 'inherit', startTimeoutMs: 120_000 });

async function stopServer(server: PgliteServerProcess): Promise<void> {
  const { code } = await server.stop();
  if (code !== 0) throw new Error(`self-improve pglite-server exited with ${code} when stopped`);
}

/** Serves `dataDir` on a free loopback port until `stop()`. */
export async function serveDirectory(dataDir: string): Promise<ServedDirectory> {
  let server = await startServer(dataDir, 0);
  const port = server.port;
  return {
    dataDir,
    url: server.url,
    async whileStopped(work) {
      await stopServer(server);
      try {
        return await work();
      } finally {
        server = await startServer(dataDir, port);
      }
    },
    memoryMb: () => ({ rss_mb: processMemoryMb(server.pid, 'VmRSS'), peak_rss_mb: processMemoryMb(server.pid, 'VmHWM') }),
    stop: () => stopServer(server),
  };
}
