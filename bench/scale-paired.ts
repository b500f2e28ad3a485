import { cp, rm } from 'node:fs/promises';
import { SQL } from 'bun';
import { note, ratioOf, round } from './lib';
import type { Timing } from './scale-calls';
import { type ServedDirectory, serveDirectory } from './scale-served';

/**
 * The scale benchmark's databases and the agent processes started on them (bench/scale-fresh.ts),
 * and its paired measurement: the smallest step's database kept as a copy, and the routes and
 * providers timed at the end of the run in agent processes on that copy and on the largest
 * database alternately. Timed 25 minutes apart, a step's figures and the largest step's differ by
 * what else the shared machine was doing then (the forty-sixth to forty-ninth runs each missed the
 * 2x on different sub-millisecond figures whose code had not changed); timed in turns within the
 * same minutes, both meet the same machine.
 */

/**
 * The database a run grows: a PGlite directory opened in the agent's process, the PostgreSQL
 * database a URL names, or a PGlite directory served by `self-improve pglite-server` (`served`),
 * reached through its URL.
 */
export type Database = { dataDir: string } | { postgresUrl: string; served?: ServedDirectory };
export const databaseKind = (database: Database) => ('postgresUrl' in database ? (database.served ? 'pglite-server' : 'postgresql') : 'pglite');
/** A PGlite database's directory, or a PostgreSQL database's name (its URL may hold a password). */
export const databaseName = (database: Database) => ('postgresUrl' in database ? (database.served?.dataDir ?? decodeURIComponent(new URL(database.postgresUrl).pathname.slice(1))) : database.dataDir);

/** Rounds of the paired measurement (SCALE_PAIRED_ROUNDS; 0 leaves it out): each an agent process on each database. */
export const PAIRED_ROUNDS = Number(process.env.SCALE_PAIRED_ROUNDS ?? 5);

/**
 * bench/scale-fresh.ts in a process of its own on `database`, with `settings`: its figures (its
 * JSON line but the `bench` key). With `routes`, it also times the plugin's routes (but the
 * whole-ledger ones). With `logged`, its stderr follows this process's.
 */
export async function agentProcess(database: Database, settings: Record<string, string>, options: { routes: boolean; logged: boolean }): Promise<Record<string, unknown>> {
  const target = 'postgresUrl' in database ? database.postgresUrl : database.dataDir;
  const args = [process.execPath, 'run', `${import.meta.dir}/scale-fresh.ts`, target, JSON.stringify(settings), ...(options.routes ? ['routes'] : [])];
  const child = Bun.spawn(args, { stdout: 'pipe', stderr: options.logged ? 'inherit' : 'ignore' });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`bench/scale-fresh.ts exited with ${code}`);
  const { bench: _bench, ...figures } = JSON.parse(out.trim().split('\n').pop() as string) as Record<string, unknown>;
  return figures;
}

/**
 * A copy of `database`, which nothing may have open, as it is at `outcomes` outcomes: a PGlite
 * directory copied beside it (`<dir>-at-<outcomes>`), or a PostgreSQL database made from it as a
 * template (`<name>_at_<outcomes>`, on the same server; the role needs CREATEDB). Throws when the
 * copy's name is taken. `remove` drops the copy.
 */
export async function copyDatabase(database: Database, outcomes: number): Promise<{ copy: Database; remove: () => Promise<void> }> {
  const servedDir = 'postgresUrl' in database ? database.served : undefined;
  if ('dataDir' in database || servedDir) {
    const source = 'dataDir' in database ? database.dataDir : (servedDir as ServedDirectory).dataDir;
    const dataDir = `${source.replace(/\/+$/, '')}-at-${outcomes}`;
    const copy = () => cp(source, dataDir, { recursive: true, errorOnExist: true, force: false });
    // A served directory is copied with its server stopped (PGlite's files whole); measurePaired serves the copy.
    await (servedDir ? servedDir.whileStopped(copy) : copy());
    return { copy: { dataDir }, remove: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const url = new URL(database.postgresUrl);
  const source = databaseName(database);
  const name = `${source}_at_${outcomes}`;
  const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
  // Through the server's maintenance database: a database cannot be made from a template while it is open.
  const onServer = async <T>(work: (client: SQL) => Promise<T>): Promise<T> => {
    const maintenance = new URL(url);
    maintenance.pathname = '/postgres';
    const client = new SQL(maintenance.toString());
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  };
  await onServer(async (client) => {
    const taken = await client`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (taken.length > 0) throw new Error(`PostgreSQL database ${name} already exists: drop it, or give bench/scale.ts another database`);
    await client.unsafe(`CREATE DATABASE ${quoted(name)} TEMPLATE ${quoted(source)}`);
  });
  const copy = new URL(url);
  copy.pathname = `/${encodeURIComponent(name)}`;
  return { copy: { postgresUrl: copy.toString() }, remove: () => onServer(async (client) => void (await client.unsafe(`DROP DATABASE IF EXISTS ${quoted(name)}`))) };
}

/** One figure of the paired measurement: its medians over the rounds at the smallest and the largest step, and their ratio. */
export type PairedFigure = { p50_ms: [number, number]; p99_ms: [number, number]; p50_ratio: number; p99_ratio: number };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * `rounds` rounds, each an agent process on `smallest` and one on `largest` (in turns: smallest
 * first in even rounds, largest first in odd ones), each timing the routes and the providers. Per
 * route and provider (`routes:<name>`, `providers:<name>`): the median over the rounds of its p50
 * and p99 on each database, and the ratio largest / smallest (`figures`); and the longest stall of
 * any of those processes' start-up background work (`startUpStallMs`), which the stall goal counts.
 */
export async function measurePaired(smallest: Database, largest: Database, settings: Record<string, string>, rounds: number, logged: boolean): Promise<{ figures: Record<string, PairedFigure>; startUpStallMs: number }> {
  // The copy of a served directory is served too while it is measured: both sides reach PGlite the same way.
  if ('postgresUrl' in largest && largest.served && 'dataDir' in smallest) {
    const served = await serveDirectory(smallest.dataDir);
    try {
      return await measurePaired({ postgresUrl: served.url, served }, largest, settings, rounds, logged);
    } finally {
      await served.stop();
    }
  }
  const seen: Record<string, { p50: [number[], number[]]; p99: [number[], number[]] }> = {};
  let startUpStallMs = 0;
  for (let r = 0; r < rounds; r++) {
    const order: [Database, 0 | 1][] = r % 2 === 0 ? [[smallest, 0], [largest, 1]] : [[largest, 1], [smallest, 0]];
    for (const [database, side] of order) {
      note(`paired round ${r + 1}/${rounds}: an agent process on the ${side === 0 ? 'smallest' : 'largest'} step's database`);
      const figures = await agentProcess(database, settings, { routes: true, logged });
      startUpStallMs = Math.max(startUpStallMs, Number(figures.background_stall_ms));
      for (const kind of ['routes', 'providers'] as const) {
        for (const [name, timing] of Object.entries(figures[kind] as Record<string, Timing>)) {
          const entry = (seen[`${kind}:${name}`] ??= { p50: [[], []], p99: [[], []] });
          entry.p50[side].push(timing.p50_ms);
          entry.p99[side].push(timing.p99_ms);
        }
      }
    }
  }
  const medians = ([smallestSide, largestSide]: [number[], number[]]): [number, number] => [round(median(smallestSide)), round(median(largestSide))];
  const figures = Object.fromEntries(
    Object.entries(seen).map(([name, { p50, p99 }]) => {
      const [p50ms, p99ms] = [medians(p50), medians(p99)];
      return [name, { p50_ms: p50ms, p99_ms: p99ms, p50_ratio: ratioOf(p50ms[1], p50ms[0]), p99_ratio: ratioOf(p99ms[1], p99ms[0]) }];
    }),
  );
  return { figures, startUpStallMs };
}
