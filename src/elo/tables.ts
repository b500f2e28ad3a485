import { bigserial, doublePrecision, integer, jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/** The ELO book: one row per scored item, with the content an integrator reported with it. */
export const eloItems = pluginSchema.table(
  'elo',
  {
    agentId: uuid('agent_id').notNull(),
    kind: text('kind').notNull(),
    itemId: text('item_id').notNull(),
    elo: doublePrecision('elo').notNull(),
    startElo: doublePrecision('start_elo').notNull(),
    updates: integer('updates').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull(),
    title: text('title'),
    body: text('body'),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.kind, t.itemId] })],
);

/** An append-only log of one agent: seed 002's wire entries as jsonb, in order. */
function appendOnlyLog<N extends string>(name: N) {
  return pluginSchema.table(
    name,
    {
      agentId: uuid('agent_id').notNull(),
      seq: bigserial('seq', { mode: 'number' }).notNull(),
      entry: jsonb('entry').notNull(),
    },
    (t) => [primaryKey({ columns: [t.agentId, t.seq] })],
  );
}

/** Seed 002 §3: the ELO update log. */
export const eloLog = appendOnlyLog('elo_log');
/** Seed 002 §1: the search / retrieval log. */
export const searchLog = appendOnlyLog('search_log');
/** Seed 002 §2: the session audit log. */
export const sessionLog = appendOnlyLog('session_log');

/** Which items were shown under which context, until the context's outcome settles them. */
export const eloExposures = pluginSchema.table(
  'elo_exposures',
  {
    agentId: uuid('agent_id').notNull(),
    context: text('context').notNull(),
    kind: text('kind').notNull(),
    itemId: text('item_id').notNull(),
    boost: doublePrecision('boost').notNull(),
    exposedAt: timestamp('exposed_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.context, t.kind, t.itemId] })],
);

/** The three logs by the name the book uses for them. */
export const ELO_LOGS = { updates: eloLog, searches: searchLog, sessions: sessionLog } as const;
export type EloLogName = keyof typeof ELO_LOGS;

export const eloTables = { eloItems, eloLog, searchLog, eloExposures, sessionLog };
