#!/usr/bin/env node
// The `self-improve` command. The plugin runs on Bun (a devDependency from the npm registry, or
// one on PATH); this shim finds it and runs the TypeScript CLI with the same arguments.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const local = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.cmd' : 'bun');
const bun = existsSync(local) ? local : 'bun';
const result = spawnSync(bun, ['run', path.join(root, 'src', 'cli', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`self-improve: cannot start Bun (${result.error.message}); run npm install in ${root}\n`);
  process.exit(1);
}
process.exit(result.status ?? 1);
