import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { groupId, groupKeyOf } from '../domain/grouping';
import { stableId } from '../domain/ids';
import type { OutcomeRow } from '../domain/outcome';
import { weightedReward } from '../domain/reward';
import { chunks, type Db, ensureSchema, queryRows } from './sql';

export const OUTCOMES_TABLE = 'self_improve_outcomes';
export const EVIDENCE_TABLE = 'self_improve_lesson_evidence';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${OUTCOMES_TABLE} (
    id uuid PRIMARY KEY,
    agent_id uuid NOT NULL,
    finding_key text NOT NULL,
    label text NOT NULL,
    ts timestamptz NOT NULL,
    group_id text NOT NULL,
    reward double precision NOT NULL,
    row_json jsonb NOT NULL,
    ingested_at timestamptz NOT NULL DEFAULT now(),
    learned_at timestamptz,
    UNIQUE (agent_id, finding_key, label)
  )`,
  `CREATE INDEX IF NOT EXISTS ${OUTCOMES_TABLE}_pending_idx ON ${OUTCOMES_TABLE} (agent_id, ts) WHERE learned_at IS NULL`,
  `CREATE INDEX IF NOT EXISTS ${OUTCOMES_TABLE}_group_idx ON ${OUTCOMES_TABLE} (agent_id, group_id, ts)`,
  `CREATE TABLE IF NOT EXISTS ${EVIDENCE_TABLE} (
    lesson_id uuid NOT NULL,
    outcome_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    PRIMARY KEY (lesson_id, outcome_id)
  )`,
];

/** Rows per INSERT statement (15 parameters each stays far below PostgreSQL's 65,535). */
const INSERT_BATCH = 1_000;

/** An outcome as stored: the validated row plus what the plugin derived from it. */
export interface StoredOutcome {
  id: UUID;
  row: OutcomeRow;
  groupId: string;
  reward: number;
  tsMs: number;
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

interface OutcomeDbRow {
  id: UUID;
  group_id: string;
  reward: number;
  ts_ms: number;
  row_json: OutcomeRow | string;
}

function fromDbRow(r: OutcomeDbRow): StoredOutcome {
  const row = typeof r.row_json === 'string' ? (JSON.parse(r.row_json) as OutcomeRow) : r.row_json;
  return { id: r.id, groupId: r.group_id, reward: Number(r.reward), tsMs: Number(r.ts_ms), row };
}

const SELECT_OUTCOME = sql.raw(`id, group_id, reward, (extract(epoch from ts) * 1000)::float8 AS ts_ms, row_json`);

/** Durable outcomes of one agent, in the runtime's database. */
export class OutcomeStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
  ) {}

  async ensureSchema(): Promise<void> {
    await ensureSchema(this.db, SCHEMA);
  }

  /**
   * Inserts outcomes in one transaction: all of them or none. Rows whose (finding_key, label) is
   * already stored are skipped. Returns the ids that were new.
   */
  async insert(outcomes: readonly StoredOutcome[]): Promise<Set<UUID>> {
    const inserted = new Set<UUID>();
    if (outcomes.length === 0) return inserted;
    await this.db.transaction(async (tx) => {
      for (const batch of chunks(outcomes, INSERT_BATCH)) {
        const values = sql.join(
          batch.map(
            (o) =>
              sql`(${o.id}::uuid, ${this.agentId}::uuid, ${o.row.finding_key}, ${o.row.label}, ${o.row.ts}::timestamptz, ${o.groupId}, ${o.reward}, ${JSON.stringify(o.row)}::jsonb)`,
          ),
          sql`, `,
        );
        const rows = await queryRows<{ id: UUID }>(
          tx,
          sql`INSERT INTO ${sql.raw(OUTCOMES_TABLE)} (id, agent_id, finding_key, label, ts, group_id, reward, row_json)
              VALUES ${values} ON CONFLICT DO NOTHING RETURNING id`,
        );
        for (const r of rows) inserted.add(r.id);
      }
    });
    return inserted;
  }

  async countPending(): Promise<number> {
    const [row] = await queryRows<{ n: number | string }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM ${sql.raw(OUTCOMES_TABLE)} WHERE agent_id = ${this.agentId}::uuid AND learned_at IS NULL`,
    );
    return Number(row?.n ?? 0);
  }

  async count(): Promise<number> {
    const [row] = await queryRows<{ n: number | string }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM ${sql.raw(OUTCOMES_TABLE)} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return Number(row?.n ?? 0);
  }

  /** Outcomes not yet learned from whose time is at or before `asOfMs`: ids, groups and times only. */
  async pending(asOfMs: number): Promise<{ id: UUID; groupId: string; tsMs: number }[]> {
    const rows = await queryRows<{ id: UUID; group_id: string; ts_ms: number }>(
      this.db,
      sql`SELECT id, group_id, (extract(epoch from ts) * 1000)::float8 AS ts_ms FROM ${sql.raw(OUTCOMES_TABLE)}
          WHERE agent_id = ${this.agentId}::uuid AND learned_at IS NULL AND ts <= ${new Date(asOfMs).toISOString()}::timestamptz
          ORDER BY group_id, ts DESC, id`,
    );
    return rows.map((r) => ({ id: r.id, groupId: r.group_id, tsMs: Number(r.ts_ms) }));
  }

  /** Every outcome of a group with `startMs < ts <= endMs`, oldest first. */
  async inGroup(group: string, startMs: number, endMs: number): Promise<StoredOutcome[]> {
    const rows = await queryRows<OutcomeDbRow>(
      this.db,
      sql`SELECT ${SELECT_OUTCOME} FROM ${sql.raw(OUTCOMES_TABLE)}
          WHERE agent_id = ${this.agentId}::uuid AND group_id = ${group}
            AND ts > ${new Date(startMs).toISOString()}::timestamptz AND ts <= ${new Date(endMs).toISOString()}::timestamptz
          ORDER BY ts, id`,
    );
    return rows.map(fromDbRow);
  }

  async byIds(ids: readonly UUID[]): Promise<StoredOutcome[]> {
    if (ids.length === 0) return [];
    const out: StoredOutcome[] = [];
    for (const batch of chunks(ids, INSERT_BATCH)) {
      const list = sql.join(batch.map((id) => sql`${id}::uuid`), sql`, `);
      const rows = await queryRows<OutcomeDbRow>(
        this.db,
        sql`SELECT ${SELECT_OUTCOME} FROM ${sql.raw(OUTCOMES_TABLE)} WHERE agent_id = ${this.agentId}::uuid AND id IN (${list}) ORDER BY ts, id`,
      );
      out.push(...rows.map(fromDbRow));
    }
    return out;
  }

  async markLearned(ids: readonly UUID[], learnedAtMs: number): Promise<void> {
    for (const batch of chunks(ids, INSERT_BATCH)) {
      const list = sql.join(batch.map((id) => sql`${id}::uuid`), sql`, `);
      await this.db.execute(
        sql`UPDATE ${sql.raw(OUTCOMES_TABLE)} SET learned_at = ${new Date(learnedAtMs).toISOString()}::timestamptz
            WHERE agent_id = ${this.agentId}::uuid AND id IN (${list}) AND learned_at IS NULL`,
      );
    }
  }

  /** Links outcomes to a lesson (idempotent) and returns the lesson's whole evidence, oldest first. */
  async addEvidence(lessonId: UUID, outcomeIds: readonly UUID[]): Promise<StoredOutcome[]> {
    for (const batch of chunks(outcomeIds, INSERT_BATCH)) {
      const values = sql.join(batch.map((id) => sql`(${lessonId}::uuid, ${id}::uuid, ${this.agentId}::uuid)`), sql`, `);
      await this.db.execute(
        sql`INSERT INTO ${sql.raw(EVIDENCE_TABLE)} (lesson_id, outcome_id, agent_id) VALUES ${values} ON CONFLICT DO NOTHING`,
      );
    }
    return this.evidence(lessonId);
  }

  async evidence(lessonId: UUID): Promise<StoredOutcome[]> {
    const rows = await queryRows<OutcomeDbRow>(
      this.db,
      sql`SELECT o.id, o.group_id, o.reward, (extract(epoch from o.ts) * 1000)::float8 AS ts_ms, o.row_json
          FROM ${sql.raw(EVIDENCE_TABLE)} e JOIN ${sql.raw(OUTCOMES_TABLE)} o ON o.id = e.outcome_id
          WHERE e.lesson_id = ${lessonId}::uuid AND e.agent_id = ${this.agentId}::uuid ORDER BY o.ts, o.id`,
    );
    return rows.map(fromDbRow);
  }
}

