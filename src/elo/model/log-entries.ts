import { z } from 'zod';
import type { SessionAuditEntry } from './sessions';

/**
 * The three ELO logs (seed 002 §1–§3) as read back from the database, checked with zod before any
 * statistic is computed from them. Unknown fields are kept (search entries may carry token counts).
 */

const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO-8601 time' });
const count = z.number().int().nonnegative();

/** Seed 002 §3: one ELO change. */
export const eloUpdateEntrySchema = z.object({
  timestamp: isoTime,
  entity_type: z.string(),
  entity_id: z.string(),
  elo_old: z.number().finite(),
  elo_new: z.number().finite(),
  delta: z.number().finite(),
  reason: z.string(),
});
export type EloUpdateEntry = z.infer<typeof eloUpdateEntrySchema>;

/** Seed 002 §1: one retrieval; `hash` is the item id, `entity_type` its kind. */
export const searchLogEntrySchema = z
  .object({
    session_id: z.string(),
    timestamp: isoTime,
    tool: z.string(),
    query: z.string(),
    results: z.array(z.object({ hash: z.string(), entity_type: z.string(), rank: z.number().int().positive(), similarity: z.number().optional() })),
    tokens_full: z.number().finite().nonnegative().optional(),
    tokens_packed: z.number().finite().nonnegative().optional(),
  })
  .passthrough();
export type SearchLogEntry = z.infer<typeof searchLogEntrySchema>;

/** Seed 002 §2 plus `items_used` (see `SessionAuditEntry`). */
export const sessionAuditEntrySchema: z.ZodType<SessionAuditEntry, z.ZodTypeDef, unknown> = z.object({
  session_id: z.string(),
  agent_id: z.string(),
  start_time: isoTime,
  end_time: isoTime,
  files_accessed: z.array(z.string()),
  symbols_expanded: z.array(z.string()),
  adrs_read: z.array(z.string()),
  search_queries: count,
  semantic_searches: count,
  keyword_searches: count,
  items_used: z.record(z.array(z.string())).default({}),
});

export interface EloLogs {
  updates: EloUpdateEntry[];
  searches: SearchLogEntry[];
  sessions: SessionAuditEntry[];
}

/** Entries that failed their schema, per log: they are left out of every statistic and counted here. */
export type SkippedEntries = Record<keyof EloLogs, number>;

/** What a schema made of an entry object (undefined: it failed), kept while the entry object lives: the report's samples hold the same objects from one report to the next. */
const parsedEntries = new WeakMap<z.ZodTypeAny, WeakMap<object, unknown>>();
const FAILED = Symbol('failed');

/** An entry checked against its log's schema: the parsed entry, or undefined when it does not match. Remembered per entry object; treat the result as read-only. */
function parseOne<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, entry: unknown): T | undefined {
  if (typeof entry !== 'object' || entry === null) {
    const parsed = schema.safeParse(entry);
    return parsed.success ? parsed.data : undefined;
  }
  let memo = parsedEntries.get(schema);
  if (!memo) {
    memo = new WeakMap();
    parsedEntries.set(schema, memo);
  }
  let result = memo.get(entry);
  if (result === undefined) {
    const parsed = schema.safeParse(entry);
    result = parsed.success ? parsed.data : FAILED;
    memo.set(entry, result);
  }
  return result === FAILED ? undefined : (result as T);
}

function parseAll<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, entries: readonly unknown[]): { ok: T[]; skipped: number } {
  const ok: T[] = [];
  for (const entry of entries) {
    const parsed = parseOne(schema, entry);
    if (parsed !== undefined) ok.push(parsed);
  }
  return { ok, skipped: entries.length - ok.length };
}

const SCHEMA_OF_LOG = { updates: eloUpdateEntrySchema, searches: searchLogEntrySchema, sessions: sessionAuditEntrySchema } as const;

/** An entry of a log as its schema makes it, or undefined when it does not match (remembered per entry object, as for a report; read-only). */
export function checkedLogEntry<L extends keyof EloLogs>(log: L, entry: unknown): EloLogs[L][number] | undefined {
  return parseOne(SCHEMA_OF_LOG[log] as z.ZodType<EloLogs[L][number], z.ZodTypeDef, unknown>, entry);
}

/** Checks entries of one log against its schema ahead of a report (each entry object is checked once). */
export function checkLogEntries(log: keyof EloLogs, entries: readonly unknown[]): void {
  const schema: z.ZodTypeAny = SCHEMA_OF_LOG[log];
  for (const entry of entries) parseOne(schema, entry);
}

/** The entries of each log that match its schema, in their given order, and how many did not. */
export function parseEloLogs(raw: { updates: readonly unknown[]; searches: readonly unknown[]; sessions: readonly unknown[] }): { logs: EloLogs; skipped: SkippedEntries } {
  const updates = parseAll(SCHEMA_OF_LOG.updates, raw.updates);
  const searches = parseAll(SCHEMA_OF_LOG.searches, raw.searches);
  const sessions = parseAll(SCHEMA_OF_LOG.sessions, raw.sessions);
  return {
    logs: { updates: updates.ok, searches: searches.ok, sessions: sessions.ok },
    skipped: { updates: updates.skipped, searches: searches.skipped, sessions: sessions.skipped },
  };
}
