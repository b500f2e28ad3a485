// A TypeScript project that depends on the packed package, type-checked by the repository's tsc.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/packed-package';

export type ModuleResolution = 'nodenext' | 'bundler';

// The @ts-expect-error lines fail the check if the package's types degrade to `any`.
const PACKAGE_TYPES_USE = `import selfImprovePlugin, { settingsSchema, type OutcomeRow, type SelfImproveConfig, ScanOutcomeService } from 'plugin-self-improve';

export const pluginName: string = selfImprovePlugin.name;
export const config: SelfImproveConfig = settingsSchema.parse({});
export const windowDays: number = config.SELF_IMPROVE_WINDOW_DAYS;
export const label: OutcomeRow['label'] = 'fixed';
export const serviceType: string = ScanOutcomeService.serviceType;
// @ts-expect-error a number is not a string
export const wrongType: string = config.SELF_IMPROVE_WINDOW_DAYS;
// @ts-expect-error not an outcome label
export const wrongLabel: OutcomeRow['label'] = 'maybe';
`;

// @elizaos/core 1.7.2's own declarations import their modules without extensions, so under "nodenext"
// its named types (Plugin among them) do not resolve for anyone; ElizaOS projects use "bundler".
const CORE_TYPES_USE = `import type { Plugin } from '@elizaos/core';
export const plugin: Plugin = selfImprovePlugin;
`;

function consumerSource(moduleResolution: ModuleResolution): string {
  return moduleResolution === 'bundler' ? `${PACKAGE_TYPES_USE}${CORE_TYPES_USE}` : PACKAGE_TYPES_USE;
}

function tsconfigFor(moduleResolution: ModuleResolution) {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: moduleResolution === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
    files: ['consumer.ts'],
  };
}

/** Writes the consumer under `projectDir` (whose node_modules holds the package) and runs tsc on it. */
export function typeCheckConsumer(projectDir: string, moduleResolution: ModuleResolution): { status: number | null; output: string } {
  const consumerDir = path.join(projectDir, `consumer-${moduleResolution}`);
  mkdirSync(consumerDir, { recursive: true });
  writeFileSync(path.join(consumerDir, 'package.json'), JSON.stringify({ name: `consumer-${moduleResolution}`, type: 'module', private: true }));
  writeFileSync(path.join(consumerDir, 'tsconfig.json'), JSON.stringify(tsconfigFor(moduleResolution), null, 2));
  writeFileSync(path.join(consumerDir, 'consumer.ts'), consumerSource(moduleResolution));
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync('node', [tsc, '-p', consumerDir], { cwd: consumerDir, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}
