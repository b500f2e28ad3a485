import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { groupId, groupKeyOf } from './model/grouping';
import type { FindingRow, OutcomeLabel } from './model/outcome';
import { isStorableText } from '../shared/wire-text';
import type { OutcomeFollower } from './metric-rollup-store';
import { chunks, type Db, eachKey, epochMs, jsonRows, queryRows, writeIsolatingRefusals } from '../shared/sql';
import { findingsTable, outcomesTable } from './tables';

const INSERT_BATCH = 1_000;
/** A finding as its INSERT reads it (`jsonRows`): its key and first sighting come from the row itself. */
const FINDING_COLUMNS = { group_id: 'text', row_json: 'jsonb' };
/** Keys per lookup query. */
const LOOKUP_BATCH = 1_000;

/** What the plugin knows of a finding: its fields (as last seen) and the labels it has been given. */
export interface KnownFinding {
  row: FindingRow;
  /** Labels given so far, oldest first. */
  labels: OutcomeLabel[];
  /** Time of the latest label (ISO), or null for a finding awaiting its first. */
  lastLabelTs: string | null;
}

/** Strips what belongs to one outcome, not to the finding, from a stored row. */
function findingOf(row: Record<string, unknown>): FindingRow {
  const { label: _label, source: _source, notes: _notes, ...finding } = row;
  return finding as FindingRow;
}

/** Findings of one agent awaiting labels, and lookups across them and the agent's outcomes. */
export class FindingStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
    /** A first sighting can change a labelled finding's time to fix: refreshed in the same transaction, under the follower's lock. */
    private readonly follower?: OutcomeFollower,
  ) {}

  /**
   * Records findings in one transaction; a finding already recorded keeps its first sighting. A
   * finding the database refuses (its content) is left out alone (`writeIsolatingRefusals`),
   * reported by position in `findings` with the database's reason. Returns how many were new.
   * Throws (`DatabaseFailure`, nothing written) when the database refuses every row of a statement.
   */
  async record(findings: readonly FindingRow[]): Promise<{ inserted: number; refused: { position: number; reason: string }[] }> {
    const result = { inserted: 0, refused: [] as { position: number; reason: string }[] };
    if (findings.length === 0) return result;
    await this.db.transaction(async (tx) => {
      await this.follower?.lock(tx);
      const fresh: string[] = [];
      for (const [n, batch] of chunks(findings, INSERT_BATCH).entries()) {
        const { written, refused } = await writeIsolatingRefusals(tx, batch, (db, part) => this.insertRows(db, part));
        result.inserted += written.length;
        fresh.push(...written);
        for (const r of refused) result.refused.push({ position: n * INSERT_BATCH + r.position, reason: r.reason });
      }
      await this.follower?.recorded(tx, fresh);
    });
    return result;
  }

  /** One INSERT of `part`; returns the keys that were new. */
  private async insertRows(db: Db, part: readonly FindingRow[]): Promise<string[]> {
    const rows = await queryRows<{ finding_key: string }>(
      db,
      sql`INSERT INTO ${findingsTable} (agent_id, finding_key, group_id, first_seen, row_json)
          SELECT ${this.agentId}::uuid, v.row_json->>'finding_key', v.group_id, (v.row_json->>'ts')::timestamptz, v.row_json
          FROM ${jsonRows(
            part.map((f) => ({ group_id: groupId(groupKeyOf(f)), row_json: f })),
            FINDING_COLUMNS,
          )} ON CONFLICT DO NOTHING RETURNING finding_key`,
    );
    return rows.map((r) => r.finding_key);
  }

  /**
   * The findings with these keys, from the agent's outcomes (latest one wins) or, for findings
   * without an outcome, from the findings awaiting labels. Unknown keys are absent from the map; a
   * key the database could not hold (U+0000, an unpaired surrogate) is unknown without a query.
   */
  async lookup(keys: readonly string[]): Promise<Map<string, KnownFinding>> {
    const found = new Map<string, KnownFinding>();
    for (const batch of chunks([...new Set(keys)].filter(isStorableText), LOOKUP_BATCH)) {
      const outcomes = await queryRows<{ finding_key: string; label: OutcomeLabel; ts: string; row_json: Record<string, unknown> | string }>(
        this.db,
        sql`SELECT x.finding_key, x.label, x.ts, x.row_json FROM ${eachKey(
          batch,
          (key) => sql`SELECT finding_key, label, row_json->>'ts' AS ts, row_json, ts AS at, seq FROM ${outcomesTable} WHERE agent_id = ${this.agentId}::uuid AND finding_key = ${key}`,
        )} ORDER BY x.finding_key, x.at, x.seq`,
      );
      for (const o of outcomes) {
        const labels = [...(found.get(o.finding_key)?.labels ?? []), o.label];
        found.set(o.finding_key, { row: findingOf(parseJson(o.row_json)), labels, lastLabelTs: o.ts });
      }
      const awaiting = await queryRows<{ finding_key: string; row_json: Record<string, unknown> | string }>(
        this.db,
        sql`SELECT x.* FROM ${eachKey(batch, (key) => sql`SELECT finding_key, row_json FROM ${findingsTable} WHERE agent_id = ${this.agentId}::uuid AND finding_key = ${key}`)}`,
      );
      for (const f of awaiting) {
        if (!found.has(f.finding_key)) found.set(f.finding_key, { row: findingOf(parseJson(f.row_json)), labels: [], lastLabelTs: null });
      }
    }
    return found;
  }

  /** Findings recorded without a label that still have no outcome. */
  async countAwaiting(): Promise<number> {
    const [row] = await queryRows<{ n: number | string }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM ${findingsTable} f WHERE f.agent_id = ${this.agentId}::uuid
          AND NOT EXISTS (SELECT 1 FROM ${outcomesTable} o WHERE o.agent_id = f.agent_id AND o.finding_key = f.finding_key)`,
    );
    return Number(row?.n ?? 0);
  }

  /** When each recorded finding was first seen, as epoch ms (every finding: the metrics' full path). */
  async firstSeen(): Promise<Map<string, number>> {
    const rows = await queryRows<{ finding_key: string; ts_ms: number }>(
      this.db,
      sql`SELECT finding_key, ${epochMs('first_seen')} AS ts_ms FROM ${findingsTable} WHERE agent_id = ${this.agentId}::uuid`,
    );
    return new Map(rows.map((r) => [r.finding_key, Number(r.ts_ms)]));
  }
}

function parseJson(value: Record<string, unknown> | string): Record<string, unknown> {
  return typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value;
}
