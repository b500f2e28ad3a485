import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

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
  memoryMb(): { rss_mb: number; peak_rss_mb: number };
  stop(): Promise<void>;
}

const BIN = path.join(import.meta.dir, '..', 'bin', 'self-improve.js');
const DIST = path.join(import.meta.dir, '..', 'dist', 'cli', 'main.js');
const START_TIMEOUT_MS = 120_000;
/** What runs the server: Node, as `npx self-improve` does (default), or this Bun (SCALE_PGLITE_SERVER_ENGINE=bun). */
export const SERVER_ENGINE = process.env.SCALE_PGLITE_SERVER_ENGINE === 'bun' ? 'bun' : 'node';

async function startServer(dataDir: string, port: number): Promise<{ process: ReturnType<typeof Bun.spawn>; url: string; port: number }> {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: SCALE_PGLITE_SERVER runs the built package (npm run build first)`);
  const child = Bun.spawn([SERVER_ENGINE === 'bun' ? process.execPath : 'node', BIN, 'pglite-server', '--db', dataDir, '--port', String(port), '--json'], { stdout: 'pipe', stderr: 'inherit' });
  const reader = child.stdout.getReader();
  const timer = setTimeout(() => child.kill(), START_TIMEOUT_MS);
  let seen = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`self-improve pglite-server on ${dataDir} exited before it listened (exit ${await child.exited}): ${seen}`);
      seen += new TextDecoder().decode(value);
      const line = seen.split('\n')[0];
      if (seen.includes('\n') && line) {
        // With --json a command that fails prints `{"error": …}` instead, and exits.
        const listening = JSON.parse(line) as { url?: string; port?: number; error?: string };
        if (listening.url === undefined || listening.port === undefined) throw new Error(`self-improve pglite-server on ${dataDir}: ${listening.error ?? line}`);
        return { process: child, url: listening.url, port: listening.port };
      }
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

async function stopServer(child: ReturnType<typeof Bun.spawn>): Promise<void> {
  child.kill('SIGTERM');
  const code = await child.exited;
  if (code !== 0) throw new Error(`self-improve pglite-server exited with ${code} when stopped`);
}

const statusMb = (pid: number, field: string) => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
};

/** Serves `dataDir` on a free loopback port until `stop()`. */
export async function serveDirectory(dataDir: string): Promise<ServedDirectory> {
  let server = await startServer(dataDir, 0);
  const port = server.port;
  return {
    dataDir,
    url: server.url,
    async whileStopped(work) {
      await stopServer(server.process);
      try {
        return await work();
      } finally {
        server = await startServer(dataDir, port);
      }
    },
    memoryMb: () => ({ rss_mb: statusMb(server.process.pid, 'VmRSS'), peak_rss_mb: statusMb(server.process.pid, 'VmHWM') }),
    stop: () => stopServer(server.process),
  };
}
