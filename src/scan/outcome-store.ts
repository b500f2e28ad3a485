import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { type GroupKey, groupId, groupKeyOf } from './model/grouping';
import { stableId } from '../shared/ids';
import type { OutcomeRow } from './model/outcome';
import { weightedReward } from './model/reward';
import type { MetricOutcome } from './model/metrics';
import type { OutcomeFollower } from './metric-rollup-store';
import { chunks, type Db, eachKey, epochMs, jsonRows, queryJsonRows, queryRows, queryJsonRowsInIndexOrder, writeIsolatingRefusals } from '../shared/sql';
import { addGroupLabelCounts, ensureGroupLabelCounts, globalTriageCountsOf, triageCountsOf } from './group-label-counts';
import type { LevelCounts } from './model/triage-prior';
import { learningProgress, outcomeLearned, outcomesTable, scanLessonEvidence } from './tables';
import { yieldToEventLoop } from '../shared/event-loop';

/** Rows per INSERT statement. */
const INSERT_BATCH = 100;
/** An outcome as its INSERT reads it (`jsonRows`): the finding's key, label and time come from the row itself. */
const OUTCOME_COLUMNS = { id: 'uuid', group_id: 'text', reward: 'float8', row_json: 'jsonb' };

/** An outcome as stored: the validated row plus what the plugin derived from it. */
export interface StoredOutcome {
  id: UUID;
  row: OutcomeRow;
  groupId: string;
  reward: number;
  tsMs: number;
}

/** What `insert` did: the ids that were new, and the outcomes the database refused (position in the input, its reason). */
export interface OutcomeInsert {
  inserted: Set<UUID>;
  refused: { position: number; reason: string }[];
}

/** The id of an outcome: one per (agent, finding, label), so re-ingesting finds the same row. */
export function outcomeId(agentId: UUID, row: Pick<OutcomeRow, 'finding_key' | 'label'>): UUID {
  return stableId('outcome', agentId, row.finding_key, row.label);
}

export function toStoredOutcome(agentId: UUID, row: OutcomeRow): StoredOutcome {
  return {
    id: outcomeId(agentId, row),
    row,
    groupId: groupId(groupKeyOf(row)),
    reward: weightedReward(row.label, row.confidence),
    tsMs: Date.parse(row.ts),
  };
}

/**
 * Outcome seqs `pendingGroups` looks at per statement. At 1M outcomes (150,000 groups) 5,000 made
 * statements of 56-94 ms and as long again in JavaScript for their rows: stalls over 100 ms.
 */
export const PENDING_SCAN_PAGE = 2_000;

/** Durable outcomes of one agent, in the runtime's database. */
export class OutcomeStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
    /** Told of every insert: its lock is taken first in the inserting transaction, and it is woken after the commit (`ScanMetrics`). */
    private readonly follower?: OutcomeFollower,
  ) {}

  /**
   * Inserts outcomes in one transaction. Rows whose (finding_key, label) is already stored are
   * skipped. A row the database refuses (its content) is left out alone, with the database's
   * reason, by its position in `outcomes` (`writeIsolatingRefusals`); the others are stored.
   * Returns the ids that were new and the refusals. Throws (`DatabaseFailure`, nothing written)
   * when the database refuses every row of a statement, alone as well as together. `within` runs
   * last inside the same transaction with the new ids (e.g. to append their ledger entries), so
   * what it writes commits together with the outcomes. The follower is told when the write
   * begins and ends, and its lock is held from the transaction's start (so it never sees a seq
   * half-written).
   */
  async insert(outcomes: readonly StoredOutcome[], within?: (tx: Db, inserted: ReadonlySet<UUID>) => Promise<void>): Promise<OutcomeInsert> {
    const result: OutcomeInsert = { inserted: new Set<UUID>(), refused: [] };
    if (outcomes.length === 0) return result;
    this.follower?.writing();
    try {
      await this.db.transaction(async (tx) => {
        await this.follower?.lock(tx);
        for (const [n, batch] of chunks(outcomes, INSERT_BATCH).entries()) {
          const { written, refused } = await writeIsolatingRefusals(tx, batch, (db, part) => this.insertRows(db, part));
          for (const id of written) result.inserted.add(id);
          for (const r of refused) result.refused.push({ position: n * INSERT_BATCH + r.position, reason: r.reason });
          await yieldToEventLoop();
        }
        await addGroupLabelCounts(tx, this.agentId, outcomes.filter((o) => result.inserted.has(o.id)));
        if (within && result.inserted.size > 0) await within(tx, result.inserted);
      });
    } finally {
      this.follower?.written(result.inserted.size > 0);
    }
    return result;
  }

  /** One INSERT of `part`; returns the ids that were new. */
  private async insertRows(db: Db, part: readonly StoredOutcome[]): Promise<UUID[]> {
    const rows = await queryRows<{ id: UUID }>(
      db,
      sql`INSERT INTO ${outcomesTable} (id, agent_id, finding_key, label, ts, group_id, reward, row_json)
          SELECT v.id, ${this.agentId}::uuid, v.row_json->>'finding_key', v.row_json->>'label', (v.row_json->>'ts')::timestamptz, v.group_id, v.reward, v.row_json
          FROM ${jsonRows(
            part.map((o) => ({ id: o.id, group_id: o.groupId, reward: o.reward, row_json: o.row })),
            OUTCOME_COLUMNS,
          )} ON CONFLICT DO NOTHING RETURNING id`,
    );
    return rows.map((r) => r.id);
  }

  /** Outcomes not yet learned from (only those after `learnedThrough` can be). */
  async countPending(): Promise<number> {
    const { learnedThrough, seenThrough } = await this.progress();
    const [row] = await queryRows<{ n: number | string }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM ${outcomesTable} o WHERE o.agent_id = ${this.agentId}::uuid AND o.seq > ${learnedThrough} AND ${notLearned(seenThrough)}`,
    );
    return Number(row?.n ?? 0);
  }

  /** Whether any outcome is not yet learned from: stops at the first (a count at start-up read every waiting outcome). */
  async anyPending(): Promise<boolean> {
    const { learnedThrough, seenThrough } = await this.progress();
    const rows = await queryRows<{ one: number }>(
      this.db,
      sql`SELECT 1 AS one FROM ${outcomesTable} o WHERE o.agent_id = ${this.agentId}::uuid AND o.seq > ${learnedThrough} AND ${notLearned(seenThrough)} LIMIT 1`,
    );
    return rows.length > 0;
  }

  /** Every outcome with seq at or below this is learned from (`learning_progress`; 0 before any pass). */
  async learnedThrough(): Promise<number> {
    return (await this.progress()).learnedThrough;
  }

  /** `learning_progress`: `learnedThrough` and the highest seq a pass has looked at (`seenThrough`, null when not known). */
  private async progress(): Promise<{ learnedThrough: number; seenThrough: number | null }> {
    const [row] = await queryRows<{ learned: number | string; seen: number | string | null }>(
      this.db,
      sql`SELECT learned_through_seq AS learned, seen_through_seq AS seen FROM ${learningProgress} WHERE agent_id = ${this.agentId}::uuid`,
    );
    // No row (no pass finished, or one from before it was kept): not known either, as a pass that failed may have marked some.
    return { learnedThrough: Number(row?.learned ?? 0), seenThrough: row?.seen === null || row?.seen === undefined ? null : Number(row.seen) };
  }

  /**
   * Records that a learning pass looks at outcomes up to `seq`, before it marks any learned (never
   * moves back). Every earlier pass looked at most up to the newest committed seq of its start, which
   * is no more than this pass's, so from here an outcome above the recorded seq was never learned from.
   */
  async recordSeen(seq: number): Promise<void> {
    await this.db.execute(
      sql`INSERT INTO ${learningProgress} (agent_id, learned_through_seq, seen_through_seq) VALUES (${this.agentId}::uuid, 0, ${seq})
          ON CONFLICT (agent_id) DO UPDATE SET seen_through_seq = GREATEST(coalesce(${learningProgress.seenThroughSeq}, 0), excluded.seen_through_seq)`,
    );
  }

  /** Records that every outcome with seq ≤ `seq` is learned from (never moves back). */
  async setLearnedThrough(seq: number): Promise<void> {
    await this.db.execute(
      sql`INSERT INTO ${learningProgress} (agent_id, learned_through_seq) VALUES (${this.agentId}::uuid, ${seq})
          ON CONFLICT (agent_id) DO UPDATE SET learned_through_seq = GREATEST(${learningProgress.learnedThroughSeq}, excluded.learned_through_seq)`,
    );
  }

  /**
   * The newest seq of the agent's outcomes such that every outcome at or below it is committed:
   * read under the follower's lock, which every outcome write holds for its whole transaction.
   */
  async committedMaxSeq(): Promise<number> {
    return committedOutcomeSeq(this.db, this.agentId, (tx) => this.follower?.lock(tx) ?? Promise.resolve());
  }


  async count(): Promise<number> {
    const [row] = await queryRows<{ n: number | string }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM ${outcomesTable} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return Number(row?.n ?? 0);
  }

  /** Makes the triage prior's kept counts whole, once per database (`ensureGroupLabelCounts`). */
  ensureLabelCounts(): Promise<void> {
    return ensureGroupLabelCounts(this.db, this.agentId, (tx) => this.follower?.lock(tx) ?? Promise.resolve());
  }

  /** The triage prior's counts for the four levels of a finding of group `key` (`triageCountsOf`). */
  triageCounts(key: GroupKey): Promise<LevelCounts> {
    return triageCountsOf(this.db, this.agentId, key);
  }

  /** The triage prior's global counts (`globalTriageCountsOf`). */
  globalTriageCounts(): Promise<ArrayLike<number> | undefined> {
    return globalTriageCountsOf(this.db, this.agentId);
  }


  /** Every outcome with the fields the metrics use, oldest first. */
  forMetrics(): Promise<MetricOutcome[]> {
    return metricOutcomes(this.db, sql`agent_id = ${this.agentId}::uuid`);
  }

  /**
   * The groups with outcomes not yet learned from whose time is at or before `asOfMs`, how many
   * each has and its lowest seq, and the snapshot `maxSeq` (`committedMaxSeq`): later steps of the
   * pass only touch outcomes up to it, so a row ingested while the pass runs is neither counted
   * as evidence nor marked learned by it. `laterSeq`: the lowest seq of a pending outcome dated
   * after `asOfMs` (it stays pending), or null. Only outcomes after `learnedThrough` are looked
   * at, `page` seqs per statement with the event loop free between them; the outcomes
   * themselves are read a few groups at a time (`pendingTimes`).
   */
  async pendingGroups(
    asOfMs: number,
    page = PENDING_SCAN_PAGE,
  ): Promise<{ maxSeq: number; laterSeq: number | null; seenThrough: number | null; groups: { groupId: string; count: number; firstSeq: number }[] }> {
    const maxSeq = await this.committedMaxSeq();
    const { learnedThrough, seenThrough } = await this.progress();
    const asOf = new Date(asOfMs).toISOString();
    const groups = new Map<string, { groupId: string; count: number; firstSeq: number }>();
    let laterSeq: number | null = null;
    for (let range = await nextOutcomeSeqRange(this.db, this.agentId, learnedThrough, page, maxSeq); range; ) {
      const [lo, hi] = [range.after, range.through];
      const rows = await queryRows<{ group_id: string; n: number | string; first_seq: number | string | null; later_seq: number | string | null }>(
        this.db,
        sql`SELECT o.group_id, count(*) FILTER (WHERE o.ts <= ${asOf}::timestamptz) AS n, min(o.seq) FILTER (WHERE o.ts <= ${asOf}::timestamptz) AS first_seq,
              min(o.seq) FILTER (WHERE o.ts > ${asOf}::timestamptz) AS later_seq
            FROM ${outcomesTable} o WHERE o.agent_id = ${this.agentId}::uuid AND o.seq > ${lo} AND o.seq <= ${hi} AND ${notLearned(seenThrough)} GROUP BY o.group_id`,
      );
      for (const r of rows) {
        if (r.later_seq !== null) laterSeq = Math.min(laterSeq ?? Number.POSITIVE_INFINITY, Number(r.later_seq));
        if (Number(r.n) === 0) continue;
        const g = groups.get(r.group_id) ?? { groupId: r.group_id, count: 0, firstSeq: Number(r.first_seq) };
        g.count += Number(r.n);
        g.firstSeq = Math.min(g.firstSeq, Number(r.first_seq));
        groups.set(r.group_id, g);
      }
      await yieldToEventLoop();
      range = await nextOutcomeSeqRange(this.db, this.agentId, hi, page, maxSeq);
    }
    return { maxSeq, laterSeq, seenThrough, groups: [...groups.values()] };
  }

  /**
   * The times of these groups' outcomes not yet learned from, with `ts <= asOfMs` and `seq <= maxSeq`,
   * by group (one query). `seenThrough`: as `pendingGroups` returned it (outcomes above it are not learned from).
   */
  async pendingTimes(groups: readonly string[], asOfMs: number, maxSeq: number, seenThrough: number | null): Promise<Map<string, number[]>> {
    const times = new Map<string, number[]>(groups.map((g) => [g, []]));
    if (groups.length === 0) return times;
    const perGroup = eachKey(
      groups,
      (group) => sql`SELECT o.group_id, ${epochMs('o.ts')} AS ts_ms FROM ${outcomesTable} o
          WHERE o.agent_id = ${this.agentId}::uuid AND o.group_id = ${group} AND o.ts <= ${new Date(asOfMs).toISOString()}::timestamptz
            AND o.seq <= ${maxSeq} AND ${notLearned(seenThrough)}`,
    );
    const rows = await queryRows<{ group_id: string; ts_ms: number }>(this.db, sql`SELECT x.group_id, x.ts_ms FROM ${perGroup}`);
    for (const r of rows) times.get(r.group_id)?.push(Number(r.ts_ms));
    return times;
  }

  /** Every outcome of a group with `startMs < ts <= endMs` and `seq <= maxSeq`, oldest first: the fields learning uses. */
  async inGroup(group: string, startMs: number, endMs: number, maxSeq: number): Promise<WindowOutcome[]> {
    const rows = await queryRows<EvidenceDbRow & { finding_key: string; summary: string | null }>(
      this.db,
      sql`SELECT ${EVIDENCE_COLUMNS}, o.finding_key, o.row_json->>'summary' AS summary FROM ${outcomesTable} o
          WHERE ${inWindow(this.agentId, group, startMs, endMs, maxSeq)} ORDER BY o.ts, o.id`,
    );
    return rows.map((r) => ({ ...fromEvidenceRow(r), findingKey: r.finding_key, summary: r.summary ?? undefined }));
  }

  /** Marks every not-yet-learned outcome of a group with `ts <= asOfMs` and `seq <= maxSeq` as learned (`seenThrough` as in `pendingTimes`). */
  async markGroupLearned(group: string, asOfMs: number, maxSeq: number, seenThrough: number | null): Promise<void> {
    const asOf = new Date(asOfMs).toISOString();
    await this.db.execute(
      sql`INSERT INTO ${outcomeLearned} (outcome_id, agent_id, learned_at)
          SELECT o.id, o.agent_id, ${asOf}::timestamptz FROM ${outcomesTable} o
          WHERE o.agent_id = ${this.agentId}::uuid AND o.group_id = ${group} AND o.ts <= ${asOf}::timestamptz AND o.seq <= ${maxSeq} AND ${notLearned(seenThrough)}
          ON CONFLICT DO NOTHING`,
    );
  }

  /** Links a window's outcomes to a lesson, server-side and idempotently. */
  async linkEvidence(lessonId: UUID, group: string, startMs: number, endMs: number, maxSeq: number): Promise<void> {
    await this.db.execute(
      sql`INSERT INTO ${scanLessonEvidence} (lesson_id, outcome_id, agent_id)
          SELECT ${lessonId}::uuid, o.id, o.agent_id FROM ${outcomesTable} o WHERE ${inWindow(this.agentId, group, startMs, endMs, maxSeq)}
          ON CONFLICT DO NOTHING`,
    );
  }

  /** A lesson's whole evidence, oldest first: only the fields statistics and metadata need. */
  async evidence(lessonId: UUID): Promise<EvidenceOutcome[]> {
    const rows = await queryRows<EvidenceDbRow>(
      this.db,
      sql`SELECT ${EVIDENCE_COLUMNS} FROM ${scanLessonEvidence} e JOIN ${outcomesTable} o ON o.id = e.outcome_id
          WHERE e.lesson_id = ${lessonId}::uuid AND e.agent_id = ${this.agentId}::uuid ORDER BY o.ts, o.id`,
    );
    return rows.map(fromEvidenceRow);
  }
}

/** The evidence view of an outcome. */
export interface EvidenceOutcome {
  id: UUID;
  label: OutcomeRow['label'];
  reward: number;
  tsMs: number;
  promptVersion?: string;
  strategyVersion?: string;
}

/** An outcome as one learning window sees it: evidence fields plus what the prompt shows. */
export interface WindowOutcome extends EvidenceOutcome {
  findingKey: string;
  summary?: string;
}

interface EvidenceDbRow {
  id: UUID;
  label: OutcomeRow['label'];
  reward: number;
  ts_ms: number;
  prompt_version: string | null;
  strategy_version: string | null;
}

const EVIDENCE_COLUMNS = sql`o.id, o.label, o.reward, ${epochMs('o.ts')} AS ts_ms, o.row_json->>'prompt_version' AS prompt_version, o.row_json->>'strategy_version' AS strategy_version`;

function fromEvidenceRow(r: EvidenceDbRow): EvidenceOutcome {
  return {
    id: r.id,
    label: r.label,
    reward: Number(r.reward),
    tsMs: Number(r.ts_ms),
    promptVersion: r.prompt_version ?? undefined,
    strategyVersion: r.strategy_version ?? undefined,
  };
}

/**
 * Outcome `o` not learned from. One above `seenThrough` (the highest seq a learning pass has looked
 * at) is not, without a probe of `outcome_learned`: on a large database that probe reads a random
 * page of its index per outcome (5,000 of them took 300 ms on a cold cache at 1M). Null: unknown,
 * every outcome is looked up.
 */
function notLearned(seenThrough: number | null): SQL {
  const probe = sql`NOT EXISTS (SELECT 1 FROM ${outcomeLearned} l WHERE l.outcome_id = o.id)`;
  return seenThrough === null ? probe : sql`(o.seq > ${seenThrough} OR ${probe})`;
}

function inWindow(agentId: UUID, group: string, startMs: number, endMs: number, maxSeq: number) {
  return sql`o.agent_id = ${agentId}::uuid AND o.group_id = ${group} AND o.seq <= ${maxSeq}
    AND o.ts > ${new Date(startMs).toISOString()}::timestamptz AND o.ts <= ${new Date(endMs).toISOString()}::timestamptz`;
}

/**
 * The newest seq of the agent's outcomes such that every outcome at or below it is committed,
 * read under `lock`: the metrics rollup's lock (`MetricRollup.lock`), which every outcome write
 * takes first and holds for its whole transaction.
 */
export function committedOutcomeSeq(db: Db, agentId: UUID, lock: (tx: Db) => Promise<void>): Promise<number> {
  return db.transaction(async (tx) => {
    await lock(tx);
    return newestOutcomeSeq(tx, agentId);
  });
}

/** How many of the agent's outcomes have a seq in (`after`, `through`]: an index range read. */
export async function countOutcomesInSeqRange(db: Db, agentId: UUID, after: number, through: number): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    db,
    sql`SELECT count(*) AS n FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid AND seq > ${after} AND seq <= ${through}`,
  );
  return Number(row?.n ?? 0);
}

/** The newest seq of the agent's outcomes (0 for none): one index entry. */
export async function newestOutcomeSeq(db: Db, agentId: UUID): Promise<number> {
  const [row] = await queryRows<{ seq: number | string | null }>(db, sql`SELECT max(seq) AS seq FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid`);
  return Number(row?.seq ?? 0);
}

/**
 * The next range (`after`, `through`] of at most `width` seqs after `after` and at or below
 * `top` that starts at an outcome of the agent (an empty stretch is stepped over with one min()
 * lookup), or null when none is left. Work over the agent's outcomes goes by such ranges: PGlite
 * never analyses a table, and without statistics `seq > n ORDER BY seq LIMIT k` is planned as a
 * read and sort of every later row, where a closed range reads only its own.
 */
export async function nextOutcomeSeqRange(db: Db, agentId: UUID, after: number, width: number, top: number): Promise<{ after: number; through: number } | null> {
  if (after >= top) return null;
  const [row] = await queryRows<{ seq: number | string | null }>(db, sql`SELECT min(seq) AS seq FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid AND seq > ${after} AND seq <= ${top}`);
  if (row?.seq === null || row?.seq === undefined) return null;
  const first = Number(row.seq);
  return { after: first - 1, through: Math.min(first - 1 + width, top) };
}

const METRIC_OUTCOME_COLUMNS = sql`finding_key, label, ${epochMs('ts')} AS ts_ms, ts, seq, reward,
  row_json->>'project' AS project, row_json->>'scanner' AS scanner,
  (row_json->>'model_provider') || '/' || (row_json->>'model_name') AS model, row_json->>'confidence' AS confidence`;

/** The outcomes `where` selects, with the fields the metrics use, oldest first. */
export async function metricOutcomes(db: Db, where: SQL): Promise<MetricOutcome[]> {
  return (await queryRows<MetricOutcomeRow>(db, sql`SELECT ${METRIC_OUTCOME_COLUMNS} FROM ${outcomesTable} WHERE ${where} ORDER BY ts, seq`)).map(metricOutcomeOf);
}

/**
 * Outcome rows a paged metrics read (`eachMetricOutcomePage`) reads per statement: rows in time
 * order are scattered over the table's pages: 2,000 of them took up to 137 ms on the 1M bench
 * database's cold pages, 500 of them up to 60 ms on warm ones.
 */
export const METRIC_PAGE_ROWS = 250;

/**
 * The agent's outcomes with seq ≤ `throughSeq` stored at `from` to `to` (ISO times, both
 * included), as `metricOutcomes` gives them, handed to `onPage` METRIC_PAGE_ROWS at a time in
 * (ts, seq) order through the time index, each page starting at its cursor's time (`ts >=`: the
 * index has no seq, so the row comparison alone would scan from the range's start every page),
 * with a turn of the event loop before each page: a busy
 * week's rows in one statement, and held all together, stalled the event loop for seconds at 1M.
 */
export async function eachMetricOutcomePage(
  db: Db,
  agentId: UUID,
  range: { from: string; to: string; throughSeq: number },
  onPage: (outcomes: MetricOutcome[]) => void,
  pageRows = METRIC_PAGE_ROWS,
): Promise<void> {
  for (let after: { ts: string; seq: number } | null = null; ; ) {
    await yieldToEventLoop();
    const page: PagedOutcomeRow[] = await queryJsonRowsInIndexOrder<PagedOutcomeRow>(
      db,
      sql`SELECT ${METRIC_OUTCOME_COLUMNS}, ts::text AS ts_text FROM ${outcomesTable}
          WHERE agent_id = ${agentId}::uuid AND seq <= ${range.throughSeq} AND ts >= ${range.from}::timestamptz AND ts <= ${range.to}::timestamptz
            ${after === null ? sql`` : sql`AND ts >= ${after.ts}::timestamptz AND (ts, seq) > (${after.ts}::timestamptz, ${after.seq})`}
          ORDER BY ts, seq LIMIT ${pageRows}`,
    );
    onPage(page.map(metricOutcomeOf));
    const last = page.at(-1);
    if (!last || page.length < pageRows) return;
    after = { ts: last.ts_text, seq: Number(last.seq) };
  }
}

/** The agent's outcomes of these findings with seq ≤ `throughSeq`, with the fields the metrics use, oldest first: an index probe per key (`eachKey`). */
export async function metricOutcomesOfKeys(db: Db, agentId: UUID, keys: readonly string[], throughSeq: number): Promise<MetricOutcome[]> {
  const perKey = eachKey(keys, (key) => sql`SELECT ${METRIC_OUTCOME_COLUMNS} FROM ${outcomesTable} WHERE agent_id = ${agentId}::uuid AND finding_key = ${key} AND seq <= ${throughSeq}`);
  // A few findings' outcomes: one JSON document, as a week's pages are (`eachMetricOutcomePage`).
  return (await queryJsonRows<MetricOutcomeRow>(db, sql`SELECT x.* FROM ${perKey} ORDER BY x.ts, x.seq`)).map(metricOutcomeOf);
}

type MetricOutcomeRow = { finding_key: string; label: OutcomeRow['label']; ts_ms: number; reward: number; project: string; scanner: string; model: string; confidence: string | null };
/** A row of `eachMetricOutcomePage`: with the cursor of the next page (its time as text, exact, and seq). */
type PagedOutcomeRow = MetricOutcomeRow & { ts_text: string; seq: number };

function metricOutcomeOf(r: MetricOutcomeRow): MetricOutcome {
  return {
    findingKey: r.finding_key,
    label: r.label,
    tsMs: Number(r.ts_ms),
    reward: Number(r.reward),
    project: r.project,
    scanner: r.scanner,
    model: r.model,
    ...(r.confidence === null ? {} : { scannerConfidence: Number(r.confidence) }),
  };
}
