// Builds the published package (`bun run build.ts`, or `npm run build`), as the ElizaOS plugin-starter does:
// ESM JavaScript for Node from Bun.build, every dependency left external, then type declarations from tsc.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = import.meta.dir;
const DIST = path.join(ROOT, 'dist');
const ENTRY_POINTS = ['src/index.ts', 'src/cli/main.ts'];

async function bundleJavaScript(): Promise<void> {
  const result = await Bun.build({
    entrypoints: ENTRY_POINTS.map((entry) => path.join(ROOT, entry)),
    root: path.join(ROOT, 'src'),
    outdir: DIST,
    target: 'node',
    format: 'esm',
    packages: 'external',
    splitting: true,
    sourcemap: 'linked',
  });
  if (!result.success) {
    for (const log of result.logs) process.stderr.write(`${log}\n`);
    throw new Error('Bun.build failed');
  }
}

function emitDeclarations(): void {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync('node', [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`tsc -p tsconfig.build.json exited with ${run.status}`);
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * `./config` -> `./config.js`, `./elo` -> `./elo/index.js`: src imports relative modules without
 * extensions (moduleResolution "bundler"); a consumer under "node16"/"nodenext" needs them spelled out.
 */
function withJsExtension(fromFile: string, specifier: string): string {
  const target = path.resolve(path.dirname(fromFile), specifier);
  if (existsSync(`${target}.d.ts`)) return `${specifier}.js`;
  if (existsSync(path.join(target, 'index.d.ts'))) return `${specifier}/index.js`;
  return specifier;
}

const RELATIVE_SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g;

function addJsExtensions(file: string): void {
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(RELATIVE_SPECIFIER, (_match, keyword: string, quote: string, specifier: string) => `${keyword}${quote}${withJsExtension(file, specifier)}${quote}`);
  if (rewritten !== text) writeFileSync(file, rewritten);
}

rmSync(DIST, { recursive: true, force: true });
await bundleJavaScript();
emitDeclarations();
for (const file of declarationFiles(DIST)) addJsExtensions(file);
process.stdout.write(`built ${path.relative(ROOT, DIST)}/: ${ENTRY_POINTS.join(', ')} and their declarations\n`);
