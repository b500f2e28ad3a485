#!/usr/bin/env node
// The `self-improve` command: runs the built CLI (dist/cli/main.js) on Node alone.
import { existsSync } from 'node:fs';

// Before the CLI is loaded: the runtime's logger reads LOG_LEVEL when it loads, and a command line tool
// shows warnings and errors only unless the user asks for more.
process.env.LOG_LEVEL ??= 'warn';

const cli = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(`self-improve: ${cli.pathname} is missing; run npm run build in the package first\n`);
  process.exit(1);
}
const { runCli } = await import(cli.href);
process.exit(await runCli(process.argv.slice(2)));
