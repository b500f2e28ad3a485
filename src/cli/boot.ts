import { AgentRuntime, type Character, type Plugin, type UUID, stringToUuid } from '@elizaos/core';
import sqlPlugin from '@elizaos/plugin-sql';

/** Where plugin-sql keeps its one-per-process PGlite client (see DESIGN.md). */
const SQL_SINGLETONS = Symbol.for('@elizaos/plugin-sql/global-singletons');

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

function forgetPgliteSingleton(): void {
  const singletons = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[SQL_SINGLETONS];
  if (singletons) delete singletons.pgLiteClientManager;
}

/**
 * Boots a real AgentRuntime on plugin-sql (PGlite, or PostgreSQL when `postgresUrl` is set).
 * Order matters on a fresh database: plugin-sql first and its own migrations (`initialize` needs
 * the agents table before it migrates anything), then `initialize`, which registers the other
 * plugins and migrates their schemas (this plugin's tables) before any service starts.
 */
export async function bootRuntime(options: BootOptions): Promise<BootedRuntime> {
  forgetPgliteSingleton();
  const name = options.agentName ?? 'self-improve-agent';
  const settings: Record<string, string> = { ...(options.settings ?? {}) };
  if (options.postgresUrl) settings.POSTGRES_URL = options.postgresUrl;
  else if (options.dataDir) settings.PGLITE_DATA_DIR = options.dataDir;
  const character: Character = {
    id: options.agentId ?? stringToUuid(name),
    name,
    bio: ['An agent that learns from the outcomes of its scans.'],
    plugins: [],
    settings,
  };
  const runtime = new AgentRuntime({ character, plugins: options.plugins });
  try {
    await runtime.registerPlugin(sqlPlugin);
    await runtime.runPluginMigrations();
    await runtime.initialize();
  } catch (error) {
    await runtime.close().catch(() => undefined);
    forgetPgliteSingleton();
    throw error;
  }
  let closed = false;
  return {
    runtime,
    async close() {
      if (closed) return;
      closed = true;
      await runtime.stop();
      // Let pending log inserts finish before the database goes away (DESIGN.md).
      await new Promise((resolve) => setTimeout(resolve, 0));
      const db = runtime.db as { execute?: (q: unknown) => Promise<unknown> } | undefined;
      const { sql } = await import('drizzle-orm');
      if (db?.execute) await db.execute(sql`select 1`);
      await runtime.close();
      forgetPgliteSingleton();
    },
  };
}
