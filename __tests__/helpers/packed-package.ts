// The package as npm publishes it: `npm pack` of the built tree, extracted where Node resolves
// `plugin-self-improve` from. Used by the package tests and by the real-server tests, so that what is
// tested is the tarball a user installs, not the source tree.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dir, '..', '..');
export const PACKAGE_NAME = 'plugin-self-improve';

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** The paths inside the package, as `npm pack` lists them (`dist/index.js`, `package.json`, …). */
  files: string[];
}

interface NpmPackEntry {
  filename: string;
  files: { path: string }[];
}

let packed: PackedPackage | undefined;

/**
 * Packs the repository once per process (again after `removePackedTarball`); the build (`npm run build`)
 * must have run.
 */
export function packPackage(): PackedPackage {
  if (packed && existsSync(packed.tarball)) return packed;
  if (!existsSync(path.join(REPO_ROOT, 'dist', 'index.js'))) {
    throw new Error(`${REPO_ROOT}/dist is missing: run npm run build (npm test does) before packing`);
  }
  const destination = mkdtempSync(path.join(tmpdir(), 'self-improve-pack-'));
  const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [entry] = JSON.parse(stdout) as NpmPackEntry[];
  if (!entry) throw new Error(`npm pack printed no package: ${stdout}`);
  packed = { tarball: path.join(destination, entry.filename), files: entry.files.map((file) => file.path) };
  return packed;
}

/** Deletes the tarball and its temporary folder (bun test runs no exit hooks): call it from afterAll. */
export function removePackedTarball(): void {
  if (packed) rmSync(path.dirname(packed.tarball), { recursive: true, force: true });
  packed = undefined;
}

/**
 * Places the packed package at `<nodeModulesDir>/plugin-self-improve`, replacing whatever was there
 * (a previous extraction, a link). Returns that directory.
 */
export function extractPacked(tarball: string, nodeModulesDir: string): string {
  const target = path.join(nodeModulesDir, PACKAGE_NAME);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return target;
}

/**
 * Links every top-level entry of the repository's node_modules (scopes as whole folders) into
 * `nodeModulesDir`, so that the extracted package finds its dependencies and peers the way it would
 * in a user's project. ES module resolution ignores NODE_PATH; links are what works.
 */
export function linkRepoDependencies(nodeModulesDir: string): void {
  mkdirSync(nodeModulesDir, { recursive: true });
  const repoModules = path.join(REPO_ROOT, 'node_modules');
  for (const name of readdirSync(repoModules)) {
    if (name === PACKAGE_NAME || name.startsWith('.')) continue;
    symlinkSync(path.join(repoModules, name), path.join(nodeModulesDir, name), 'junction');
  }
}

/** A fresh folder `<tmp>/node_modules/plugin-self-improve` holding the packed package, with its dependencies linked. */
export function installPackedInTempProject(): { projectDir: string; packageDir: string } {
  const projectDir = mkdtempSync(path.join(tmpdir(), 'self-improve-consumer-'));
  const nodeModulesDir = path.join(projectDir, 'node_modules');
  linkRepoDependencies(nodeModulesDir);
  const packageDir = extractPacked(packPackage().tarball, nodeModulesDir);
  return { projectDir, packageDir };
}
