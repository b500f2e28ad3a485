// plugin-sql 1.7.2 ships typings that point at files it does not ship; this shim
// declares the exports this package and its tests use.
declare module '@elizaos/plugin-sql' {
  import type { Plugin } from '@elizaos/core';
  export const plugin: Plugin;
  const sqlPlugin: Plugin;
  export default sqlPlugin;
  /** Migrates plugins' drizzle schemas (what the runtime runs for `Plugin.schema`), on a drizzle database. */
  export class DatabaseMigrationService {
    initializeWithDatabase(db: unknown): Promise<void>;
    registerSchema(pluginName: string, schema: Record<string, unknown>): void;
    runAllPluginMigrations(options?: { verbose?: boolean; force?: boolean; dryRun?: boolean }): Promise<void>;
  }
}
