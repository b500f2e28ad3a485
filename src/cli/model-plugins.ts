import type { Plugin } from '@elizaos/core';
import { errorText } from '../shared/error-text';

/**
 * Model provider plugins named in SELF_IMPROVE_MODEL_PLUGINS (comma-separated package names,
 * e.g. `@elizaos/plugin-openai`), for the CLI and the demo. None named: no language model, and
 * the plugin runs in its documented statistics-only mode.
 */
export async function loadModelPlugins(names = process.env.SELF_IMPROVE_MODEL_PLUGINS ?? ''): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const name of names.split(',').map((n) => n.trim()).filter(Boolean)) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(name)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`SELF_IMPROVE_MODEL_PLUGINS names ${name}, which cannot be loaded (is it installed?): ${errorText(error)}`);
    }
    const plugin = (mod.default ?? Object.values(mod).find((v) => v && typeof v === 'object' && 'models' in (v as object))) as Plugin | undefined;
    if (!plugin?.name) throw new Error(`SELF_IMPROVE_MODEL_PLUGINS names ${name}, which exports no ElizaOS plugin`);
    plugins.push(plugin);
  }
  return plugins;
}
