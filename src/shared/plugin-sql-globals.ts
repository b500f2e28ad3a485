/**
 * Where plugin-sql 1.7.2 keeps its one-per-process PGlite client (`pgLiteClientManager`) and its
 * PostgreSQL pools (`postgresConnectionManagers`, keyed by server, not by URL): an object on
 * `globalThis` under this symbol, made when plugin-sql is first loaded.
 */
const SQL_SINGLETONS = Symbol.for('@elizaos/plugin-sql/global-singletons');

/** plugin-sql's globals, or undefined before plugin-sql is loaded. */
export function sqlSingletons(): Record<string, unknown> | undefined {
  return (globalThis as Record<symbol, Record<string, unknown> | undefined>)[SQL_SINGLETONS];
}

/** Whether plugin-sql runs a PGlite database in this process (an agent on PGlite, not on POSTGRES_URL). */
export function pgliteInProcess(): boolean {
  return sqlSingletons()?.pgLiteClientManager !== undefined;
}

/** The directory of the PGlite plugin-sql runs in this process, or undefined (none, or in memory). */
export function pgliteDataDirInProcess(): string | undefined {
  const manager = sqlSingletons()?.pgLiteClientManager as { client?: { dataDir?: string } } | undefined;
  return manager?.client?.dataDir;
}
