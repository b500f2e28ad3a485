import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { LIFECYCLE_RANK, type MetricOutcome } from './model/findings';
import {
  type FindingMetricState,
  findingTallies,
  fixBucket,
  keyOrderHex,
  sameState,
  statesOfFinding,
  GRAIN,
  type GrainTally,
  grainsOf,
  type Tally,
  TALLY_KIND,
  ALL_SCOPE,
  SIZE_SCOPE,
  SIZED_GRAINS,
  type WeekFindingState,
  weekFindingTallies,
} from './model/metric-rollup';
import { countOutcomesInSeqRange, metricOutcomesOfKeys, newestOutcomeSeq, nextOutcomeSeqRange } from './outcome-store';
import { yieldToEventLoop } from '../shared/event-loop';
import { chunks, type Db, eachKey, epochMs, jsonRows, queryRows } from '../shared/sql';
import { findingMetrics, findingsTable, metricRollupState, metricSliceSizes, metricTallies, outcomesTable, weekFindingMetrics } from './tables';

/**
 * Findings refreshed per query. Each finding row writes into nine indexes at random places, so on
 * a large database a statement costs about a page read per index entry: at 1M outcomes, 250 a
 * statement took 90-220 ms (a stall), 100 still 50-220 ms on a cold cache; 25 keeps it a quarter of
 * that (the read of 25 findings' states still took 64 and 132 ms in two 1M runs of bench/scale.ts).
 * 10 was tried: the rollup took 40% longer at 1M, and two CLI processes ingesting into one
 * PostgreSQL database had their ledger reconciliations fail (postgres-processes test, twice).
 */
const KEY_BATCH = 25;
/** Tally rows per statement. */
const TALLY_BATCH = 500;
/**
 * The layout of the rollup this code writes: 3 keeps the slices' sizes in `metric_slice_sizes`
 * (2 kept them as tally rows in SIZE_SCOPE, 1 in ALL_SCOPE).
 */
export const ROLLUP_FORMAT = 3;
/** Slice sizes moved per statement when a rollup is brought up to format 3 (500 took 33–55 ms a statement on the 1M bench database). */
const SIZE_MOVE_BATCH = 200;
/**
 * Outcomes a step of the rollup takes in one transaction. Its tally statement upserts about 40
 * rows per outcome: 250 took up to 190 ms at 1M, 100 up to 101 ms. On the 36th run's 1M database,
 * 100,000 outcomes rolled up again in a fresh process (two runs each way, alternating), 50 gave a
 * longest event-loop gap of 33 and 22 ms against 46 and 62 ms at 100, a p99.9 of 11.7 and 11.2 ms
 * against 18.5 and 11.6, for a rollup 4–17% longer (67–68 s against 58–64 s). The one whole run
 * since (the 37th) did not show it: its rollup stalls were finding writes and the collector.
 */
export const ROLLUP_CHUNK = 50;

/**
 * Seqs of waiting outcomes `MetricRollup.lag` counts per statement (the first with the rollup's
 * state). Measured with `bench/lag-count.ts`; the figures are in the README ("Triage prior, metrics
 * and replay").
 */
const LAG_COUNT_RANGE = 20_000;

/** The columns of the rows the rollup writes, as `jsonRows` reads them. */
const FINDING_COLUMNS = {
  finding_key: 'text',
  project: 'text',
  scanner: 'text',
  model: 'text',
  final_rank: 'smallint',
  confirmed: 'boolean',
  flags: 'smallint',
  neg_confidence: 'float8',
  key_order: 'text',
  hours_to_fix: 'float8',
  fix_bucket: 'int',
};
const WEEK_COLUMNS = { week: 'text', finding_key: 'text', final_rank: 'smallint', confirmed: 'boolean', neg_confidence: 'float8', key_order: 'text' };
/** A `GrainTally`'s fields; `p` is summed exactly (numeric). */
export const TALLY_COLUMNS = { scope: 'text', grain: 'smallint', project: 'text', scanner: 'text', model: 'text', kind: 'smallint', bucket: 'int', n: 'int', p: 'numeric', y: 'int' };

/** The label's lifecycle rank, in SQL (labels are the model's constants, never outside text). */
const LABEL_RANK_SQL = sql.raw(`CASE o.label ${Object.entries(LIFECYCLE_RANK).map(([label, rank]) => `WHEN '${label}' THEN ${rank}`).join(' ')} END`);
const MODEL_SQL = sql.raw(`(o.row_json->>'model_provider') || '/' || (o.row_json->>'model_name')`);

/** What the stores that write outcomes and findings tell the rollup's follower (`ScanMetrics`). */
export interface OutcomeFollower {
  /** Called first in every transaction that writes outcomes or findings. */
  lock(tx: Db): Promise<void>;
  /** Before a transaction that writes outcomes begins. */
  writing(): void;
  /** After it has ended, committed (`wrote`: whether it stored an outcome) or not. */
  written(wrote: boolean): void;
  /** Inside a transaction that recorded findings, after `lock`: the keys that were new. */
  recorded(tx: Db, keys: readonly string[]): Promise<void>;
}

/**
 * A rollup's version: the microseconds of the clock, and always more than the one before. A
 * rollup started over (its state row deleted) so never reuses a version a process may remember.
 */
const CLOCK_VERSION = sql`(extract(epoch FROM clock_timestamp()) * 1000000)::bigint`;
const nextVersion = sql`greatest(s.version + 1, ${CLOCK_VERSION})`;

/** Where a rollup stands: the seq it holds, the outcomes stored after it, and its `version`. */
export interface RollupPosition {
  doneSeq: number;
  pending: number;
  version: number;
}

/**
 * The metrics rollup of one agent (`metric_tallies`, `finding_metrics`, `week_finding_metrics`),
 * kept by following the outcomes in `seq` order, off the ingest path: `step` rolls up the next
 * chunk after `done_seq` in one transaction. Every transaction that writes outcomes or findings
 * takes `lock` first, as `step` does, so while a step runs no outcome is half-written: each seq at
 * or below the newest one it sees is committed, and none is passed over. What the rollup holds is
 * exactly the outcomes with seq ≤ `done_seq` (a finding's state too: `refreshFindings` reads only
 * those), whatever was written after.
 */
export class MetricRollup {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
    /** Waiting outcomes `lag` counts in one statement, and seqs per statement beyond that. */
    private readonly lagCountRange = LAG_COUNT_RANGE,
  ) {}

  /** Holds the agent's rollup lock until `tx` ends. */
  async lock(tx: Db): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`self_improve.metric_rollup:${this.agentId}`}, 0))`);
  }

  /**
   * Counts the outcomes `where` selects (alias `o`) in the tallies — all-time at every grain
   * (with each slice's size), per UTC day and hour down to the model grain, per UTC week overall — then
   * refreshes their findings.
   */
  private async rollUpOutcomes(tx: Db, where: SQL, throughSeq: number): Promise<void> {
    const keys = await queryRows<{ finding_key: string }>(
      tx,
      sql`WITH taken AS MATERIALIZED (
            SELECT o.agent_id, o.ts, o.reward, ${LABEL_RANK_SQL} AS rank, o.row_json->>'project' AS project, o.row_json->>'scanner' AS scanner, ${MODEL_SQL} AS model
            FROM ${outcomesTable} o WHERE ${where}
          ), counted AS (
            INSERT INTO ${metricTallies} AS t (agent_id, scope, grain, project, scanner, model, kind, bucket, n, p_sum, y_sum)
            SELECT o.agent_id, s.scope, g.grain::smallint, g.project, g.scanner, g.model, ${TALLY_KIND.outcome}::smallint, o.rank, count(*), sum(o.reward::text::numeric), 0
            FROM taken o
            CROSS JOIN LATERAL (VALUES (${ALL_SCOPE}, ${GRAIN.triple}::int), ('d:' || to_char(o.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD'), ${GRAIN.model}::int),
                 ('h:' || to_char(o.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'), ${GRAIN.model}::int),
                 ('w:' || to_char(date_trunc('week', o.ts AT TIME ZONE 'UTC'), 'YYYY-MM-DD'), ${GRAIN.overall}::int)) s(scope, finest)
            CROSS JOIN LATERAL (VALUES (${GRAIN.overall}::int, '', '', ''), (${GRAIN.project}::int, o.project, '', ''), (${GRAIN.scanner}::int, '', o.scanner, ''),
                 (${GRAIN.model}::int, '', '', o.model), (${GRAIN.triple}::int, o.project, o.scanner, o.model)) g(grain, project, scanner, model)
            WHERE g.grain <= s.finest
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
            ON CONFLICT (agent_id, scope, grain, project, scanner, model, kind, bucket) DO UPDATE SET n = t.n + excluded.n, p_sum = t.p_sum + excluded.p_sum
          ), sized AS (
            INSERT INTO ${metricSliceSizes} AS z (agent_id, grain, name, n)
            SELECT o.agent_id, g.grain::smallint, g.name, count(*)
            FROM taken o CROSS JOIN LATERAL (VALUES (${GRAIN.project}::int, o.project), (${GRAIN.scanner}::int, o.scanner), (${GRAIN.model}::int, o.model)) g(grain, name)
            GROUP BY 1, 2, 3
            ON CONFLICT (agent_id, grain, name) DO UPDATE SET n = z.n + excluded.n
          ) SELECT DISTINCT o.finding_key FROM ${outcomesTable} o WHERE ${where}`,
    );
    await yieldToEventLoop();
    await this.refreshFindings(
      tx,
      keys.map((k) => k.finding_key),
      throughSeq,
    );
  }

  /**
   * Recomputes these findings' states from their outcomes with seq ≤ `throughSeq` (and first
   * sighting), and moves their tallies from the old states to the new. Idempotent; keys without
   * such outcomes change nothing.
   */
  private async refreshFindings(tx: Db, keys: readonly string[], throughSeq: number): Promise<void> {
    for (const batch of chunks([...new Set(keys)], KEY_BATCH)) {
      const outcomes = await metricOutcomesOfKeys(tx, this.agentId, batch, throughSeq);
      await yieldToEventLoop();
      const seen = await queryRows<{ finding_key: string; ts_ms: number }>(
        tx,
        sql`SELECT x.* FROM ${eachKey(batch, (key) => sql`SELECT finding_key, ${epochMs('first_seen')} AS ts_ms FROM ${findingsTable} WHERE agent_id = ${this.agentId}::uuid AND finding_key = ${key}`)}`,
      );
      const firstSeen = new Map(seen.map((r) => [r.finding_key, Number(r.ts_ms)]));
      await yieldToEventLoop();
      const old = await this.oldStates(tx, batch);
      const byKey = new Map<string, MetricOutcome[]>();
      for (const o of outcomes) byKey.set(o.findingKey, [...(byKey.get(o.findingKey) ?? []), o]);
      const tallies: Tally[] = [];
      const findings: [string, FindingMetricState][] = [];
      const weeks: [string, WeekFindingState][] = [];
      for (const [key, own] of byKey) {
        const next = statesOfFinding(own, firstSeen.get(key));
        if (!next) continue;
        const before = old.findings.get(key);
        if (!sameState(before, next.finding)) {
          if (before) tallies.push(...findingTallies(before, -1));
          tallies.push(...findingTallies(next.finding, 1));
          findings.push([key, next.finding]);
        }
        for (const week of next.weeks) {
          const was = old.weeks.get(`${week.week}\u0000${key}`);
          if (sameState(was, week)) continue;
          if (was) tallies.push(...weekFindingTallies(was, -1));
          tallies.push(...weekFindingTallies(week, 1));
          weeks.push([key, week]);
        }
      }
      await yieldToEventLoop();
      await this.writeFindings(tx, findings, weeks);
      await yieldToEventLoop();
      await this.writeTallies(tx, tallies);
      await yieldToEventLoop();
    }
  }

  private async oldStates(tx: Db, keys: readonly string[]): Promise<{ findings: Map<string, FindingMetricState>; weeks: Map<string, WeekFindingState> }> {
    const rows = await queryRows<{ finding_key: string; project: string; scanner: string; model: string; final_rank: number; confirmed: boolean; flags: number; neg_confidence: number | null; hours_to_fix: number | null }>(
      tx,
      sql`SELECT x.* FROM ${eachKey(keys, (key) => sql`SELECT finding_key, project, scanner, model, final_rank, confirmed, flags, neg_confidence, hours_to_fix FROM ${findingMetrics} WHERE agent_id = ${this.agentId}::uuid AND finding_key = ${key}`)}`,
    );
    await yieldToEventLoop();
    const weekRows = await queryRows<{ week: string; finding_key: string; final_rank: number; confirmed: boolean; neg_confidence: number | null }>(
      tx,
      sql`SELECT x.* FROM ${eachKey(keys, (key) => sql`SELECT week, finding_key, final_rank, confirmed, neg_confidence FROM ${weekFindingMetrics} WHERE agent_id = ${this.agentId}::uuid AND finding_key = ${key}`)}`,
    );
    const confidenceOf = (neg: number | null) => (neg === null ? null : -Number(neg));
    return {
      findings: new Map(
        rows.map((r) => [
          r.finding_key,
          { project: r.project, scanner: r.scanner, model: r.model, finalRank: Number(r.final_rank), confirmed: r.confirmed, flags: Number(r.flags), confidence: confidenceOf(r.neg_confidence), hoursToFix: r.hours_to_fix === null ? null : Number(r.hours_to_fix) },
        ]),
      ),
      weeks: new Map(weekRows.map((r) => [`${r.week}\u0000${r.finding_key}`, { week: r.week, finalRank: Number(r.final_rank), confirmed: r.confirmed, confidence: confidenceOf(r.neg_confidence) }])),
    };
  }

  private async writeFindings(tx: Db, findings: readonly [string, FindingMetricState][], weeks: readonly [string, WeekFindingState][]): Promise<void> {
    const neg = (c: number | null) => (c === null ? null : -c);
    if (findings.length > 0) {
      const rows = findings.map(([key, s]) => ({
        finding_key: key,
        project: s.project,
        scanner: s.scanner,
        model: s.model,
        final_rank: s.finalRank,
        confirmed: s.confirmed,
        flags: s.flags,
        neg_confidence: neg(s.confidence),
        key_order: keyOrderHex(key),
        hours_to_fix: s.hoursToFix,
        fix_bucket: s.hoursToFix === null ? null : fixBucket(s.hoursToFix),
      }));
      await tx.execute(
        sql`INSERT INTO ${findingMetrics} (agent_id, finding_key, project, scanner, model, final_rank, confirmed, flags, neg_confidence, key_order, hours_to_fix, fix_bucket)
            SELECT ${this.agentId}::uuid, v.finding_key, v.project, v.scanner, v.model, v.final_rank, v.confirmed, v.flags, v.neg_confidence, decode(v.key_order, 'hex'), v.hours_to_fix, v.fix_bucket
            FROM ${jsonRows(rows, FINDING_COLUMNS)}
            ON CONFLICT (agent_id, finding_key) DO UPDATE SET project = excluded.project, scanner = excluded.scanner, model = excluded.model,
            final_rank = excluded.final_rank, confirmed = excluded.confirmed, flags = excluded.flags, neg_confidence = excluded.neg_confidence,
            hours_to_fix = excluded.hours_to_fix, fix_bucket = excluded.fix_bucket`,
      );
    }
    for (const batch of chunks(weeks, KEY_BATCH)) {
      await yieldToEventLoop();
      const rows = batch.map(([key, s]) => ({ week: s.week, finding_key: key, final_rank: s.finalRank, confirmed: s.confirmed, neg_confidence: neg(s.confidence), key_order: keyOrderHex(key) }));
      await tx.execute(
        sql`INSERT INTO ${weekFindingMetrics} (agent_id, week, finding_key, final_rank, confirmed, neg_confidence, key_order)
            SELECT ${this.agentId}::uuid, v.week, v.finding_key, v.final_rank, v.confirmed, v.neg_confidence, decode(v.key_order, 'hex') FROM ${jsonRows(rows, WEEK_COLUMNS)}
            ON CONFLICT (agent_id, finding_key, week) DO UPDATE SET final_rank = excluded.final_rank, confirmed = excluded.confirmed, neg_confidence = excluded.neg_confidence`,
      );
    }
  }

  /** Adds tally contributions at each of their grains (`grainsOf`), summing `p` exactly (numeric). */
  private async writeTallies(tx: Db, tallies: readonly Tally[]): Promise<void> {
    for (const batch of chunks(mergeCounts(tallies.flatMap(grainsOf)), TALLY_BATCH)) {
      await tx.execute(
        sql`INSERT INTO ${metricTallies} AS t (agent_id, scope, grain, project, scanner, model, kind, bucket, n, p_sum, y_sum)
            SELECT ${this.agentId}::uuid, v.scope, v.grain, v.project, v.scanner, v.model, v.kind, v.bucket, sum(v.n), sum(v.p), sum(v.y)
            FROM ${jsonRows(batch, TALLY_COLUMNS)} GROUP BY v.scope, v.grain, v.project, v.scanner, v.model, v.kind, v.bucket
            ON CONFLICT (agent_id, scope, grain, project, scanner, model, kind, bucket) DO UPDATE SET n = t.n + excluded.n, p_sum = t.p_sum + excluded.p_sum, y_sum = t.y_sum + excluded.y_sum`,
      );
      await yieldToEventLoop();
    }
  }

  /** The seq through which the agent's outcomes are rolled up (0 before any step). */
  async doneSeq(db: Db = this.db): Promise<number> {
    const [row] = await queryRows<{ done_seq: number | string }>(db, sql`SELECT done_seq FROM ${metricRollupState} WHERE agent_id = ${this.agentId}::uuid`);
    return Number(row?.done_seq ?? 0);
  }

  /** The rollup's `version` (0 before anything is rolled up): it changes with every transaction that changes the rollup. */
  async version(): Promise<number> {
    const [row] = await queryRows<{ version: number | string }>(this.db, sql`SELECT version FROM ${metricRollupState} WHERE agent_id = ${this.agentId}::uuid`);
    return Number(row?.version ?? 0);
  }

  /**
   * How many of the agent's outcomes are not rolled up yet, the seq the rollup holds, and its
   * `version`. One statement when the waiting outcomes' seqs span at most `lagCountRange`; a
   * longer backlog is counted a range of `lagCountRange` seqs a statement, the event loop free
   * between them (one count of 900,000 waiting outcomes held it 316 ms at 1M).
   */
  async lag(): Promise<RollupPosition> {
    // The first range is counted with the state (a count capped by LIMIT instead was planned as a
    // bitmap of every waiting row: 102 ms for 20,000 of 999,900).
    const [row] = await queryRows<{ done_seq: number | string | null; version: number | string | null; top: number | string | null; pending: number | string }>(
      this.db,
      sql`SELECT s.done_seq, s.version, s.top,
                 (SELECT count(*) FROM ${outcomesTable} o WHERE o.agent_id = ${this.agentId}::uuid AND o.seq > coalesce(s.done_seq, 0) AND o.seq <= coalesce(s.done_seq, 0) + ${this.lagCountRange}) AS pending
          FROM (SELECT max(done_seq) AS done_seq, max(version) AS version, (SELECT max(seq) FROM ${outcomesTable} WHERE agent_id = ${this.agentId}::uuid) AS top
                FROM ${metricRollupState} WHERE agent_id = ${this.agentId}::uuid) s`,
    );
    const position = { doneSeq: Number(row?.done_seq ?? 0), pending: Number(row?.pending ?? 0), version: Number(row?.version ?? 0) };
    const counted = position.doneSeq + this.lagCountRange;
    const top = Number(row?.top ?? 0);
    if (top <= counted) return position;
    return { ...position, pending: position.pending + (await this.countAfter(counted, top)) };
  }

  /** The agent's outcomes with seq in (`after`, `top`], a range of `lagCountRange` seqs a statement (empty stretches stepped over). */
  private async countAfter(after: number, top: number): Promise<number> {
    let pending = 0;
    let range = await nextOutcomeSeqRange(this.db, this.agentId, after, this.lagCountRange, top);
    while (range) {
      await yieldToEventLoop();
      pending += await countOutcomesInSeqRange(this.db, this.agentId, range.after, range.through);
      range = await nextOutcomeSeqRange(this.db, this.agentId, range.through, this.lagCountRange, top);
    }
    return pending;
  }

  /**
   * Rolls up the outcomes of the next range of `chunk` seqs after `done_seq` (`nextOutcomeSeqRange`)
   * in one transaction under the lock, and moves `done_seq` to its end. Returns how many outcomes
   * were rolled up (0 when none were waiting). Its longer statements (the tally statement, each
   * read and write of a batch of findings) run in turns of the event loop of their own: in the 35th
   * run of bench/scale.ts a 1M database's rollup held the loop over 100 ms seven times, most of
   * them in turns of two to seven statements. On that database (100,000 outcomes rolled up again
   * in a fresh process) the loop's 99th percentile gap went from 12.7 to 9.6 ms, the 99.9th from
   * 18.9 to 14.3 ms.
   */
  async step(chunk = ROLLUP_CHUNK): Promise<number> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx);
      const done = await this.doneSeq(tx);
      const range = await nextOutcomeSeqRange(tx, this.agentId, done, chunk, await newestOutcomeSeq(tx, this.agentId));
      if (!range) return 0;
      const inRange = sql`o.agent_id = ${this.agentId}::uuid AND o.seq > ${range.after} AND o.seq <= ${range.through}`;
      const counted = await countOutcomesInSeqRange(tx, this.agentId, range.after, range.through);
      const through = range.through;
      await yieldToEventLoop();
      await this.rollUpOutcomes(tx, inRange, through);
      await tx.execute(
        sql`INSERT INTO ${metricRollupState} AS s (agent_id, done_seq, format, version) VALUES (${this.agentId}::uuid, ${through}, ${ROLLUP_FORMAT}::smallint, ${CLOCK_VERSION})
            ON CONFLICT (agent_id) DO UPDATE SET done_seq = excluded.done_seq, version = ${nextVersion}`,
      );
      return counted;
    });
  }

  /**
   * Brings a rollup written in an older format (`ROLLUP_FORMAT`) up to date, once, in one
   * transaction: the slice sizes, tally rows of kind `size` (in ALL_SCOPE in format 1, SIZE_SCOPE
   * in format 2), move to `metric_slice_sizes`, SIZE_MOVE_BATCH a statement with the event loop
   * free between them. A rollup in the current format (or none yet) costs one read.
   */
  async upgrade(): Promise<void> {
    const [state] = await queryRows<{ format: number }>(this.db, sql`SELECT format FROM ${metricRollupState} WHERE agent_id = ${this.agentId}::uuid`);
    if (!state || Number(state.format) >= ROLLUP_FORMAT) return;
    const scope = Number(state.format) === 1 ? ALL_SCOPE : SIZE_SCOPE;
    await this.db.transaction(async (tx) => {
      await this.lock(tx);
      for (const { dim, grain } of SIZED_GRAINS) {
        // The tally column that names the slice has the dimension's name (fixed names, never outside text).
        const column = sql.raw(dim);
        for (let moved = SIZE_MOVE_BATCH; moved === SIZE_MOVE_BATCH; ) {
          const rows = await queryRows<{ one: number }>(
            tx,
            sql`WITH moved AS (
                  DELETE FROM ${metricTallies} t WHERE t.ctid = ANY(ARRAY(
                    SELECT ctid FROM ${metricTallies} WHERE agent_id = ${this.agentId}::uuid AND scope = ${scope} AND grain = ${grain}::smallint AND kind = ${TALLY_KIND.size}::smallint
                    LIMIT ${SIZE_MOVE_BATCH}))
                  RETURNING t.agent_id, t.grain, t.${column} AS name, t.n
                ) INSERT INTO ${metricSliceSizes} AS z (agent_id, grain, name, n) SELECT agent_id, grain, name, n FROM moved
                  ON CONFLICT (agent_id, grain, name) DO UPDATE SET n = z.n + excluded.n RETURNING 1 AS one`,
          );
          moved = rows.length;
          await yieldToEventLoop();
        }
      }
      await tx.execute(sql`UPDATE ${metricRollupState} SET format = ${ROLLUP_FORMAT}::smallint WHERE agent_id = ${this.agentId}::uuid`);
      await this.newVersion(tx);
    });
  }

  /** Refreshes newly recorded findings (a first sighting moves a labelled finding's time to fix); call inside the recording transaction, after `lock`. */
  async refreshRecorded(tx: Db, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.refreshFindings(tx, keys, await this.doneSeq(tx));
    await this.newVersion(tx);
  }

  /** Gives the rollup a new version in `tx` (a transaction that changed it without moving `done_seq`); the state row is made when there is none yet. */
  private async newVersion(tx: Db): Promise<void> {
    await tx.execute(
      sql`INSERT INTO ${metricRollupState} AS s (agent_id, done_seq, format, version) VALUES (${this.agentId}::uuid, 0, ${ROLLUP_FORMAT}::smallint, ${CLOCK_VERSION})
          ON CONFLICT (agent_id) DO UPDATE SET version = ${nextVersion}`,
    );
  }
}

/**
 * Merges the contributions that carry no sum to add exactly (p = 0: labels, flags, fix buckets)
 * by tally row, dropping those that cancel out (a finding leaving and re-entering a row); the
 * others are left for the database to sum exactly.
 */
function mergeCounts(tallies: readonly GrainTally[]): GrainTally[] {
  const merged = new Map<string, GrainTally>();
  const kept: GrainTally[] = [];
  for (const t of tallies) {
    if (t.p !== 0) {
      kept.push(t);
      continue;
    }
    const key = JSON.stringify([t.scope, t.grain, t.project, t.scanner, t.model, t.kind, t.bucket]);
    const m = merged.get(key);
    if (m) {
      m.n += t.n;
      m.y += t.y;
    } else merged.set(key, { ...t });
  }
  for (const m of merged.values()) if (m.n !== 0 || m.y !== 0) kept.push(m);
  return kept;
}
