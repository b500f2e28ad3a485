import type { IAgentRuntime } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { outcomesTable } from '../../src/scan/tables';
import { dbOf, queryRows } from '../../src/shared/sql';

/**
 * The outcome rows the agent stored for these finding keys, as written to the database (with
 * `label`, `source` and `notes`, which `lookupFindings` strips), ordered by key, time, insertion.
 */
export async function storedOutcomes(runtime: IAgentRuntime, keys: readonly string[]): Promise<Record<string, unknown>[]> {
  if (keys.length === 0) return [];
  const list = sql.join(
    keys.map((k) => sql`${k}`),
    sql`, `,
  );
  const rows = await queryRows<{ row_json: Record<string, unknown> | string }>(
    dbOf(runtime),
    sql`SELECT row_json FROM ${outcomesTable} WHERE agent_id = ${runtime.agentId}::uuid AND finding_key IN (${list})
        ORDER BY finding_key, ts, seq`,
  );
  return rows.map((r) => (typeof r.row_json === 'string' ? (JSON.parse(r.row_json) as Record<string, unknown>) : r.row_json));
}
