import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows, queryRowsInIndexOrder } from '../shared/sql';
import { SCAN_LESSON_MEMORY_TYPE, SCAN_LESSONS_TABLE } from './scan-lesson-metadata';
import type { ScanLessonCursor } from './model/scan-lesson-cursor';

/**
 * The indexes lessons are read by, on plugin-sql's `memories` table (lessons are ordinary ElizaOS
 * memories): one agent's lessons by newest evidence (`last_seen`, then id), and by agent and group.
 * Partial indexes (lesson rows; rows that name a group), so other memories' writes do not pay for them.
 */
export const SCAN_LESSONS_NEWEST_INDEX = 'self_improve_scan_lessons_newest';
export const SCAN_LESSONS_GROUP_INDEX = 'self_improve_scan_lessons_agent_group';
/** Earlier group indexes, which the planner passed over for the newest index (below): dropped at start. */
const OLD_GROUP_INDEXES = ['self_improve_scan_lessons_group', 'self_improve_scan_lessons_by_group'];
/**
 * Agent and group as one value, the group index's key, over the memories that name a group. As
 * (agent_id, group) on the lesson rows, the planner, without statistics, priced it like the newest
 * index (the same partial predicate) and walked that one, filtering every lesson of the agent by
 * group: 0.2 s per group at 30,000 lessons, a stall for every group a learning pass holds. The
 * lookup names neither agent_id nor the lesson predicate where the planner picks an index
 * (`scanLessonIdsOfGroupQuery`), so this index is the only one that serves it.
 */
const AGENT_GROUP = `(agent_id::text || ' ' || (metadata->>'group_id'))`;
const NAMES_GROUP = `(metadata->>'group_id') IS NOT NULL`;

/** The lesson rows (of the memories aliased `alias`): type and kind are literals, so the planner may use the partial indexes. */
const lessonRows = (alias = ''): string => `${alias}type = '${SCAN_LESSONS_TABLE}' AND ${alias}metadata->>'type' = '${SCAN_LESSON_MEMORY_TYPE}'`;
/** The lesson rows of one agent. */
const ofAgent = (agentId: string): SQL => sql`agent_id = ${agentId}::uuid AND ${sql.raw(lessonRows())}`;
const PARTIAL = `WHERE ${lessonRows()}`;

/**
 * Creates the indexes when missing. Without them (a database user that may not create indexes)
 * every query still answers, only slower.
 */
export async function ensureScanLessonIndexes(db: Db): Promise<void> {
  await db.execute(sql.raw(`CREATE INDEX IF NOT EXISTS ${SCAN_LESSONS_NEWEST_INDEX} ON memories (agent_id, (metadata->>'last_seen') DESC, id) ${PARTIAL}`));
  await db.execute(sql.raw(`CREATE INDEX IF NOT EXISTS ${SCAN_LESSONS_GROUP_INDEX} ON memories (${AGENT_GROUP}) WHERE ${NAMES_GROUP}`));
  for (const old of OLD_GROUP_INDEXES) await db.execute(sql.raw(`DROP INDEX IF EXISTS ${old}`));
}

export type { ScanLessonCursor };

/**
 * Ids of one page of an agent's lessons, newest evidence first (`last_seen` descending, then id
 * ascending: `newestEvidenceFirst`), `limit` of them after `after` (from the newest without);
 * only those of `ids` when given. ISO-8601 texts of one format sort as their times.
 */
export async function scanLessonIdsPage(db: Db, agentId: string, options: { limit: number; after: ScanLessonCursor | null; ids?: readonly string[] }): Promise<ScanLessonCursor[]> {
  const rows = await queryRows<{ id: string; last_seen: string }>(db, scanLessonIdsPageQuery(agentId, options));
  return rows.map((r) => ({ id: r.id, lastSeen: r.last_seen }));
}

/** The statement of `scanLessonIdsPage`. Its ORDER BY names the columns of the newest index (not the text output `id`), so a page is read in index order and stops at `limit`. */
export function scanLessonIdsPageQuery(agentId: string, options: { limit: number; after: ScanLessonCursor | null; ids?: readonly string[] }): SQL {
  const after =
    options.after === null
      ? sql.empty()
      : // The first condition starts the index scan at the cursor; the OR alone made it start at the newest lesson and filter its way down (a page 100,000 lessons deep took 0.7 s on the 1M bench database).
        sql`AND metadata->>'last_seen' <= ${options.after.lastSeen} AND (metadata->>'last_seen' < ${options.after.lastSeen} OR id > ${options.after.id}::uuid)`;
  const only = options.ids === undefined ? sql.empty() : sql`AND id IN (${sql.join(options.ids.map((id) => sql`${id}::uuid`), sql`, `)})`;
  return sql`SELECT id::text AS id, metadata->>'last_seen' AS last_seen FROM memories WHERE ${ofAgent(agentId)} ${after} ${only}
      ORDER BY metadata->>'last_seen' DESC, memories.id ASC LIMIT ${options.limit}`;
}

/**
 * How many of the agent's lessons come after `after` in `scanLessonIdsPage`'s order (from the
 * newest when null), at most `limit`, and the last of them: a count taken a page at a time (one
 * count of the 100,000 lessons of the 1M bench database took 100–230 ms).
 */
export async function countScanLessonsPage(db: Db, agentId: string, options: { limit: number; after: ScanLessonCursor | null }): Promise<{ n: number; last: ScanLessonCursor | null }> {
  const [row] = await queryRowsInIndexOrder<{ n: number | string; id: string | null; last_seen: string | null }>(db, countScanLessonsPageQuery(agentId, options));
  const n = Number(row?.n ?? 0);
  return { n, last: n > 0 && row?.id != null && row.last_seen != null ? { id: row.id, lastSeen: row.last_seen } : null };
}

/** The statement of `countScanLessonsPage`: the page's size, and its last lesson (a sort of the page's rows). */
export function countScanLessonsPageQuery(agentId: string, options: { limit: number; after: ScanLessonCursor | null }): SQL {
  return sql`WITH page AS MATERIALIZED (${scanLessonIdsPageQuery(agentId, options)})
      SELECT (SELECT count(*) FROM page) AS n, l.id, l.last_seen
      FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT id, last_seen FROM page ORDER BY last_seen ASC, id::uuid DESC LIMIT 1) l ON true`;
}

/** Ids of the lessons of one group (through the group index). */
export async function scanLessonIdsOfGroup(db: Db, agentId: string, group: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, scanLessonIdsOfGroupQuery(agentId, group));
  return rows.map((r) => r.id);
}

/**
 * The statement of `scanLessonIdsOfGroup`: the memories with the agent-and-group key, found in a
 * subquery that OFFSET 0 keeps apart (so only the group index fits it), then kept if they are lessons.
 */
export function scanLessonIdsOfGroupQuery(agentId: string, group: string): SQL {
  return sql`SELECT m.id::text AS id FROM (SELECT id, type, metadata FROM memories WHERE ${sql.raw(NAMES_GROUP)} AND ${sql.raw(AGENT_GROUP)} = ${`${agentId} ${group}`} OFFSET 0) m
      WHERE ${sql.raw(lessonRows('m.'))}`;
}
