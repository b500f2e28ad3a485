import type { IAgentRuntime } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import type { LedgerEntryInput } from './model/chain';
import { LEDGER_CATEGORY_BY_LABEL, outcomeLedgerEntry, POINTS_PER_REWARD, ruleIdOfVerdictRef } from './model/entries';
import { asText, asUuid, eachBatch, inRefRange, RANDOM_KEYS_PER_STATEMENT } from './ledger-store';
import type { OutcomeLabel } from '../scan/model/outcome';
import { outcomesTable } from '../scan/tables';
import { committedOutcomeSeq, nextOutcomeSeqRange } from '../scan/outcome-store';
import { MetricRollup } from '../scan/metric-rollup-store';
import { ledgerTable } from './tables';
import { rulesTable } from '../rules/tables';
import type { ReconciledSource, RewardLedgerService } from './reward-ledger-service';
import { type Db, queryRows } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { TRAJECTORIES_TABLE } from '../trajectories/trajectory-service';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Outcome seqs per page of an incremental reconciliation (`RANDOM_KEYS_PER_STATEMENT`). */
const NEW_RECORDS_PAGE = RANDOM_KEYS_PER_STATEMENT;

/**
 * The sources this plugin records from, each checked in batches on the database handle it is
 * given: `scan_outcome` (the outcome store; reconciled a range of outcome ids at a time: every
 * outcome with non-zero points calls for one entry), `trajectory` (a stored trajectory memory, by id, in plugin-sql's `memories`
 * table), and `rule` (a verdict on a stored rule, `<rule id>#<n>`: the n-th validation or
 * violation; many per rule, so checked but not reconciled).
 */
export function registerBuiltInSources(ledger: RewardLedgerService, runtime: IAgentRuntime): void {
  ledger.registerSource('scan_outcome', async (refs, db) => {
    const found = new Set<string>();
    await eachBatch<{ id: string }>(db, refs.filter((r) => UUID_PATTERN.test(r)), asUuid, (list) => sql`SELECT id FROM ${outcomesTable} WHERE agent_id = ${runtime.agentId}::uuid AND id IN (${list})`, (rows) => {
      for (const r of rows) found.add(r.id);
    });
    return found;
  });
  ledger.registerExpected('scan_outcome', outcomeLedgerSource(runtime));
  ledger.registerSource('rule', async (refs, db) => {
    const byRule = new Map<string, string[]>();
    for (const ref of refs) byRule.set(ruleIdOfVerdictRef(ref), [...(byRule.get(ruleIdOfVerdictRef(ref)) ?? []), ref]);
    const found = new Set<string>();
    await eachBatch<{ id: string }>(db, [...byRule.keys()], asText, (list) => sql`SELECT id FROM ${rulesTable} WHERE agent_id = ${runtime.agentId}::uuid AND id IN (${list})`, (rows) => {
      for (const r of rows) for (const ref of byRule.get(r.id) ?? []) found.add(ref);
    });
    return found;
  });
  ledger.registerSource('trajectory', async (refs, db) => {
    const found = new Set<string>();
    await eachBatch<{ id: string }>(db, refs.filter((r) => UUID_PATTERN.test(r)), asUuid, (list) => sql`SELECT id FROM memories WHERE agent_id = ${runtime.agentId}::uuid AND type = ${TRAJECTORIES_TABLE} AND id IN (${list})`, (rows) => {
      for (const r of rows) found.add(r.id);
    });
    return found;
  });
}

/**
 * What the outcome store calls for in the ledger, for reconciliation: every outcome with non-zero
 * points calls for one entry. Reads go a batch of ids or a page of seqs per statement, the event
 * loop getting a turn between them (an incremental reconciliation runs beside an ingest).
 */
export function outcomeLedgerSource(runtime: IAgentRuntime): ReconciledSource {
  // An outcome calls for an entry when its label has a category and round(reward × 100) ≠ 0
  // (outcomeLedgerEntry); the summary says the same in SQL (floor(x + 0.5) is Math.round).
  const paid = Object.entries(LEDGER_CATEGORY_BY_LABEL).flatMap(([label, category]) => (category ? [label] : []));
  const callsForEntry = sql`label IN (${sql.join(
    paid.map((l) => sql`${l}`),
    sql`, `,
  )}) AND floor(reward * ${POINTS_PER_REWARD} + 0.5) <> 0`;
  const ofAgent = sql`agent_id = ${runtime.agentId}::uuid`;
  const expectedOf = (rows: readonly OutcomeEntryRow[]) => {
    const expected = new Map<string, LedgerEntryInput>();
    for (const r of rows) {
      const entry = outcomeLedgerEntry({ id: r.id, label: r.label, reward: Number(r.reward), findingKey: r.finding_key });
      if (entry) expected.set(r.id, entry);
    }
    return expected;
  };
  return {
    async summary(db, range) {
      const [row] = await queryRows<{ n: number | string; points: number | string; checksum: string }>(
        db,
        sql`SELECT count(*) AS n, coalesce(sum(floor(reward * ${POINTS_PER_REWARD} + 0.5)), 0) AS points, coalesce(sum(hashtext(id::text)::bigint), 0)::text AS checksum
            FROM ${outcomesTable} WHERE ${ofAgent} AND ${inRefRange(sql`id`, range, 'uuid')} AND ${callsForEntry}`,
      );
      return { count: Number(row?.n ?? 0), points: Number(row?.points ?? 0), checksum: row?.checksum ?? '0' };
    },
    async entries(db, range) {
      return expectedOf(await queryRows<OutcomeEntryRow>(db, sql`SELECT id, label, reward, finding_key FROM ${outcomesTable} WHERE ${ofAgent} AND ${inRefRange(sql`id`, range, 'uuid')}`));
    },
    position(db) {
      const rollup = new MetricRollup(db, runtime.agentId);
      return committedOutcomeSeq(db, runtime.agentId, (tx) => rollup.lock(tx));
    },
    async newRecords(db, after, through) {
      let count = 0;
      const unpaid = new Map<string, LedgerEntryInput>();
      for (let range = await nextOutcomeSeqRange(db, runtime.agentId, after, NEW_RECORDS_PAGE, through); range; ) {
        const rows = await queryRows<OutcomeEntryRow & { paid: boolean }>(
          db,
          sql`SELECT o.id, o.label, o.reward, o.finding_key,
                EXISTS (SELECT 1 FROM ${ledgerTable} l WHERE l.agent_id = o.agent_id AND l.source = 'scan_outcome' AND l.source_ref = o.id::text) AS paid
              FROM ${outcomesTable} o WHERE o.agent_id = ${runtime.agentId}::uuid AND o.seq > ${range.after} AND o.seq <= ${range.through}`,
        );
        count += rows.length;
        for (const [id, entry] of expectedOf(rows.filter((r) => !r.paid))) unpaid.set(id, entry);
        await yieldToEventLoop();
        range = await nextOutcomeSeqRange(db, runtime.agentId, range.through, NEW_RECORDS_PAGE, through);
      }
      return { count, unpaid };
    },
    async entriesFor(db, refs) {
      const expected = new Map<string, LedgerEntryInput>();
      await eachBatch<OutcomeEntryRow>(db, [...new Set(refs)].filter((r) => UUID_PATTERN.test(r)), asUuid, (list) => sql`SELECT id, label, reward, finding_key FROM ${outcomesTable} WHERE ${ofAgent} AND id IN (${list})`, (rows) => {
        for (const [id, entry] of expectedOf(rows)) expected.set(id, entry);
      });
      return expected;
    },
  };
}

/** What an outcome's ledger entry is made of. */
interface OutcomeEntryRow {
  id: string;
  label: OutcomeLabel;
  reward: number;
  finding_key: string;
}
