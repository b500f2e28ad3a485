import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import type { OutcomeRow } from './model/outcome';
import { chunks, type Db, queryJsonRowsInIndexOrder, queryRows } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';

/** Counts upserted per statement. */
const COUNT_BATCH = 250;
/** Counts read per statement at start-up. */
const COUNT_PAGE = 10_000;
import { groupLabelCounts, groupLabelCountsReady, outcomesTable } from './tables';

/** Outcomes of one group with one label. */
export interface GroupLabelCount {
  groupId: string;
  label: OutcomeRow['label'];
  n: number;
}

/** Adds newly stored outcomes to the agent's counts; call in the transaction that stored them. */
export async function addGroupLabelCounts(tx: Db, agentId: UUID, stored: readonly { groupId: string; row: Pick<OutcomeRow, 'label'> }[]): Promise<void> {
  const counts = new Map<string, GroupLabelCount>();
  for (const o of stored) {
    const key = JSON.stringify([o.groupId, o.row.label]);
    const c = counts.get(key) ?? { groupId: o.groupId, label: o.row.label, n: 0 };
    c.n++;
    counts.set(key, c);
  }
  // A statement per COUNT_BATCH counts, with the event loop free between them (an upsert of 1,000 counts is a 40 ms block).
  for (const batch of chunks([...counts.values()], COUNT_BATCH)) {
    await yieldToEventLoop();
    const values = sql.join(
      batch.map((c) => sql`(${agentId}::uuid, ${c.groupId}, ${c.label}, ${c.n}::bigint)`),
      sql`, `,
    );
    await tx.execute(
      sql`INSERT INTO ${groupLabelCounts} AS c (agent_id, group_id, label, n) VALUES ${values}
          ON CONFLICT (agent_id, group_id, label) DO UPDATE SET n = c.n + excluded.n`,
    );
  }
}

/**
 * The agent's outcome counts per group and label, ordered by group and label: read from the
 * kept counts (as many rows as groups × labels, whatever the number of outcomes). The first
 * time for an agent (outcomes stored before the counts were kept) they are counted once from
 * the outcome rows, in a transaction that holds `lock` (the lock every outcome insert takes), so
 * no insert is counted twice or missed.
 */
export async function groupLabelCountsOf(db: Db, agentId: UUID, lock: (tx: Db) => Promise<void>, page = COUNT_PAGE): Promise<GroupLabelCount[]> {
  const [ready] = await queryRows<{ one: number }>(db, sql`SELECT 1 AS one FROM ${groupLabelCountsReady} WHERE agent_id = ${agentId}::uuid`);
  if (!ready) {
    await db.transaction(async (tx) => {
      await lock(tx);
      const [again] = await queryRows<{ one: number }>(tx, sql`SELECT 1 AS one FROM ${groupLabelCountsReady} WHERE agent_id = ${agentId}::uuid`);
      if (again) return;
      await tx.execute(sql`DELETE FROM ${groupLabelCounts} WHERE agent_id = ${agentId}::uuid`);
      await tx.execute(
        sql`INSERT INTO ${groupLabelCounts} (agent_id, group_id, label, n)
            SELECT agent_id, group_id, label, count(*) FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid GROUP BY agent_id, group_id, label`,
      );
      await tx.execute(sql`INSERT INTO ${groupLabelCountsReady} (agent_id) VALUES (${agentId}::uuid)`);
    });
  }
  // A page at a time in key order, the event loop free between pages: a year of data holds
  // hundreds of thousands of (group, label) counts, one statement over them a stall of seconds.
  const counts: GroupLabelCount[] = [];
  for (let after: { group_id: string; label: string } | undefined; ; ) {
    const from = after ? sql`AND (group_id, label) > (${after.group_id}, ${after.label})` : sql.empty();
    const rows = await queryJsonRowsInIndexOrder<{ group_id: string; label: OutcomeRow['label']; n: number }>(
      db,
      sql`SELECT group_id, label, n FROM ${groupLabelCounts} WHERE agent_id = ${agentId}::uuid ${from} ORDER BY group_id, label LIMIT ${page}`,
    );
    for (const r of rows) if (Number(r.n) > 0) counts.push({ groupId: r.group_id, label: r.label, n: Number(r.n) });
    if (rows.length < page) return counts;
    after = rows[rows.length - 1];
    await yieldToEventLoop();
  }
}
