import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import type { ExposedItem, ExposureChange, ItemRef } from './model/exposures';
import { yieldToEventLoop } from '../shared/event-loop';
import { chunks, type Db, epochMs, jsonRows, queryJsonRows, queryJsonRowsInIndexOrder, queryRows, queryRowsInIndexOrder } from '../shared/sql';
import { ELO_LOGS, eloExposures, eloItems, type EloLogName } from './tables';
import type { LogRetention } from '../shared/log-retention';
import { EloBucketStore } from './elo-bucket-store';
import { ratingKey } from './elo-hot-set';
import { ITEM_STATE_COLUMNS, type ItemStateRow, itemStateOf, itemStatesQuery } from './elo-item-rows';

const BATCH = 500;
/** An exposure as its INSERT reads it (`jsonRows`). */
const EXPOSURE_COLUMNS = { context: 'text', kind: 'text', item_id: 'text', boost: 'float8', exposed_at: 'timestamptz' };
/** Exposures read per statement at start-up. */
const EXPOSURE_PAGE = 1_000;
const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One scored item as stored. */
export interface EloItemState {
  kind: string;
  id: string;
  elo: number;
  startElo: number;
  updates: number;
  lastUsedMs: number;
  /** Content an integrator reported with the item (kept so the item can be shown in prompts). */
  title?: string;
  body?: string;
}

/** The ELO book of one agent in the runtime's database: item states and the two append-only logs. */
export class EloStore {
  /** Each item's counted bucket and the counts, kept by `write`: what the report reads. */
  readonly buckets: EloBucketStore;

  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
    /** The book's drift rate (the counted buckets follow the ratings drifted at it). */
    driftPerDay: number,
    /** Keeps each log to its newest rows; none: logs grow without bound. */
    private readonly retention?: LogRetention,
  ) {
    this.buckets = new EloBucketStore(db, agentId, driftPerDay);
  }

  /**
   * The `limit` items used most recently (newest first), with their content: what the book
   * holds in memory at start-up when they are few (`EloItems.open`).
   */
  async loadRecent(limit: number): Promise<EloItemState[]> {
    const rows = await queryJsonRowsInIndexOrder<ItemStateRow>(this.db, sql`SELECT ${ITEM_STATE_COLUMNS}, body FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid ORDER BY last_used_at DESC LIMIT ${limit}`);
    return rows.map(itemStateOf);
  }

  /**
   * The keys of the `limit` items used most recently, newest first, `page` at a time down the
   * index on the last use, an event-loop turn between pages: what the book's warm-up reads in the
   * background. Items used at the same time are told apart by key, so none is read twice or
   * skipped at a page's edge.
   */
  async *recentKeys(limit: number, page: number): AsyncGenerator<ItemRef[]> {
    let edge: string | null = null;
    let atEdge = new Set<string>();
    let read = 0;
    while (read < limit) {
      const asked = page + atEdge.size;
      const rows: { kind: string; item_id: string; at: string }[] = await queryJsonRowsInIndexOrder(
        this.db,
        sql`SELECT kind, item_id, last_used_at::text AS at FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid
            ${edge === null ? sql`` : sql`AND last_used_at <= ${edge}::timestamptz`} ORDER BY last_used_at DESC LIMIT ${asked}`,
      );
      const fresh = rows.filter((r) => !(r.at === edge && atEdge.has(ratingKey(r.kind, r.item_id)))).slice(0, limit - read);
      if (fresh.length === 0) return;
      read += fresh.length;
      yield fresh.map((r) => ({ kind: r.kind, id: r.item_id }));
      const last = (fresh[fresh.length - 1] as { at: string }).at;
      if (last !== edge) atEdge = new Set();
      edge = last;
      for (const r of fresh) if (r.at === edge) atEdge.add(ratingKey(r.kind, r.item_id));
      if (rows.length < asked) return;
      await yieldToEventLoop();
    }
  }

  /** The stored states of these items (by kind and id), one primary-key probe each, 500 a query; items never stored are absent. */
  async loadItems(refs: readonly { kind: string; id: string }[], withBody = true): Promise<EloItemState[]> {
    const out: EloItemState[] = [];
    for (const batch of chunks(refs, BATCH)) out.push(...(await queryJsonRows<ItemStateRow>(this.db, itemStatesQuery(this.agentId, batch, withBody))).map(itemStateOf));
    return out;
  }

  /** Every stored item (without its body: reports do not need it), read `BATCH` rows at a time in key order; `visit` sees each once. */
  async eachItem(visit: (item: EloItemState) => void): Promise<void> {
    let after: { kind: string; id: string } | undefined;
    for (;;) {
      const page = await this.states(after ? sql`AND (kind, item_id) > (${after.kind}, ${after.id}) ORDER BY kind, item_id LIMIT ${BATCH}` : sql`ORDER BY kind, item_id LIMIT ${BATCH}`, false);
      for (const item of page) visit(item);
      if (page.length < BATCH) return;
      after = page[page.length - 1];
      await yieldToEventLoop();
    }
  }

  private async states(rest: SQL, withBody = true): Promise<EloItemState[]> {
    const rows = await queryRows<ItemStateRow>(
      this.db,
      sql`SELECT ${ITEM_STATE_COLUMNS}, ${withBody ? sql`body` : sql`NULL::text AS body`} FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid ${rest}`,
    );
    return rows.map(itemStateOf);
  }

  /**
   * Exposures stored since `sinceMs` (older ones are deleted), grouped by context: contexts in order
   * of their first exposure, each one's items in order of exposure (then kind and id). Read
   * EXPOSURE_PAGE rows a statement in primary-key order, a turn of the event loop after each (read
   * at once, the exposures of the 1M bench database took 90–170 ms at start-up).
   */
  async loadExposures(sinceMs: number): Promise<{ context: string; atMs: number; items: ExposedItem[] }[]> {
    const since = new Date(sinceMs).toISOString();
    await this.db.execute(sql`DELETE FROM ${eloExposures} WHERE agent_id = ${this.agentId}::uuid AND exposed_at < ${since}::timestamptz`);
    await yieldToEventLoop();
    type Row = { context: string; kind: string; item_id: string; boost: number; at_ms: number };
    const byContext = new Map<string, { context: string; atMs: number; items: (ExposedItem & { atMs: number })[] }>();
    for (let after: Row | null = null; ; ) {
      const rows: Row[] = await queryRowsInIndexOrder<Row>(
        this.db,
        sql`SELECT context, kind, item_id, boost, ${epochMs('exposed_at')} AS at_ms FROM ${eloExposures}
            WHERE agent_id = ${this.agentId}::uuid ${after === null ? sql`` : sql`AND (context, kind, item_id) > (${after.context}, ${after.kind}, ${after.item_id})`}
            ORDER BY context, kind, item_id LIMIT ${EXPOSURE_PAGE}`,
      );
      for (const r of rows) {
        const atMs = Number(r.at_ms);
        const entry = byContext.get(r.context) ?? { context: r.context, atMs, items: [] };
        entry.atMs = Math.min(entry.atMs, atMs);
        entry.items.push({ kind: r.kind, id: r.item_id, boost: Number(r.boost), atMs });
        byContext.set(r.context, entry);
      }
      await yieldToEventLoop();
      if (rows.length < EXPOSURE_PAGE) break;
      after = rows[rows.length - 1] as Row;
    }
    const inOrder = (a: { atMs: number }, b: { atMs: number }) => a.atMs - b.atMs;
    return [...byContext.values()]
      .sort((a, b) => inOrder(a, b) || compareCodeUnits(a.context, b.context))
      .map(({ context, atMs, items }) => ({
        context,
        atMs,
        items: items.sort((a, b) => inOrder(a, b) || compareCodeUnits(a.kind, b.kind) || compareCodeUnits(a.id, b.id)).map(({ kind, id, boost }) => ({ kind, id, boost })),
      }));
  }

  /**
   * Writes item states (with their counted buckets), log entries and changed exposures in one
   * database transaction, under the agent's ELO lock: a crash loses the batch, never half of it.
   */
  async write(items: readonly EloItemState[], logs: Readonly<Record<EloLogName, readonly object[]>>, exposures: readonly ExposureChange[] = []): Promise<void> {
    await this.db.transaction(async (t) => {
      await this.buckets.lock(t);
      for (const batch of chunks(exposures, BATCH)) {
        const contexts = sql.join(
          batch.map((c) => sql`${c.context}`),
          sql`, `,
        );
        await t.execute(sql`DELETE FROM ${eloExposures} WHERE agent_id = ${this.agentId}::uuid AND context IN (${contexts})`);
        const rows = batch.flatMap((c) =>
          c.exposure ? c.exposure.items.map((i) => ({ context: c.context, kind: i.kind, item_id: i.id, boost: i.boost, exposed_at: new Date(c.exposure?.atMs as number).toISOString() })) : [],
        );
        for (const part of chunks(rows, BATCH)) {
          await t.execute(
            sql`INSERT INTO ${eloExposures} (agent_id, context, kind, item_id, boost, exposed_at)
                SELECT ${this.agentId}::uuid, v.context, v.kind, v.item_id, v.boost, v.exposed_at FROM ${jsonRows(part, EXPOSURE_COLUMNS)}`,
          );
        }
      }
      await this.buckets.writeItems(t, items);
      for (const [name, entries] of Object.entries(logs) as [EloLogName, readonly object[]][]) {
        for (const batch of chunks(entries, BATCH)) {
          await t.execute(
            sql`INSERT INTO ${ELO_LOGS[name]} (agent_id, entry) SELECT ${this.agentId}::uuid, v.entry FROM ${jsonRows(
              batch.map((entry) => ({ entry })),
              { entry: 'jsonb' },
            )}`,
          );
        }
      }
    });
    // Retention once the entries are committed, in statements of its own (`pruneToNewest`).
    for (const [name, entries] of Object.entries(logs) as [EloLogName, readonly object[]][]) await this.retention?.noteAppended(this.db, ELO_LOGS[name], entries.length);
  }

  /** Up to `limit` entries of a log with `afterSeq < seq < beforeSeq` (null: unbounded), newest first, down the primary key. */
  async logPage(name: EloLogName, afterSeq: number, beforeSeq: number | null, limit: number): Promise<{ seq: number; entry: Record<string, unknown> }[]> {
    const rows = await queryJsonRowsInIndexOrder<{ seq: number | string; entry: Record<string, unknown> }>(
      this.db,
      sql`SELECT seq, entry FROM ${ELO_LOGS[name]} WHERE agent_id = ${this.agentId}::uuid AND seq > ${afterSeq}
          ${beforeSeq === null ? sql`` : sql`AND seq < ${beforeSeq}`} ORDER BY seq DESC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ seq: Number(r.seq), entry: r.entry })).sort((a, b) => b.seq - a.seq);
  }

  /** The lowest seq a log still holds, or null when it holds none. */
  async oldestSeq(name: EloLogName): Promise<number | null> {
    const [row] = await queryRows<{ seq: number | string }>(this.db, sql`SELECT seq FROM ${ELO_LOGS[name]} WHERE agent_id = ${this.agentId}::uuid ORDER BY seq LIMIT 1`);
    return row === undefined ? null : Number(row.seq);
  }

  /** The newest entries of a log, newest first. */
  async log(name: EloLogName, limit: number): Promise<Record<string, unknown>[]> {
    return (await this.logPage(name, 0, null, limit)).map((r) => r.entry);
  }

}
