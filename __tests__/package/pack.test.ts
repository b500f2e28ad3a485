// The published package, tested as a user gets it: `npm pack`, extracted into a project's
// node_modules, loaded and run by plain Node (no Bun, no TypeScript sources).
import { afterAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import * as source from '../../src/index';
import { installPackedInTempProject, PACKAGE_NAME, packPackage, removePackedTarball } from '../helpers/packed-package';
import { typeCheckConsumer } from './consumer-types';

const SLOW = 180_000;

let project: { projectDir: string; packageDir: string } | undefined;
function consumerProject() {
  project ??= installPackedInTempProject();
  return project;
}

afterAll(() => {
  if (project) rmSync(project.projectDir, { recursive: true, force: true });
  removePackedTarball();
});

function runNode(args: string[], cwd: string) {
  const run = spawnSync('node', args, { cwd, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface PluginLike {
  name: string;
  services?: { serviceType: string }[];
  providers?: { name: string }[];
  actions?: { name: string }[];
  evaluators?: { name: string }[];
  routes?: unknown[];
}

function summarize(mod: Record<string, unknown>) {
  const plugin = mod.default as PluginLike;
  return {
    name: plugin.name,
    services: (plugin.services ?? []).map((service) => service.serviceType),
    providers: (plugin.providers ?? []).map((provider) => provider.name),
    actions: (plugin.actions ?? []).map((action) => action.name),
    evaluators: (plugin.evaluators ?? []).map((evaluator) => evaluator.name),
    routes: (plugin.routes ?? []).length,
    exports: Object.keys(mod).sort(),
  };
}

/** Module specifiers of the static imports, re-exports and literal dynamic imports in bundled ESM. */
function importedSpecifiers(javascript: string): string[] {
  const statements = /^(?:import|export)\b[^;"]*?\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm;
  return [...javascript.matchAll(statements)].map((match) => (match[1] ?? match[2] ?? match[3]) as string);
}

// Bun strips summarize's types, so its text is plain JavaScript: Node runs the very same function.
const SUMMARY_SCRIPT = `
const mod = await import('${PACKAGE_NAME}');
const summarize = ${summarize.toString()};
process.stdout.write(JSON.stringify(summarize(mod)));
`;

test('the tarball holds the build, the bin, the examples and the README, and no sources, tests, benches or scripts', () => {
  const { files } = packPackage();
  for (const needed of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/cli/main.d.ts', 'bin/self-improve.js', 'examples/character.json', 'examples/outcomes.jsonl']) {
    expect(files).toContain(needed);
  }
  expect(files.filter((file) => /^(src|__tests__|bench|scripts)\//.test(file))).toEqual([]);
  expect(files.filter((file) => /fixture|\.tgz$|(^|\/)\.self-improve\//i.test(file))).toEqual([]);
}, SLOW);

test('every file the README links to is in the tarball', () => {
  const { files } = packPackage();
  const readme = readFileSync(path.join(consumerProject().packageDir, 'README.md'), 'utf8');
  const linked = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1] as string).filter((target) => !/^[a-z]+:/i.test(target));
  expect(linked.length).toBeGreaterThan(0);
  expect(linked.filter((target) => !files.includes(target.replace(/^\.\//, '')))).toEqual([]);
}, SLOW);

test('package.json entry points name files that are in the tarball', () => {
  const { files } = packPackage();
  const manifest = JSON.parse(readFileSync(path.join(consumerProject().packageDir, 'package.json'), 'utf8'));
  const entryPoints = [manifest.main, manifest.module, manifest.types, manifest.exports['.'].types, manifest.exports['.'].import, manifest.bin['self-improve']];
  expect(entryPoints.map((entry: string) => entry.replace(/^\.\//, '')).filter((entry) => !files.includes(entry))).toEqual([]);
}, SLOW);

test('the built JavaScript imports only Node built-ins, dependencies and peer dependencies', () => {
  const { packageDir } = consumerProject();
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
  const dist = path.join(packageDir, 'dist');
  const jsFiles = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
  const bare = new Set<string>();
  for (const file of jsFiles) {
    for (const specifier of importedSpecifiers(readFileSync(path.join(dist, file), 'utf8'))) {
      if (!specifier.startsWith('.')) bare.add(specifier);
    }
  }
  const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const undeclared = [...bare].filter((specifier) => !isBuiltin(specifier) && !declared.has(packageOf(specifier)));
  expect(bare.has('@elizaos/core')).toBe(true);
  expect(undeclared).toEqual([]);
}, SLOW);

test('plain Node imports the packed plugin: the same plugin and named exports as the sources', () => {
  const { projectDir } = consumerProject();
  const run = runNode(['--input-type=module', '-e', SUMMARY_SCRIPT], projectDir);
  expect(run.stderr).not.toContain('Error');
  expect(run.status).toBe(0);
  const packed = JSON.parse(run.stdout);
  expect(packed).toEqual(summarize(source as unknown as Record<string, unknown>));
  expect(packed.name).toBe('self-improve');
  expect(packed.providers).toEqual(expect.arrayContaining(['SCAN_LESSONS', 'HIGH_ELO_CONTEXT', 'TOP_RULES']));
  expect(packed.services.length).toBeGreaterThan(0);
  expect(packed.actions).toContain('LABEL_FINDING');
  expect(packed.routes).toBeGreaterThan(0);
}, SLOW);

test('the packed bin runs on Node: --help, then ingest and ledger verify on a fresh database', () => {
  const { projectDir, packageDir } = consumerProject();
  const bin = path.join(packageDir, 'bin', 'self-improve.js');
  const help = runNode([bin, '--help'], projectDir);
  expect(help.status).toBe(0);
  expect(help.stderr).toContain('self-improve <command> [options]');
  expect(help.stderr).toContain('ledger verify');

  const db = path.join(projectDir, 'db');
  const examples = path.join(packageDir, 'examples', 'outcomes.jsonl');
  const rowCount = readFileSync(examples, 'utf8').trim().split('\n').length;
  const ingest = runNode([bin, 'ingest', examples, '--db', db, '--json'], projectDir);
  expect(ingest.status).toBe(0);
  expect(JSON.parse(ingest.stdout)).toMatchObject({ rows: rowCount, accepted: rowCount, rejected: [] });

  const verify = runNode([bin, 'ledger', 'verify', '--db', db, '--json'], projectDir);
  expect(verify.status).toBe(0);
  expect(JSON.parse(verify.stdout).verification).toMatchObject({ ok: true });
}, SLOW);

test.each(['nodenext', 'bundler'] as const)("a consumer's tsc (moduleResolution %s, skipLibCheck) types the default export and named types", (moduleResolution) => {
  const { projectDir } = consumerProject();
  const check = typeCheckConsumer(projectDir, moduleResolution);
  expect(check.output).toBe('');
  expect(check.status).toBe(0);
}, SLOW);
