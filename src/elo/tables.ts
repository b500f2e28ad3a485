import { bigserial, boolean, doublePrecision, index, integer, jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/**
 * The ELO book: one row per scored item, with the content an integrator reported with it. The
 * report's columns (null in rows not yet counted): `above_start` and `drift_key`, which order the
 * items of one start by their rating at any time after their last use (`driftOrder`), for the top
 * items; `bucket`, the 100-point bucket its rating is in from `bucket_since` until before
 * `bucket_until` (`bucketSpan`), counted in `elo_bucket_counts`.
 */
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
    aboveStart: boolean('above_start'),
    driftKey: doublePrecision('drift_key'),
    bucket: doublePrecision('bucket'),
    bucketSince: timestamp('bucket_since', { withTimezone: true }),
    bucketUntil: timestamp('bucket_until', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.kind, t.itemId] }),
    // Start before kind: a lookup by kind and id must find the primary key the better index.
    index('elo_top_idx').on(t.agentId, t.startElo, t.kind, t.aboveStart.desc(), t.driftKey.desc()),
    index('elo_last_used_idx').on(t.agentId, t.lastUsedAt),
    index('elo_bucket_until_idx').on(t.agentId, t.bucketUntil),
    index('elo_bucket_since_idx').on(t.agentId, t.bucketSince),
  ],
);

/** Items per kind and 100-point bucket, as `elo.bucket` says: the report's distribution without reading the items. */
export const eloBucketCounts = pluginSchema.table(
  'elo_bucket_counts',
  {
    agentId: uuid('agent_id').notNull(),
    kind: text('kind').notNull(),
    bucket: doublePrecision('bucket').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.kind, t.bucket] })],
);

/**
 * The drift rate the counted buckets were computed with (another rate makes them count again), and
 * `swept_until`: a time before which no item's `bucket_until` lies (null: none known). The moves
 * of buckets raise it and every write keeps it true, so the read of the items due to move starts
 * there, past the index entries that earlier moves left dead (PGlite never vacuums).
 */
export const eloBucketBasis = pluginSchema.table('elo_bucket_basis', {
  agentId: uuid('agent_id').primaryKey(),
  driftPerDay: doublePrecision('drift_per_day').notNull(),
  sweptUntil: timestamp('swept_until', { withTimezone: true }),
});

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

export const eloTables = { eloItems, eloLog, searchLog, eloExposures, sessionLog, eloBucketCounts, eloBucketBasis };
