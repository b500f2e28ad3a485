// package.json's agentConfig is what ElizaOS tools show about the plugin's settings: it must list
// exactly the settings the plugin reads, with the defaults it really uses.
import { expect, test } from 'bun:test';
import { z } from 'zod';
import manifest from '../../package.json';
import { SENSITIVE_SETTINGS } from '../../src/shared/config';
import { settingsSchema } from '../../src/index';

interface PluginParameter {
  type: 'string' | 'number' | 'boolean';
  description: string;
  required: boolean;
  default?: string | number | boolean;
  sensitive: boolean;
}

const parameters = manifest.agentConfig.pluginParameters as Record<string, PluginParameter>;
const defaults = settingsSchema.parse({}) as Record<string, unknown>;

/** The declared type a setting's schema calls for: `true`/`false` enums are booleans. */
function expectedType(schema: z.ZodTypeAny, parsedDefault: unknown): PluginParameter['type'] {
  const inner = schema instanceof z.ZodDefault ? schema.removeDefault() : schema;
  const isBooleanEnum = inner instanceof z.ZodEnum && [...inner.options].sort().join(',') === 'false,true';
  return isBooleanEnum ? 'boolean' : typeof parsedDefault === 'number' ? 'number' : 'string';
}

test('agentConfig names the ElizaOS plugin type', () => {
  expect(manifest.agentConfig.pluginType).toBe('elizaos:plugin:1.0.0');
});

test('pluginParameters lists exactly the settings of settingsSchema', () => {
  expect(Object.keys(parameters).sort()).toEqual(Object.keys(settingsSchema.shape).sort());
});

test.each(Object.entries(settingsSchema.shape))('%s: type, default, one-line description, optional, sensitive only when it is a secret', (name, schema) => {
  const parameter = parameters[name];
  expect(parameter).toBeDefined();
  const stated = parameter?.default;
  expect(stated === undefined ? undefined : String(stated)).toBe(defaults[name] === undefined ? undefined : String(defaults[name]));
  expect(parameter?.type).toBe(expectedType(schema as z.ZodTypeAny, defaults[name]));
  expect(typeof stated === 'undefined' || typeof stated === parameter?.type).toBe(true);
  expect(parameter?.description.trim().length).toBeGreaterThan(10);
  expect(parameter?.description).not.toContain('\n');
  expect(parameter?.required).toBe(false);
  expect(parameter?.sensitive).toBe(SENSITIVE_SETTINGS.has(name));
});
