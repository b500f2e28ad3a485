import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import selfImprovePlugin from '../index';
import { bootRuntime, type BootedRuntime } from './boot';
import { loadModelPlugins } from './model-plugins';
import { progressPrinter } from './output';
import { type ScanOutcomeService, scanOutcomeServiceOf } from '../scan/scan-outcome-service';
import { type ParsedArgs, UsageError } from './args';

export const DEFAULT_DB_DIR = path.join('.self-improve', 'db');

/** What a command hands back: its exit code, its JSON document and its human-readable text. */
export interface CommandResult {
  exitCode: number;
  json: unknown;
  text: string;
  /** The command printed its document itself (a server prints its address when it starts, not when it stops). */
  printed?: true;
}

export type Command = (args: ParsedArgs) => Promise<CommandResult>;

/** Boots the agent on `--db DIR` (or `dataDir`, or POSTGRES_URL), runs `work` with its service, and always closes it. */
export async function withService<T>(args: ParsedArgs, work: (service: ScanOutcomeService, booted: BootedRuntime) => Promise<T>, dataDir?: string): Promise<T> {
  const dbFlag = args.flags.get('db');
  const booted = await bootRuntime({
    dataDir: dataDir ?? (typeof dbFlag === 'string' ? dbFlag : DEFAULT_DB_DIR),
    postgresUrl: process.env.POSTGRES_URL || undefined,
    plugins: [selfImprovePlugin, ...(await loadModelPlugins())],
  });
  try {
    const service = await scanOutcomeServiceOf(booted.runtime);
    // A command sees every stored lesson: it has no reply to keep fast, unlike an agent at start.
    await service.scanLessonsReady();
    return await work(service, booted);
  } finally {
    await booted.close();
  }
}

/** The usage error of a file that could not be read, naming it and why. */
const unreadable = (file: string, error: unknown) => new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);

/** A file's text; an unreadable file is a usage error naming it. */
export async function readTextFile(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((error: unknown) => {
    throw unreadable(file, error);
  });
}

/** Bytes read at a time by `fileTextChunks`. */
const FILE_CHUNK_BYTES = 1 << 20;

/**
 * A file's text in pieces of `chunkBytes` bytes, decoded as `readTextFile` decodes it (UTF-8, a
 * byte-order mark kept); a character whose bytes two pieces share comes whole in the later one. An
 * unreadable file is a usage error naming it.
 */
export async function* fileTextChunks(file: string, chunkBytes = FILE_CHUNK_BYTES): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const stream = createReadStream(file, { highWaterMark: chunkBytes });
  try {
    for await (const bytes of stream) yield decoder.decode(bytes as Uint8Array, { stream: true });
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    stream.destroy();
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The start of a file's text: at least `chars` characters after its leading whitespace, or all of it. */
export async function readFileHead(file: string, chars: number): Promise<string> {
  let head = '';
  for await (const chunk of fileTextChunks(file, 64 * 1024)) {
    head += chunk;
    if (head.trimStart().length >= chars) break;
  }
  return head;
}

/** Rows between two full collections of a long command under Bun (`collectEvery`). */
export const COMMAND_COLLECT_EVERY_ROWS = 10_000;

/**
 * For a long command, which no reply waits on: a full collection, under Bun, each time the rows
 * done pass another `everyRows`. Bun's collector lets its old generation fill with the garbage of
 * every batch: `self-improve ingest` of 200,000 rows peaked at 1.3 GB under Bun, nearly all of it
 * garbage, against 0.6 GB under Node (`bench/ingest-file-memory.ts`). Nothing under Node.
 */
export function collectEvery(everyRows: number, gc = (globalThis as { Bun?: { gc?: (sync: boolean) => void } }).Bun?.gc): (rowsDone: number) => void {
  let next = everyRows;
  return (rowsDone) => {
    if (rowsDone < next) return;
    next = rowsDone + everyRows;
    gc?.(true);
  };
}

/**
 * The progress of a command that ingests a file batch by batch: a line on stderr at most every
 * half second (`progressPrinter`, labelled `label`) and, under Bun, a full collection every
 * COMMAND_COLLECT_EVERY_ROWS rows (`collectEvery`).
 */
export function fileIngestProgress(label: string): (rowsDone: number, rowsTotal: number) => void {
  const print = progressPrinter(label);
  const collect = collectEvery(COMMAND_COLLECT_EVERY_ROWS);
  return (rowsDone, rowsTotal) => {
    print(rowsDone, rowsTotal);
    collect(rowsDone);
  };
}

/** The first positional argument, the command's input file; a missing one is a usage error. */
export function inputFileOf(args: ParsedArgs, command: string, what: string): string {
  const file = args.positionals[0];
  if (!file) throw new UsageError(`${command} needs a FILE (${what})`);
  return file;
}

/** The first positional argument as a file's text; a missing argument or unreadable file is a usage error. */
export async function readInputFile(args: ParsedArgs, command: string, what: string): Promise<{ file: string; text: string }> {
  const file = inputFileOf(args, command, what);
  return { file, text: await readTextFile(file) };
}

/** `--now ISO` as epoch ms, or the current time. */
export function nowFlag(args: ParsedArgs): number {
  const now = args.flags.get('now');
  if (typeof now !== 'string') return Date.now();
  const ms = Date.parse(now);
  if (Number.isNaN(ms)) throw new UsageError(`--now must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got ${JSON.stringify(now)})`);
  return ms;
}

/** `--NAME N` as a positive integer, or undefined when absent. */
export function positiveIntFlag(args: ParsedArgs, name: string, max?: number): number | undefined {
  const raw = args.flags.get(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const ok = typeof raw === 'string' && /^[0-9]+$/.test(raw.trim()) && Number.isSafeInteger(value) && value >= 1 && (max === undefined || value <= max);
  if (!ok) throw new UsageError(max === undefined ? `--${name} must be a positive integer (got ${JSON.stringify(raw)})` : `--${name} must be an integer from 1 to ${max} (got ${JSON.stringify(raw)})`);
  return value;
}
