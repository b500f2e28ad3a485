// Runs before `npm test`: on a fresh clone (Node.js and npm only) it installs the project's
// dependencies, Bun and TypeScript included (the build needs both), from the npm registry. Does nothing
// when they are present.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const needed = ['node_modules/bun', 'node_modules/typescript', 'node_modules/@elizaos/core', 'node_modules/@elizaos/plugin-sql'];
if (!needed.every((p) => existsSync(p))) {
  const command = existsSync('package-lock.json') ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund';
  process.stderr.write(`[self-improve] installing dependencies: ${command}\n`);
  execSync(command, { stdio: ['ignore', 'inherit', 'inherit'] });
}
