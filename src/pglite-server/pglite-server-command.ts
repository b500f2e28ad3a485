import { type ParsedArgs, UsageError } from '../cli/args';
import { printResult } from '../cli/output';
import { type CommandResult, DEFAULT_DB_DIR } from '../cli/session';
import { startPgliteServer } from './pglite-server';

/** The port `pglite-server` listens on unless told (5432 is left to a real PostgreSQL). */
export const DEFAULT_PGLITE_SERVER_PORT = 5433;

function portFlag(args: ParsedArgs): number {
  const raw = args.flags.get('port');
  if (raw === undefined) return DEFAULT_PGLITE_SERVER_PORT;
  const port = typeof raw === 'string' && /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port: ${JSON.stringify(raw)} is not a port (0 to 65535; 0 picks a free one)`);
  return port;
}

/**
 * `pglite-server [--db DIR] [--port N]`: serves the PGlite directory on 127.0.0.1 until SIGINT or
 * SIGTERM, then closes it cleanly. Prints one line once it accepts connections: the URL for
 * POSTGRES_URL (with --json, `{"url","port","dataDir"}`).
 */
export async function pgliteServerCommand(args: ParsedArgs): Promise<CommandResult> {
  const dbFlag = args.flags.get('db');
  const dataDir = typeof dbFlag === 'string' ? dbFlag : DEFAULT_DB_DIR;
  const port = portFlag(args);
  const server = await startPgliteServer({ dataDir, port });
  const listening = { url: server.url, port: server.port, dataDir };
  printResult(args.flags.has('json') ? JSON.stringify(listening) : `serving ${dataDir} at ${server.url} (POSTGRES_URL); stop with Ctrl-C`);
  const signal = await new Promise<string>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => resolve(name));
  });
  await server.close();
  process.stderr.write(`pglite-server: ${signal}: ${dataDir} closed\n`);
  return { exitCode: 0, json: listening, text: '', printed: true };
}
