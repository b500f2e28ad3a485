import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../shared/sql';
import { SCAN_LESSON_MEMORY_TYPE, SCAN_LESSONS_TABLE } from './scan-lesson-metadata';
import type { ScanLessonCursor } from './model/scan-lesson-cursor';

/**
 * The indexes lessons are read by, on plugin-sql's `memories` table (lessons are ordinary ElizaOS
 * memories): one agent's lessons by newest evidence (`last_seen`, then id), and by group. Partial
 * indexes (lesson rows only), so other memories' writes do not pay for them.
 */
export const SCAN_LESSONS_NEWEST_INDEX = 'self_improve_scan_lessons_newest';
export const SCAN_LESSONS_GROUP_INDEX = 'self_improve_scan_lessons_group';

/** The lesson rows of one agent: type and kind are literals, so the planner may use the partial indexes. */
const ofAgent = (agentId: string): SQL =>
  sql`agent_id = ${agentId}::uuid AND type = ${sql.raw(`'${SCAN_LESSONS_TABLE}'`)} AND metadata->>'type' = ${sql.raw(`'${SCAN_LESSON_MEMORY_TYPE}'`)}`;
const PARTIAL = `WHERE type = '${SCAN_LESSONS_TABLE}' AND metadata->>'type' = '${SCAN_LESSON_MEMORY_TYPE}'`;

/**
 * Creates the indexes when missing. Without them (a database user that may not create indexes)
 * every query still answers, only slower.
 */
export async function ensureScanLessonIndexes(db: Db): Promise<void> {
  await db.execute(sql.raw(`CREATE INDEX IF NOT EXISTS ${SCAN_LESSONS_NEWEST_INDEX} ON memories (agent_id, (metadata->>'last_seen') DESC, id) ${PARTIAL}`));
  await db.execute(sql.raw(`CREATE INDEX IF NOT EXISTS ${SCAN_LESSONS_GROUP_INDEX} ON memories (agent_id, (metadata->>'group_id')) ${PARTIAL}`));
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
      : sql`AND (metadata->>'last_seen' < ${options.after.lastSeen} OR (metadata->>'last_seen' = ${options.after.lastSeen} AND id > ${options.after.id}::uuid))`;
  const only = options.ids === undefined ? sql.empty() : sql`AND id IN (${sql.join(options.ids.map((id) => sql`${id}::uuid`), sql`, `)})`;
  return sql`SELECT id::text AS id, metadata->>'last_seen' AS last_seen FROM memories WHERE ${ofAgent(agentId)} ${after} ${only}
      ORDER BY metadata->>'last_seen' DESC, memories.id ASC LIMIT ${options.limit}`;
}

/** How many lessons the agent has. */
export async function countScanLessons(db: Db, agentId: string): Promise<number> {
  const rows = await queryRows<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM memories WHERE ${ofAgent(agentId)}`);
  return Number(rows[0]?.n ?? 0);
}

/** Ids of every lesson of the agent (one column of the newest index). */
export async function allScanLessonIds(db: Db, agentId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`SELECT id::text AS id FROM memories WHERE ${ofAgent(agentId)}`);
  return rows.map((r) => r.id);
}

/** Ids of the lessons of one group. */
export async function scanLessonIdsOfGroup(db: Db, agentId: string, group: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`SELECT id::text AS id FROM memories WHERE ${ofAgent(agentId)} AND metadata->>'group_id' = ${group}`);
  return rows.map((r) => r.id);
}
