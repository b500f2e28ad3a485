import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { bucketSpan, driftOrder, ratingAt, storedSpan } from './model/bucket-span';
import { INITIAL_ELO_BY_TIER } from './model/tiers';
import type { RatedItem } from './model/distribution';
import { agentLockKey, chunks, type Db, epochMs, jsonRows, queryJsonRows, queryRows } from '../shared/sql';
import { eloBucketBasis, eloBucketCounts, eloItems } from './tables';
import type { EloItemState } from './elo-store';
import { yieldToEventLoop } from '../shared/event-loop';
import { ITEM_STATE_COLUMNS, type ItemStateRow, itemStateOf, itemStatesQuery, storedItems } from './elo-item-rows';

const BATCH = 500;
/** Rows read in the first page of each start while looking for the top items of a kind (later pages grow four times, to 2,000). */
const TOP_FIRST_PAGE = 16;
/**
 * Rating points by which the key order may disagree with the ratings computed from it (float
 * rounding of the key and of the rating: about 1e-10 for ratings in the thousands).
 */
const ORDER_SLACK = 1e-6;
/** Every starting rating an item can have. */
const STARTS = [...new Set(Object.values(INITIAL_ELO_BY_TIER))];
/** `pg_advisory_xact_lock(class, key)` class of the ELO book of one agent: 'SIEL'. */
const ELO_LOCK_CLASS = 0x5349454c;

/** An item's row as its upsert reads it (`jsonRows`); `bucket_since` is its last use. */
const ITEM_ROW_COLUMNS = {
  kind: 'text',
  item_id: 'text',
  elo: 'float8',
  start_elo: 'float8',
  updates: 'int',
  last_used_at: 'timestamptz',
  title: 'text',
  body: 'text',
  above_start: 'boolean',
  drift_key: 'float8',
  bucket: 'float8',
  bucket_since: 'timestamptz',
  bucket_until: 'timestamptz',
};
const BUCKET_COUNT_COLUMNS = { kind: 'text', bucket: 'float8', count: 'int' };
const timestamp = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : ms > 0 ? 'infinity' : '-infinity');
/**
 * The condition on `bucket_until` of the items due at `now` (a timestamp). `floor` is the book's
 * `swept_until` (`-infinity` when there is none): read before (a timestamp) or by a subquery of
 * the same statement.
 */
const dueUntil = (floor: SQL | string, now: string) =>
  sql`(bucket_until IS NULL OR (bucket_until >= ${floor}::timestamptz AND bucket_until <= ${now}::timestamptz))`;

/** Items of one kind in one 100-point bucket. */
export interface BucketCount {
  kind: string;
  bucket: number;
  count: number;
}

/** An item whose counted bucket does not hold at a time: `bucket` is where it is counted (null: not counted). */
export interface UncountedItem extends EloItemState {
  bucket: number | null;
}

/**
 * What the ELO report reads instead of every item: each item's 100-point bucket and until when it
 * holds (`bucketSpan`, kept in `elo.bucket`, `bucket_since`, `bucket_until`), the items counted per
 * kind and bucket (`elo_bucket_counts`), and `elo_ceiling` to find the top items through an index.
 * Every write of items and every move of a bucket changes the counts in the same transaction,
 * under the agent's ELO lock (so two processes writing one book keep them right).
 *
 * The items due to move are read by their `bucket_until` from the book's `swept_until`, not from
 * the start of time: every move leaves the item's old index entry behind, dead, and PGlite never
 * vacuums, so a read from the start walked every move ever made (on the 1M bench database, 204
 * pages for no item due, up to 80 ms when they were not cached; 8 from `swept_until`). No stored span ends before
 * `swept_until` (`storedSpan`); a move that finds every due item raises it to its time.
 */
export class EloBucketStore {
  constructor(
    private readonly db: Db,
    private readonly agentId: UUID,
    private readonly driftPerDay: number,
  ) {}

  /** Takes the agent's ELO lock until the end of `t`'s transaction. */
  async lock(t: Db): Promise<void> {
    await t.execute(sql`SELECT pg_advisory_xact_lock(${ELO_LOCK_CLASS}, ${agentLockKey(this.agentId)})`);
  }

  /** Inside `t`, which holds the lock: upserts the items with their buckets and moves the counts. */
  async writeItems(t: Db, items: readonly EloItemState[]): Promise<void> {
    const counts = new CountChanges();
    const floorMs = await this.sweptUntil(t);
    for (const batch of chunks(items, BATCH)) {
      const old = await queryRows<{ kind: string; bucket: number | null }>(t, sql`SELECT e.kind, e.bucket FROM ${storedItems(this.agentId, batch)}`);
      for (const r of old) if (r.bucket !== null) counts.add(r.kind, Number(r.bucket), -1);
      const rows = batch.map((i) => {
        const span = bucketSpan(i, i.lastUsedMs, this.driftPerDay);
        const stored = storedSpan(i.lastUsedMs, span.untilMs, floorMs);
        const order = driftOrder(i, this.driftPerDay);
        counts.add(i.kind, span.bucket, 1);
        return {
          kind: i.kind, item_id: i.id, elo: i.elo, start_elo: i.startElo, updates: i.updates, last_used_at: timestamp(i.lastUsedMs), title: i.title ?? null, body: i.body ?? null,
          above_start: order.above, drift_key: order.key, bucket: span.bucket, bucket_since: timestamp(stored.sinceMs), bucket_until: timestamp(stored.untilMs),
        };
      });
      await t.execute(
        sql`INSERT INTO ${eloItems} (agent_id, kind, item_id, elo, start_elo, updates, last_used_at, title, body, above_start, drift_key, bucket, bucket_since, bucket_until)
            SELECT ${this.agentId}::uuid, v.kind, v.item_id, v.elo, v.start_elo, v.updates, v.last_used_at, v.title, v.body, v.above_start, v.drift_key, v.bucket, v.bucket_since, v.bucket_until
            FROM ${jsonRows(rows, ITEM_ROW_COLUMNS)}
            ON CONFLICT (agent_id, kind, item_id) DO UPDATE SET elo = EXCLUDED.elo, updates = EXCLUDED.updates, last_used_at = EXCLUDED.last_used_at,
            title = EXCLUDED.title, body = EXCLUDED.body, above_start = EXCLUDED.above_start, drift_key = EXCLUDED.drift_key, bucket = EXCLUDED.bucket,
            bucket_since = EXCLUDED.bucket_since, bucket_until = EXCLUDED.bucket_until`,
      );
    }
    await counts.apply(t, this.agentId);
  }

  /**
   * Makes the counts follow this drift rate: when they were computed with another one (or never,
   * in a database from before the counts), every item is uncounted (`bucket` null, due since −∞,
   * `swept_until` forgotten) and `advance` counts them again. Returns whether it did.
   */
  async ensureBasis(): Promise<boolean> {
    return this.db.transaction(async (t) => {
      await this.lock(t);
      const rows = await queryRows<{ drift_per_day: number }>(t, sql`SELECT drift_per_day FROM ${eloBucketBasis} WHERE agent_id = ${this.agentId}::uuid`);
      if (rows[0] && Number(rows[0].drift_per_day) === this.driftPerDay) return false;
      await t.execute(
        sql`UPDATE ${eloItems} SET bucket = NULL, bucket_since = NULL, bucket_until = '-infinity', above_start = NULL, drift_key = NULL WHERE agent_id = ${this.agentId}::uuid`,
      );
      await t.execute(sql`DELETE FROM ${eloBucketCounts} WHERE agent_id = ${this.agentId}::uuid`);
      await t.execute(
        sql`INSERT INTO ${eloBucketBasis} (agent_id, drift_per_day, swept_until) VALUES (${this.agentId}::uuid, ${this.driftPerDay}, NULL)
            ON CONFLICT (agent_id) DO UPDATE SET drift_per_day = EXCLUDED.drift_per_day, swept_until = NULL`,
      );
      return true;
    });
  }

  /**
   * Counts up to `limit` items whose bucket no longer holds at `nowMs` (or was never counted) in
   * their bucket then, in one transaction. Returns how many it moved: fewer than `limit` when no
   * more were due (an item moved at `nowMs` is not taken again at the same `nowMs`), and then
   * `swept_until` rises to `nowMs`: every item it did not take has a span to at least its time.
   */
  async advance(nowMs: number, limit = BATCH): Promise<number> {
    const now = timestamp(nowMs);
    return this.db.transaction(async (t) => {
      await this.lock(t);
      const floorMs = await this.sweptUntil(t);
      const due = await queryRows<ItemStateRow & { bucket: number | null }>(
        t,
        sql`SELECT ${ITEM_STATE_COLUMNS}, bucket FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid
            AND ${dueUntil(timestamp(floorMs), now)} AND (bucket_since IS NULL OR bucket_since < ${now}::timestamptz) LIMIT ${limit}`,
      );
      const counts = new CountChanges();
      const moved = due.map((r) => {
        const state = itemStateOf(r);
        const span = bucketSpan(state, nowMs, this.driftPerDay);
        const stored = storedSpan(nowMs, span.untilMs, floorMs);
        const order = driftOrder(state, this.driftPerDay);
        if (r.bucket !== null) counts.add(r.kind, Number(r.bucket), -1);
        counts.add(r.kind, span.bucket, 1);
        return { kind: r.kind, item_id: r.item_id, bucket: span.bucket, since: timestamp(stored.sinceMs), until: timestamp(stored.untilMs), above: order.above, key: order.key };
      });
      if (moved.length > 0) {
        await t.execute(
          sql`UPDATE ${eloItems} AS e SET bucket = v.bucket, bucket_since = v.since, bucket_until = v.until, above_start = v.above, drift_key = v.key
              FROM ${jsonRows(moved, { kind: 'text', item_id: 'text', bucket: 'float8', since: 'timestamptz', until: 'timestamptz', above: 'boolean', key: 'float8' })}
              WHERE e.agent_id = ${this.agentId}::uuid AND e.kind = v.kind AND e.item_id = v.item_id`,
        );
        await counts.apply(t, this.agentId);
      }
      if (due.length < limit && nowMs > floorMs) {
        await t.execute(sql`UPDATE ${eloBucketBasis} SET swept_until = ${now}::timestamptz WHERE agent_id = ${this.agentId}::uuid`);
      }
      return due.length;
    });
  }

  /** Inside `t`, which holds the lock: the book's `swept_until` (−∞ when none). */
  private async sweptUntil(t: Db): Promise<number> {
    const rows = await queryRows<{ swept_ms: number | null }>(
      t,
      sql`SELECT ${epochMs('swept_until')} AS swept_ms FROM ${eloBucketBasis} WHERE agent_id = ${this.agentId}::uuid`,
    );
    const at = rows[0]?.swept_ms;
    return at === null || at === undefined ? Number.NEGATIVE_INFINITY : Number(at);
  }

  /** The counts, kinds and buckets with at least one item. */
  async counts(): Promise<BucketCount[]> {
    const rows = await queryRows<{ kind: string; bucket: number; count: number }>(
      this.db,
      sql`SELECT kind, bucket, count FROM ${eloBucketCounts} WHERE agent_id = ${this.agentId}::uuid AND count <> 0`,
    );
    return rows.map((r) => ({ kind: r.kind, bucket: Number(r.bucket), count: Number(r.count) }));
  }

  /** The items whose counted bucket does not hold at `nowMs`: never counted, due to move, or counted from after `nowMs`. */
  async uncounted(nowMs: number): Promise<UncountedItem[]> {
    const now = timestamp(nowMs);
    const rows = await queryRows<ItemStateRow & { bucket: number | null }>(
      this.db,
      sql`SELECT ${ITEM_STATE_COLUMNS}, bucket FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid
          AND (${dueUntil(sql`coalesce((SELECT swept_until FROM ${eloBucketBasis} WHERE agent_id = ${this.agentId}::uuid), '-infinity')`, now)} OR bucket_since > ${now}::timestamptz)`,
    );
    return rows.map((r) => ({ ...itemStateOf(r), bucket: r.bucket === null ? null : Number(r.bucket) }));
  }

  /** The items used after `nowMs` (none, for a report of now), through the index on the last use. */
  async usedAfter(nowMs: number): Promise<EloItemState[]> {
    const rows = await queryRows<ItemStateRow>(
      this.db,
      sql`SELECT ${ITEM_STATE_COLUMNS} FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid AND last_used_at > ${timestamp(nowMs)}::timestamptz`,
    );
    return rows.map(itemStateOf);
  }

  /** The stored states of these items (without content); items never stored are absent. One primary-key lookup per item, 2,000 items a query. */
  async states(refs: readonly { kind: string; id: string }[]): Promise<EloItemState[]> {
    const out: EloItemState[] = [];
    for (const [i, batch] of chunks(refs, 2_000).entries()) {
      if (i > 0) await yieldToEventLoop();
      const rows = await queryJsonRows<ItemStateRow>(this.db, itemStatesQuery(this.agentId, batch));
      out.push(...rows.map(itemStateOf));
    }
    return out;
  }

  /**
   * The `k` items of `kind` rated highest at `nowMs` (rating descending, ties by id in code-point
   * order). Items used after `nowMs` rate as stored: the caller gives those of the kind
   * (`usedAfter`, none for a report of now); the others are read per start in the order of their ratings (`driftOrder`, the
   * `elo_top_idx` index), each start until its next rating is below the k-th found: about k rows
   * per start, whatever the size of the kind. Items tied exactly (at their start, say) are all
   * read while the tie is at the k-th place. Needs every item counted (`drift_key` not null).
   */
  async top(kind: string, k: number, nowMs: number, usedAfter: readonly EloItemState[]): Promise<RatedItem[]> {
    const best: RatedItem[] = [];
    const offer = (state: EloItemState, elo: number) => {
      best.push({ kind, id: state.id, elo, updates: state.updates, ...(state.title === undefined ? {} : { title: state.title }) });
      best.sort((a, b) => b.elo - a.elo || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (best.length > k) best.pop();
    };
    for (const state of usedAfter) offer(state, state.elo);
    for (const [i, start] of STARTS.entries()) {
      // A turn between two starts' reads (the caller gives one before the first).
      if (i > 0) await yieldToEventLoop();
      let after: SQL = sql``;
      for (let page = Math.max(k, TOP_FIRST_PAGE); ; page = Math.min(page * 4, 2_000)) {
        const rows = await queryRows<ItemStateRow & { above_start: boolean; drift_key: number }>(
          this.db,
          sql`SELECT ${ITEM_STATE_COLUMNS}, above_start, drift_key FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid AND kind = ${kind} AND start_elo = ${start} ${after}
              ORDER BY above_start DESC, drift_key DESC, item_id COLLATE "C" LIMIT ${page}`,
        );
        if (!this.offerRows(rows, nowMs, k, best, offer) || rows.length < page) break;
        const last = rows[rows.length - 1] as { above_start: boolean; drift_key: number; item_id: string };
        const key = Number(last.drift_key);
        after = sql`AND ((above_start, drift_key) < (${last.above_start}, ${key}::float8) OR ((above_start, drift_key) = (${last.above_start}, ${key}::float8) AND item_id COLLATE "C" > ${last.item_id}))`;
      }
    }
    return best;
  }

  /** Offers rows read in rating order; false once a row's rating is below the k-th found (the rest of its start cannot enter). */
  private offerRows(rows: readonly ItemStateRow[], nowMs: number, k: number, best: readonly RatedItem[], offer: (state: EloItemState, elo: number) => void): boolean {
    for (const r of rows) {
      const state = itemStateOf(r);
      if (state.lastUsedMs > nowMs) continue;
      const elo = ratingAt(state, nowMs, this.driftPerDay);
      const kth = best.length === k ? best[k - 1] : undefined;
      if (kth && elo < kth.elo - ORDER_SLACK) return false;
      offer(state, elo);
    }
    return true;
  }
}

/** Changes to the counts, summed per kind and bucket, applied in one statement. */
class CountChanges {
  private readonly byKey = new Map<string, BucketCount>();

  add(kind: string, bucket: number, n: number): void {
    const key = `${kind}\u0000${bucket}`;
    const entry = this.byKey.get(key);
    if (entry) entry.count += n;
    else this.byKey.set(key, { kind, bucket, count: n });
  }

  async apply(t: Db, agentId: UUID): Promise<void> {
    const changes = [...this.byKey.values()].filter((c) => c.count !== 0);
    if (changes.length === 0) return;
    for (const batch of chunks(changes, BATCH)) {
      await t.execute(
        sql`INSERT INTO ${eloBucketCounts} AS c (agent_id, kind, bucket, count)
            SELECT ${agentId}::uuid, v.kind, v.bucket, v.count FROM ${jsonRows(batch, BUCKET_COUNT_COLUMNS)}
            ON CONFLICT (agent_id, kind, bucket) DO UPDATE SET count = c.count + EXCLUDED.count`,
      );
    }
    await t.execute(sql`DELETE FROM ${eloBucketCounts} WHERE agent_id = ${agentId}::uuid AND count = 0`);
  }
}
