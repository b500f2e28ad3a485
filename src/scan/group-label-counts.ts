import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { type GroupKey, groupId } from './model/grouping';
import { OUTCOME_LABELS, type OutcomeLabel, type OutcomeRow } from './model/outcome';
import { labelIndex, type LevelCounts, type TriageLevel } from './model/triage-prior';
import { chunks, type Db, jsonRows, queryRows } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { groupLabelCounts, groupLabelCountsReady, outcomesTable, triageLevelCounts, triageLevelCountsReady } from './tables';

// The triage prior's counts, kept in the database by every outcome insert in its transaction:
// outcomes per label of each group (`group_label_counts`) and of each parent level
// (`triage_level_counts`). A prediction reads the at most 20 counts of one finding's four levels,
// so nothing is held in memory or read at start-up, whatever the number of groups, and every
// process on the database predicts from every process's outcomes.

/** Counts upserted per statement. */
const COUNT_BATCH = 250;

/** What an insert adds to the counts: a stored outcome's group, label, scanner and category. */
export type CountedOutcome = { groupId: string; row: Pick<OutcomeRow, 'label' | 'scanner' | 'category'> };

/** A parent level of a group as `triage_level_counts` keys it ('' where the level has no such part). */
interface ParentLevel {
  level: Exclude<TriageLevel, 'group'>;
  scanner: string;
  category: string;
  hasCategory: boolean;
}

const GLOBAL_LEVEL: ParentLevel = { level: 'global', scanner: '', category: '', hasCategory: false };

function parentLevels(scanner: string, category: string | null | undefined): ParentLevel[] {
  return [
    { level: 'scanner_category', scanner, category: category ?? '', hasCategory: category !== null && category !== undefined },
    { level: 'scanner', scanner, category: '', hasCategory: false },
    GLOBAL_LEVEL,
  ];
}

/** How many items share each key, in first-seen order. */
function tally<K>(items: readonly K[], keyOf: (item: K) => string): { item: K; n: number }[] {
  const sums = new Map<string, { item: K; n: number }>();
  for (const item of items) {
    const key = keyOf(item);
    const sum = sums.get(key) ?? { item, n: 0 };
    sum.n++;
    sums.set(key, sum);
  }
  return [...sums.values()];
}

/**
 * Upserts `counts` (a statement per COUNT_BATCH, the event loop free between them: an upsert of
 * 1,000 counts is a 40 ms block), each given to `statement` as the rows `rowOf` makes of it, read
 * with `columns` (`jsonRows`).
 */
async function upsertCounts<T>(tx: Db, counts: readonly T[], columns: Readonly<Record<string, string>>, rowOf: (count: T) => object, statement: (rows: SQL) => SQL): Promise<void> {
  for (const batch of chunks(counts, COUNT_BATCH)) {
    await yieldToEventLoop();
    await tx.execute(statement(jsonRows(batch.map(rowOf), columns)));
  }
}

/** Adds newly stored outcomes to the agent's counts at every level; call in the transaction that stored them. */
export async function addGroupLabelCounts(tx: Db, agentId: UUID, stored: readonly CountedOutcome[]): Promise<void> {
  const groups = tally(stored, (o) => JSON.stringify([o.groupId, o.row.label]));
  await upsertCounts(
    tx,
    groups,
    { group_id: 'text', label: 'text', n: 'bigint' },
    ({ item, n }) => ({ group_id: item.groupId, label: item.row.label, n }),
    (rows) =>
      sql`INSERT INTO ${groupLabelCounts} AS c (agent_id, group_id, label, n) SELECT ${agentId}::uuid, v.group_id, v.label, v.n FROM ${rows}
          ON CONFLICT (agent_id, group_id, label) DO UPDATE SET n = c.n + excluded.n`,
  );
  const parents = tally(
    stored.flatMap((o) => parentLevels(o.row.scanner, o.row.category).map((p) => ({ ...p, label: o.row.label }))),
    (p) => JSON.stringify([p.level, p.scanner, p.category, p.hasCategory, p.label]),
  );
  await upsertCounts(
    tx,
    parents,
    { level: 'text', scanner: 'text', category: 'text', has_category: 'boolean', label: 'text', n: 'bigint' },
    ({ item, n }) => ({ level: item.level, scanner: item.scanner, category: item.category, has_category: item.hasCategory, label: item.label, n }),
    (rows) =>
      sql`INSERT INTO ${triageLevelCounts} AS c (agent_id, level, scanner, category, has_category, label, n)
          SELECT ${agentId}::uuid, v.level, v.scanner, v.category, v.has_category, v.label, v.n FROM ${rows}
          ON CONFLICT (agent_id, level, scanner, category, has_category, label) DO UPDATE SET n = c.n + excluded.n`,
  );
}

async function isReady(db: Db, marker: typeof groupLabelCountsReady | typeof triageLevelCountsReady, agentId: UUID): Promise<boolean> {
  const [row] = await queryRows<{ one: number }>(db, sql`SELECT 1 AS one FROM ${marker} WHERE agent_id = ${agentId}::uuid`);
  return row !== undefined;
}

/**
 * Makes the agent's kept counts whole, once (the service calls it at start-up; afterwards every
 * insert keeps them): outcomes stored before the group counts were kept are counted from their
 * rows, and parent-level counts missing from an older database are summed from the group counts.
 * Each is done in a transaction holding `lock` (the lock every outcome insert takes), so no insert
 * is counted twice or missed. Two statements over the whole history, the first time only.
 */
export async function ensureGroupLabelCounts(db: Db, agentId: UUID, lock: (tx: Db) => Promise<void>): Promise<void> {
  if (!(await isReady(db, groupLabelCountsReady, agentId))) {
    await db.transaction(async (tx) => {
      await lock(tx);
      if (await isReady(tx, groupLabelCountsReady, agentId)) return;
      await tx.execute(sql`DELETE FROM ${groupLabelCounts} WHERE agent_id = ${agentId}::uuid`);
      await tx.execute(
        sql`INSERT INTO ${groupLabelCounts} (agent_id, group_id, label, n)
            SELECT agent_id, group_id, label, count(*) FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid GROUP BY agent_id, group_id, label`,
      );
      await tx.execute(sql`INSERT INTO ${groupLabelCountsReady} (agent_id) VALUES (${agentId}::uuid)`);
    });
  }
  if (await isReady(db, triageLevelCountsReady, agentId)) return;
  await db.transaction(async (tx) => {
    await lock(tx);
    if (await isReady(tx, triageLevelCountsReady, agentId)) return;
    await tx.execute(sql`DELETE FROM ${triageLevelCounts} WHERE agent_id = ${agentId}::uuid`);
    // A group id is the JSON array [project, scanner, model_provider, model_name, category].
    await tx.execute(
      sql`INSERT INTO ${triageLevelCounts} (agent_id, level, scanner, category, has_category, label, n)
          SELECT g.agent_id, p.level, p.scanner, p.category, p.has_category, g.label, sum(g.n)
          FROM (SELECT agent_id, label, n, (group_id::jsonb)->>1 AS scanner, (group_id::jsonb)->>4 AS category FROM ${groupLabelCounts} WHERE agent_id = ${agentId}::uuid) g
          CROSS JOIN LATERAL (VALUES ('scanner_category', g.scanner, coalesce(g.category, ''), g.category IS NOT NULL),
                                     ('scanner', g.scanner, '', false), ('global', '', '', false)) AS p(level, scanner, category, has_category)
          GROUP BY g.agent_id, p.level, p.scanner, p.category, p.has_category, g.label`,
    );
    await tx.execute(sql`INSERT INTO ${triageLevelCountsReady} (agent_id) VALUES (${agentId}::uuid)`);
  });
}

/** One parent level's counts, by its primary key. */
function parentCountsQuery(agentId: UUID, p: ParentLevel): SQL {
  return sql`SELECT level, label, n FROM ${triageLevelCounts}
             WHERE agent_id = ${agentId}::uuid AND level = ${p.level} AND scanner = ${p.scanner} AND category = ${p.category} AND has_category = ${p.hasCategory}`;
}

/** The counts the `selects` (each of level, label, n) read in one statement, per level in `OUTCOME_LABELS` order. */
async function levelCounts(db: Db, selects: readonly SQL[]): Promise<LevelCounts> {
  const rows = await queryRows<{ level: TriageLevel; label: OutcomeLabel; n: number | string }>(db, sql.join([...selects], sql` UNION ALL `));
  const counts: Partial<Record<TriageLevel, Float64Array>> = {};
  for (const r of rows) {
    if (!OUTCOME_LABELS.includes(r.label)) continue;
    const row = counts[r.level] ?? new Float64Array(OUTCOME_LABELS.length);
    row[labelIndex(r.label)] = Number(r.n);
    counts[r.level] = row;
  }
  return counts;
}

/**
 * The counts of the four levels of a finding of group `key`, each in `OUTCOME_LABELS` order: one
 * statement of four primary-key reads, at most 20 rows.
 */
export function triageCountsOf(db: Db, agentId: UUID, key: GroupKey): Promise<LevelCounts> {
  return levelCounts(db, [
    sql`SELECT 'group' AS level, label, n FROM ${groupLabelCounts} WHERE agent_id = ${agentId}::uuid AND group_id = ${groupId(key)}`,
    ...parentLevels(key.scanner, key.category).map((p) => parentCountsQuery(agentId, p)),
  ]);
}

/** The global level's counts alone (what a replay's baseline rate stands on); undefined before any outcome. */
export async function globalTriageCountsOf(db: Db, agentId: UUID): Promise<ArrayLike<number> | undefined> {
  return (await levelCounts(db, [parentCountsQuery(agentId, GLOBAL_LEVEL)])).global;
}
