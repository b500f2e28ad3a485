import { type SQL, sql } from 'drizzle-orm';
import { epochMs } from '../shared/sql';
import type { EloItemState } from './elo-store';
import { eloItems } from './tables';

/** An item's state as `ITEM_STATE_COLUMNS` selects it from `self_improve.elo`. */
export interface ItemStateRow {
  kind: string;
  item_id: string;
  elo: number;
  start_elo: number;
  updates: number;
  last_used_ms: number;
  title: string | null;
  body?: string | null;
}

/** The columns of an item's state (not its body). */
export const ITEM_STATE_COLUMNS: SQL = sql`kind, item_id, elo, start_elo, updates, ${epochMs('last_used_at')} AS last_used_ms, title`;

export const itemStateOf = (r: ItemStateRow): EloItemState => ({
  kind: r.kind,
  id: r.item_id,
  elo: Number(r.elo),
  startElo: Number(r.start_elo),
  updates: Number(r.updates),
  lastUsedMs: Number(r.last_used_ms),
  ...(r.title === null ? {} : { title: r.title }),
  ...(r.body === null || r.body === undefined ? {} : { body: r.body }),
});

/**
 * A FROM clause of the stored items of `refs` (as `e`), one primary-key probe per item: a join of
 * the list with the items, or a list of (kind, id) conditions, is planned without statistics
 * (PGlite never analyses) as a read of every item of the agent (500 OR-ed pairs: 106–284 ms on the
 * 1M bench database, 5–7 ms this way). Items not stored give no row.
 */
export function storedItems(agentId: string, refs: readonly { kind: string; id: string }[]): SQL {
  const kinds = sql.join(
    refs.map((r) => sql`${r.kind}`),
    sql`, `,
  );
  const ids = sql.join(
    refs.map((r) => sql`${r.id}`),
    sql`, `,
  );
  return sql`unnest(ARRAY[${kinds}]::text[], ARRAY[${ids}]::text[]) AS r(kind, item_id)
             CROSS JOIN LATERAL (SELECT * FROM ${eloItems} AS i WHERE i.agent_id = ${agentId}::uuid AND i.kind = r.kind AND i.item_id = r.item_id OFFSET 0) AS e`;
}

/** The stored states of `refs` (with their content when `withBody`), read through `storedItems`. */
export function itemStatesQuery(agentId: string, refs: readonly { kind: string; id: string }[], withBody = false): SQL {
  return sql`SELECT e.kind, e.item_id, e.elo, e.start_elo, e.updates, ${epochMs('e.last_used_at')} AS last_used_ms, e.title, ${withBody ? sql`e.body` : sql`NULL::text AS body`}
             FROM ${storedItems(agentId, refs)}`;
}
