import { type SQL, sql } from 'drizzle-orm';
import type { EloItemState } from './elo-store';

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
export const ITEM_STATE_COLUMNS: SQL = sql`kind, item_id, elo, start_elo, updates, (extract(epoch from last_used_at) * 1000)::float8 AS last_used_ms, title`;

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
