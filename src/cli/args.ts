/** Parsed command line: the command, its positional arguments and its flags. */
export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  flags: Map<string, string | true>;
}

/** Flags that take a value; every other `--flag` is a boolean. */
const VALUE_FLAGS = new Set(['db', 'now', 'k', 'project', 'model-provider', 'model-name', 'out', 'format', 'limit', 'category', 'checkpoint', 'status', 'before', 'slices', 'port']);

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (VALUE_FLAGS.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else {
      flags.set(name, true);
    }
  }
  const [command, ...rest] = positionals;
  return { command, positionals: rest, flags };
}
