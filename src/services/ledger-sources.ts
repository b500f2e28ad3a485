import type { IAgentRuntime, UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import type { LedgerEntryInput } from '../domain/ledger-chain';
import { outcomeLedgerEntry } from '../domain/ledger-entries';
import type { OutcomeLabel } from '../domain/outcome';
import { OUTCOMES_TABLE } from './outcome-store';
import { RULE_TABLES } from './rule-schema';
import type { RewardLedgerService } from './reward-ledger-service';
import { chunks, dbOf, queryRows } from './sql';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOOKUP_BATCH = 1_000;

/**
 * The sources this plugin records from: `scan_outcome` (checked in batches against the outcome
 * store, and reconciled: every outcome with non-zero points calls for one entry) and `trajectory`
 * (a stored trajectory memory), and `rule` (a stored rule of the rules system, by id: verdicts
 * are events on a rule, many per rule, so `rule` is checked but not reconciled).
 */
export function registerBuiltInSources(ledger: RewardLedgerService, runtime: IAgentRuntime): void {
  const db = dbOf(runtime);
  ledger.registerSource('scan_outcome', async (refs) => {
    const found = new Set<string>();
    for (const batch of chunks(refs.filter((r) => UUID_PATTERN.test(r)), LOOKUP_BATCH)) {
      const list = sql.join(
        batch.map((r) => sql`${r}::uuid`),
        sql`, `,
      );
      const rows = await queryRows<{ id: string }>(db, sql`SELECT id FROM ${sql.raw(OUTCOMES_TABLE)} WHERE agent_id = ${runtime.agentId}::uuid AND id IN (${list})`);
      for (const r of rows) found.add(r.id);
    }
    return found;
  });
  ledger.registerExpected('scan_outcome', async () => {
    const rows = await queryRows<{ id: string; label: OutcomeLabel; reward: number; finding_key: string }>(
      db,
      sql`SELECT id, label, reward, finding_key FROM ${sql.raw(OUTCOMES_TABLE)} WHERE agent_id = ${runtime.agentId}::uuid`,
    );
    const expected = new Map<string, LedgerEntryInput>();
    for (const r of rows) {
      const entry = outcomeLedgerEntry({ id: r.id, label: r.label, reward: Number(r.reward), findingKey: r.finding_key });
      if (entry) expected.set(r.id, entry);
    }
    return expected;
  });
  ledger.registerSource('rule', async (refs) => {
    const found = new Set<string>();
    for (const batch of chunks([...new Set(refs)], LOOKUP_BATCH)) {
      const list = sql.join(
        batch.map((r) => sql`${r}`),
        sql`, `,
      );
      const rows = await queryRows<{ id: string }>(db, sql`SELECT id FROM ${sql.raw(RULE_TABLES.rules)} WHERE agent_id = ${runtime.agentId}::uuid AND id IN (${list})`);
      for (const r of rows) found.add(r.id);
    }
    return found;
  });
  ledger.registerSource('trajectory', async (refs) => {
    const found = new Set<string>();
    for (const ref of refs) if (UUID_PATTERN.test(ref) && (await runtime.getMemoryById(ref as UUID))) found.add(ref);
    return found;
  });
}
