import path from 'node:path';

/** The CLI's source, run with Bun as `npm run self-improve` runs it. */
export const CLI_SOURCE = path.join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts');

export interface CliRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the CLI in a process of its own with exactly `env` as its environment; its output and exit code. */
export async function runCli(args: readonly string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const proc = Bun.spawn([process.execPath, 'run', CLI_SOURCE, ...args], { stdout: 'pipe', stderr: 'pipe', env });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
