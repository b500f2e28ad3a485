import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { bucketSpan, ratingAt } from './model/bucket-span';
import type { RatedItem } from './model/distribution';
import { agentLockKey, chunks, type Db, queryRows } from '../shared/sql';
import { eloBucketBasis, eloBucketCounts, eloItems } from './tables';
import type { EloItemState } from './elo-store';
import { ITEM_STATE_COLUMNS, type ItemStateRow, itemStateOf } from './elo-item-rows';

const BATCH = 500;
/** Rows read per page while looking for the top items of a kind. */
const TOP_PAGE = 100;
/** `pg_advisory_xact_lock(class, key)` class of the ELO book of one agent: 'SIEL'. */
const ELO_LOCK_CLASS = 0x5349454c;

const timestamp = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : ms > 0 ? 'infinity' : '-infinity');

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
    for (const batch of chunks(items, BATCH)) {
      const pairs = sql.join(
        batch.map((r) => sql`(kind = ${r.kind} AND item_id = ${r.id})`),
        sql` OR `,
      );
      const old = await queryRows<{ kind: string; bucket: number | null }>(t, sql`SELECT kind, bucket FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid AND (${pairs})`);
      for (const r of old) if (r.bucket !== null) counts.add(r.kind, Number(r.bucket), -1);
      const values = sql.join(
        batch.map((i) => {
          const span = bucketSpan(i, i.lastUsedMs, this.driftPerDay);
          counts.add(i.kind, span.bucket, 1);
          return sql`(${this.agentId}::uuid, ${i.kind}, ${i.id}, ${i.elo}, ${i.startElo}, ${i.updates}, ${timestamp(i.lastUsedMs)}::timestamptz, ${i.title ?? null}, ${i.body ?? null},
                      ${Math.max(i.elo, i.startElo)}, ${span.bucket}, ${timestamp(i.lastUsedMs)}::timestamptz, ${timestamp(span.untilMs)}::timestamptz)`;
        }),
        sql`, `,
      );
      await t.execute(
        sql`INSERT INTO ${eloItems} (agent_id, kind, item_id, elo, start_elo, updates, last_used_at, title, body, elo_ceiling, bucket, bucket_since, bucket_until) VALUES ${values}
            ON CONFLICT (agent_id, kind, item_id) DO UPDATE SET elo = EXCLUDED.elo, updates = EXCLUDED.updates, last_used_at = EXCLUDED.last_used_at,
            title = EXCLUDED.title, body = EXCLUDED.body, elo_ceiling = EXCLUDED.elo_ceiling, bucket = EXCLUDED.bucket,
            bucket_since = EXCLUDED.bucket_since, bucket_until = EXCLUDED.bucket_until`,
      );
    }
    await counts.apply(t, this.agentId);
  }

  /**
   * Makes the counts follow this drift rate: when they were computed with another one (or never,
   * in a database from before the counts), every item is uncounted (`bucket` null) and `advance`
   * counts them again. Returns whether it did.
   */
  async ensureBasis(): Promise<boolean> {
    return this.db.transaction(async (t) => {
      await this.lock(t);
      const rows = await queryRows<{ drift_per_day: number }>(t, sql`SELECT drift_per_day FROM ${eloBucketBasis} WHERE agent_id = ${this.agentId}::uuid`);
      if (rows[0] && Number(rows[0].drift_per_day) === this.driftPerDay) return false;
      await t.execute(
        sql`UPDATE ${eloItems} SET bucket = NULL, bucket_since = NULL, bucket_until = NULL, elo_ceiling = greatest(elo, start_elo) WHERE agent_id = ${this.agentId}::uuid`,
      );
      await t.execute(sql`DELETE FROM ${eloBucketCounts} WHERE agent_id = ${this.agentId}::uuid`);
      await t.execute(
        sql`INSERT INTO ${eloBucketBasis} (agent_id, drift_per_day) VALUES (${this.agentId}::uuid, ${this.driftPerDay})
            ON CONFLICT (agent_id) DO UPDATE SET drift_per_day = EXCLUDED.drift_per_day`,
      );
      return true;
    });
  }

  /**
   * Counts up to `limit` items whose bucket no longer holds at `nowMs` (or was never counted) in
   * their bucket then, in one transaction. Returns how many it moved: fewer than `limit` when no
   * more were due (an item moved at `nowMs` is not taken again at the same `nowMs`).
   */
  async advance(nowMs: number, limit = BATCH): Promise<number> {
    const now = timestamp(nowMs);
    return this.db.transaction(async (t) => {
      await this.lock(t);
      const due = await queryRows<ItemStateRow & { bucket: number | null }>(
        t,
        sql`SELECT ${ITEM_STATE_COLUMNS}, bucket FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid
            AND (bucket_until IS NULL OR bucket_until <= ${now}::timestamptz) AND (bucket_since IS NULL OR bucket_since < ${now}::timestamptz) LIMIT ${limit}`,
      );
      if (due.length === 0) return 0;
      const counts = new CountChanges();
      const values = sql.join(
        due.map((r) => {
          const span = bucketSpan(itemStateOf(r), nowMs, this.driftPerDay);
          if (r.bucket !== null) counts.add(r.kind, Number(r.bucket), -1);
          counts.add(r.kind, span.bucket, 1);
          return sql`(${r.kind}, ${r.item_id}, ${span.bucket}::float8, ${now}::timestamptz, ${timestamp(span.untilMs)}::timestamptz)`;
        }),
        sql`, `,
      );
      await t.execute(
        sql`UPDATE ${eloItems} AS e SET bucket = v.bucket, bucket_since = v.since, bucket_until = v.until, elo_ceiling = greatest(e.elo, e.start_elo)
            FROM (VALUES ${values}) AS v(kind, item_id, bucket, since, until) WHERE e.agent_id = ${this.agentId}::uuid AND e.kind = v.kind AND e.item_id = v.item_id`,
      );
      await counts.apply(t, this.agentId);
      return due.length;
    });
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
          AND (bucket_until IS NULL OR bucket_until <= ${now}::timestamptz OR bucket_since > ${now}::timestamptz)`,
    );
    return rows.map((r) => ({ ...itemStateOf(r), bucket: r.bucket === null ? null : Number(r.bucket) }));
  }

  /**
   * The `k` items of `kind` rated highest at `nowMs` (rating descending, ties by id in code-point
   * order), read in order of `elo_ceiling` (no rating can exceed it) until no item left can enter.
   */
  async top(kind: string, k: number, nowMs: number): Promise<RatedItem[]> {
    const best: RatedItem[] = [];
    let after: SQL = sql``;
    for (;;) {
      const rows = await queryRows<ItemStateRow & { elo_ceiling: number }>(
        this.db,
        sql`SELECT ${ITEM_STATE_COLUMNS}, elo_ceiling FROM ${eloItems} WHERE agent_id = ${this.agentId}::uuid AND kind = ${kind} ${after}
            ORDER BY elo_ceiling DESC, item_id COLLATE "C" LIMIT ${TOP_PAGE}`,
      );
      for (const r of rows) {
        const ceiling = Number(r.elo_ceiling);
        const last = best.length === k ? (best[k - 1] as RatedItem) : undefined;
        if (last && (ceiling < last.elo || (ceiling === last.elo && r.item_id > last.id))) return best;
        const state = itemStateOf(r);
        best.push({ kind, id: state.id, elo: ratingAt(state, nowMs, this.driftPerDay), updates: state.updates, ...(state.title === undefined ? {} : { title: state.title }) });
        best.sort((a, b) => b.elo - a.elo || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        if (best.length > k) best.pop();
      }
      const last = rows[rows.length - 1];
      if (!last || rows.length < TOP_PAGE) return best;
      after = sql`AND (elo_ceiling < ${Number(last.elo_ceiling)} OR (elo_ceiling = ${Number(last.elo_ceiling)} AND item_id COLLATE "C" > ${last.item_id}))`;
    }
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
      const values = sql.join(
        batch.map((c) => sql`(${agentId}::uuid, ${c.kind}, ${c.bucket}, ${c.count})`),
        sql`, `,
      );
      await t.execute(
        sql`INSERT INTO ${eloBucketCounts} AS c (agent_id, kind, bucket, count) VALUES ${values}
            ON CONFLICT (agent_id, kind, bucket) DO UPDATE SET count = c.count + EXCLUDED.count`,
      );
    }
    await t.execute(sql`DELETE FROM ${eloBucketCounts} WHERE agent_id = ${agentId}::uuid AND count = 0`);
  }
}
