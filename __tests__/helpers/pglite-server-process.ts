import { existsSync } from 'node:fs';
import path from 'node:path';

/** The built package's command, run under Node as a user runs it (`npm run build` first when running a test file alone). */
const BIN = path.join(import.meta.dir, '..', '..', 'bin', 'self-improve.js');
const DIST_CLI = path.join(import.meta.dir, '..', '..', 'dist', 'cli', 'main.js');
const START_TIMEOUT_MS = 60_000;

export interface PgliteServerProcessOptions {
  /** The loopback port (default 0: a free one). */
  port?: number;
  /** What runs the command: Node, as `npx self-improve` does (default), or this Bun. */
  runtime?: 'node' | 'bun';
  /** `pipe` (default) keeps what it writes to stderr for `stop()`; `inherit` passes it on to this process's. */
  stderr?: 'pipe' | 'inherit';
  env?: Record<string, string | undefined>;
  /** How long it may take to listen (default 60 s; the bench's 1M directory takes PGlite longer to open). */
  startTimeoutMs?: number;
}

export interface PgliteServerProcess {
  url: string;
  port: number;
  pid: number;
  /** SIGTERM, then its exit code and what it wrote to stderr (empty when it was passed on). */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** What `self-improve pglite-server` printed before it exited, when it exits without listening. */
export class ServerExited extends Error {
  constructor(
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`self-improve pglite-server exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  }
}

/** Starts `self-improve pglite-server --db DATA_DIR --port PORT --json` and waits for its listening line. */
export async function startPgliteServerProcess(dataDir: string, options: PgliteServerProcessOptions = {}): Promise<PgliteServerProcess> {
  if (!existsSync(DIST_CLI)) throw new Error(`${DIST_CLI} is missing: run npm run build first`);
  const runtime = options.runtime === 'bun' ? process.execPath : 'node';
  const proc = Bun.spawn([runtime, BIN, 'pglite-server', '--db', dataDir, '--port', String(options.port ?? 0), '--json'], {
    stdout: 'pipe',
    stderr: options.stderr ?? 'pipe',
    env: options.env ?? process.env,
  });
  // stderr is read to its end all along: a pipe nobody reads would stop the server once full.
  const stderr = proc.stderr instanceof ReadableStream ? new Response(proc.stderr).text() : Promise.resolve('');
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let stdout = '';
  const timer = setTimeout(() => proc.kill(), options.startTimeoutMs ?? START_TIMEOUT_MS);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new ServerExited(await proc.exited, stdout, await stderr);
      stdout += decoder.decode(value, { stream: true });
      if (stdout.includes('\n')) break;
    }
  } finally {
    clearTimeout(timer);
  }
  // With --json a command that fails prints `{"error": …}` instead, and exits.
  const listening = JSON.parse(stdout.split('\n')[0] as string) as { url?: string; port?: number; error?: string };
  if (listening.url === undefined || listening.port === undefined) throw new ServerExited(await proc.exited, stdout, await stderr);
  // Read on to the end too (the server prints nothing more, but a pipe should not fill unread).
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => undefined);
  const { url, port } = listening;
  return {
    url,
    port,
    pid: proc.pid,
    async stop() {
      proc.kill('SIGTERM');
      return { code: await proc.exited, stderr: await stderr };
    },
  };
}
