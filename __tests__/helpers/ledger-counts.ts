import type { IAgentRuntime } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { ledgerTable } from '../../src/ledger/tables';
import { outcomesTable } from '../../src/scan/tables';
import { dbOf, queryRows } from '../../src/shared/sql';

/**
 * What exactly-once is checked against, read straight from the tables: outcomes that earn points
 * (every label but `ignored`, for rows without a confidence), their ledger entries, and the
 * outcomes holding more than one entry (or none).
 */
export async function ledgerCounts(runtime: IAgentRuntime): Promise<{ rewarded: number; entries: number; paidTwice: number; unpaid: number }> {
  const db = dbOf(runtime);
  const agent = sql`${runtime.agentId}::uuid`;
  const [row] = await queryRows<{ rewarded: number; entries: number; paid_twice: number; unpaid: number }>(
    db,
    sql`SELECT
          (SELECT count(*)::int FROM ${outcomesTable} WHERE agent_id = ${agent} AND label <> 'ignored') AS rewarded,
          (SELECT count(*)::int FROM ${ledgerTable} WHERE agent_id = ${agent} AND tx_json->>'source' = 'scan_outcome') AS entries,
          (SELECT count(*)::int FROM (SELECT tx_json->>'source_ref' FROM ${ledgerTable} WHERE agent_id = ${agent} AND tx_json->>'source' = 'scan_outcome'
             GROUP BY 1 HAVING count(*) > 1) d) AS paid_twice,
          (SELECT count(*)::int FROM ${outcomesTable} o WHERE o.agent_id = ${agent} AND o.label <> 'ignored' AND NOT EXISTS (
             SELECT 1 FROM ${ledgerTable} l WHERE l.agent_id = ${agent} AND l.tx_json->>'source_ref' = o.id::text)) AS unpaid`,
  );
  return { rewarded: Number(row?.rewarded), entries: Number(row?.entries), paidTwice: Number(row?.paid_twice), unpaid: Number(row?.unpaid) };
}
