import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import type { ExposedItem, ExposureChange } from './model/exposures';
import { yieldToEventLoop } from '../shared/event-loop';
import { chunks, type Db, queryJsonRowsInIndexOrder, queryRows } from '../shared/sql';
import { ELO_LOGS, eloExposures, eloItems, type EloLogName } from './tables';
import type { LogRetention } from '../shared/log-retention';
import { EloBucketStore } from './elo-bucket-store';
import { ITEM_STATE_COLUMNS, type ItemStateRow, itemStateOf } from './elo-item-rows';

const BATCH = 500;

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
   * The `limit` items used most recently (newest first): what the book holds in memory at start-up.
   */
  loadRecent(limit: number): Promise<EloItemState[]> {
    return this.states(sql`ORDER BY last_used_at DESC, kind, item_id LIMIT ${limit}`);
  }

  /** The stored states of these items (by kind and id), in one query per 500; items never stored are absent. */
  async loadItems(refs: readonly { kind: string; id: string }[], withBody = true): Promise<EloItemState[]> {
    const out: EloItemState[] = [];
    for (const batch of chunks(refs, BATCH)) {
      // One equality pair per item, OR-ed: each is a primary-key lookup (a row-value IN list is not, in PGlite).
      const pairs = sql.join(
        batch.map((r) => sql`(kind = ${r.kind} AND item_id = ${r.id})`),
        sql` OR `,
      );
      out.push(...(await this.states(sql`AND (${pairs})`, withBody)));
    }
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

  /** Exposures stored since `sinceMs` (older ones are deleted), grouped by context. */
  async loadExposures(sinceMs: number): Promise<{ context: string; atMs: number; items: ExposedItem[] }[]> {
    const since = new Date(sinceMs).toISOString();
    await this.db.execute(sql`DELETE FROM ${eloExposures} WHERE agent_id = ${this.agentId}::uuid AND exposed_at < ${since}::timestamptz`);
    const rows = await queryRows<{ context: string; kind: string; item_id: string; boost: number; at_ms: number }>(
      this.db,
      sql`SELECT context, kind, item_id, boost, (extract(epoch from exposed_at) * 1000)::float8 AS at_ms FROM ${eloExposures}
          WHERE agent_id = ${this.agentId}::uuid ORDER BY exposed_at, context, kind, item_id`,
    );
    const byContext = new Map<string, { context: string; atMs: number; items: ExposedItem[] }>();
    for (const r of rows) {
      const entry = byContext.get(r.context) ?? { context: r.context, atMs: Number(r.at_ms), items: [] };
      entry.items.push({ kind: r.kind, id: r.item_id, boost: Number(r.boost) });
      byContext.set(r.context, entry);
    }
    return [...byContext.values()];
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
        const rows = batch.flatMap((c) => (c.exposure ? c.exposure.items.map((i) => ({ context: c.context, atMs: c.exposure?.atMs as number, ...i })) : []));
        for (const part of chunks(rows, BATCH)) {
          const values = sql.join(
            part.map((r) => sql`(${this.agentId}::uuid, ${r.context}, ${r.kind}, ${r.id}, ${r.boost}, ${new Date(r.atMs).toISOString()}::timestamptz)`),
            sql`, `,
          );
          await t.execute(sql`INSERT INTO ${eloExposures} (agent_id, context, kind, item_id, boost, exposed_at) VALUES ${values}`);
        }
      }
      await this.buckets.writeItems(t, items);
      for (const [name, entries] of Object.entries(logs) as [EloLogName, readonly object[]][]) {
        for (const batch of chunks(entries, BATCH)) {
          const values = sql.join(
            batch.map((e) => sql`(${this.agentId}::uuid, ${JSON.stringify(e)}::jsonb)`),
            sql`, `,
          );
          await t.execute(sql`INSERT INTO ${ELO_LOGS[name]} (agent_id, entry) VALUES ${values}`);
        }
        await this.retention?.noteAppended(t, ELO_LOGS[name], entries.length);
      }
    });
  }

  /** The newest entries of a log, newest first. */
  async log(name: EloLogName, limit: number): Promise<Record<string, unknown>[]> {
    // One JSON document (a row object per entry costs more than the entry), walked down the primary key.
    const rows = await queryJsonRowsInIndexOrder<{ seq: number; entry: Record<string, unknown> }>(
      this.db,
      sql`SELECT seq, entry FROM ${ELO_LOGS[name]} WHERE agent_id = ${this.agentId}::uuid ORDER BY seq DESC LIMIT ${limit}`,
    );
    return rows.sort((a, b) => b.seq - a.seq).map((r) => r.entry);
  }
}
