import { isServed } from '../pglite-server/served-lock';
import { AgentRuntime, type Character, type Plugin, type UUID, stringToUuid } from '@elizaos/core';
import sqlPlugin from '@elizaos/plugin-sql';
import { sqlSingletons } from '../shared/plugin-sql-globals';
import { serviceSettled } from '../shared/service-of';

export interface BootOptions {
  /** PGlite directory, or `memory://` for a throw-away database. Ignored when `postgresUrl` is set. */
  dataDir?: string;
  postgresUrl?: string;
  /** Plugins besides plugin-sql: this plugin, model providers, test models. */
  plugins: Plugin[];
  /** Character settings (they win over process.env, as in any ElizaOS agent). */
  settings?: Record<string, string>;
  agentName?: string;
  agentId?: UUID;
}

export interface BootedRuntime {
  runtime: AgentRuntime;
  close(): Promise<void>;
}

/**
 * Drops plugin-sql's PGlite client and PostgreSQL pools from its globals; each runtime already
 * booted keeps its own. A second boot in one process must: the PGlite client is of the first data
 * directory, and the pool is keyed by server, not by URL, so a runtime booted on another database
 * would use the first one's pool (its database), and closing either would end the other's.
 */
function forgetSqlSingletons(): void {
  const singletons = sqlSingletons();
  if (!singletons) return;
  delete singletons.pgLiteClientManager;
  delete singletons.postgresConnectionManagers;
}

/**
 * Boots a real AgentRuntime on plugin-sql (PGlite, or PostgreSQL when `postgresUrl` is set).
 * Every plugin is registered first (their services wait for `initialize`), then all schemas are
 * migrated while nothing else uses the database, then `initialize` runs without migrating again.
 * plugin-sql 1.7.2 sends a migration's BEGIN and COMMIT as separate pool queries; run beside
 * `initialize`'s own queries (as `initialize` does when it migrates) they can land on other
 * connections, which a proxy that serialises transactions (pglite-socket) never lets finish.
 */
export async function bootRuntime(options: BootOptions): Promise<BootedRuntime> {
  forgetSqlSingletons();
  const name = options.agentName ?? 'self-improve-agent';
  const settings: Record<string, string> = { ...(options.settings ?? {}) };
  if (options.postgresUrl) settings.POSTGRES_URL = options.postgresUrl;
  else if (options.dataDir) {
    // Two PGlites on one directory corrupt it: one served by `self-improve pglite-server` is reached through its URL.
    if (isServed(options.dataDir)) throw new Error(`${options.dataDir} is served by self-improve pglite-server: set POSTGRES_URL to its URL instead of opening the directory`);
    settings.PGLITE_DATA_DIR = options.dataDir;
  }
  const character: Character = {
    id: options.agentId ?? stringToUuid(name),
    name,
    bio: ['An agent that learns from the outcomes of its scans.'],
    plugins: [],
    settings,
  };
  const runtime = new AgentRuntime({ character, plugins: [] });
  try {
    await runtime.registerPlugin(sqlPlugin);
    for (const plugin of options.plugins) await runtime.registerPlugin(plugin);
    await runtime.runPluginMigrations();
    await runtime.initialize({ skipMigrations: true });
  } catch (error) {
    await runtime.close().catch(() => undefined);
    forgetSqlSingletons();
    throw error;
  }
  let closed = false;
  return {
    runtime,
    async close() {
      if (closed) return;
      closed = true;
      // Services start in the background after initialize; stopping under one that is still
      // reading its tables would fail it with a closed pool. Wait for each to be up (or failed).
      const types = options.plugins.flatMap((plugin) => plugin.services ?? []).map((service) => service.serviceType);
      await Promise.all(types.map((type) => serviceSettled(runtime, type)));
      await runtime.stop();
      // Let pending log inserts finish before the database goes away (the runtime writes logs without awaiting them).
      await new Promise((resolve) => setTimeout(resolve, 0));
      const db = runtime.db as { execute?: (q: unknown) => Promise<unknown> } | undefined;
      const { sql } = await import('drizzle-orm');
      if (db?.execute) await db.execute(sql`select 1`);
      await runtime.close();
      forgetSqlSingletons();
    },
  };
}
