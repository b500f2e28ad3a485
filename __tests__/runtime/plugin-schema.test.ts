// The plugin's tables come from its drizzle schema, migrated by plugin-sql into the `self_improve`
// schema when the runtime initializes: exactly the declared tables, nothing in `public`, the
// exactly-once index on the ledger's claim columns, and a restart that migrates nothing again.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { EloBookService } from '../../src/elo/elo-book-service';
import type { LedgerTransaction } from '../../src/ledger/model/chain';
import { RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { LEDGER_ONCE_INDEX, ledgerTable } from '../../src/ledger/tables';
import { RuleBookService } from '../../src/rules/rule-book-service';
import { ScanOutcomeService } from '../../src/scan/scan-outcome-service';
import { selfImproveTables } from '../../src/shared/schema';
import { databaseReason, dbOf, queryRows } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { catalogOf, declaredCatalog, PLUGIN_TABLE_NAMES } from '../helpers/schema-catalog';

/** What plugin-sql recorded of this plugin's migrations: migrations run, schema snapshots, journal entries. */
async function migrationsRecorded(agent: TestAgent): Promise<Record<string, number>> {
  const [row] = await queryRows<Record<string, number | string>>(
    dbOf(agent.runtime),
    sql`SELECT (SELECT count(*) FROM migrations._migrations WHERE plugin_name = 'self-improve') AS migrations,
          (SELECT count(*) FROM migrations._snapshots WHERE plugin_name = 'self-improve') AS snapshots,
          (SELECT jsonb_array_length(entries) FROM migrations._journal WHERE plugin_name = 'self-improve') AS journal`,
  );
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
}

describe('the plugin schema, migrated by plugin-sql on a fresh PGlite', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-schema-'));
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test(`schema self_improve holds exactly the ${PLUGIN_TABLE_NAMES.length} tables, as declared; no self_improve_* table is left anywhere`, async () => {
    const tables = await queryRows<{ name: string }>(dbOf(agent.runtime), sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'self_improve' ORDER BY 1`);
    expect(tables.map((t) => t.name)).toEqual(PLUGIN_TABLE_NAMES);
    expect(await catalogOf(dbOf(agent.runtime))).toEqual(declaredCatalog(Object.values(selfImproveTables)));
    const old = await queryRows<{ name: string }>(dbOf(agent.runtime), sql`SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_name LIKE 'self\_improve\_%'`);
    expect(old).toEqual([]);
  });

  test('the unique index on (agent, source, source_ref, category) refuses a second entry for a claim, whatever else the row says', async () => {
    const [index] = await queryRows<{ def: string }>(dbOf(agent.runtime), sql`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'self_improve' AND indexname = ${LEDGER_ONCE_INDEX}`);
    expect(index?.def).toBe('CREATE UNIQUE INDEX ledger_once ON self_improve.ledger USING btree (agent_id, source, source_ref, category)');
    await agent.service.ingest(makeRows({ n: 4, labels: ['fixed', 'rejected_fp'], keyPrefix: 'schema' }));
    const ledger = await rewardLedgerOf(agent.runtime);
    const [tip] = await ledger.history({ limit: 1 });
    const claim = tip as LedgerTransaction;
    const second = { ...claim, sequence: claim.sequence + 1, id: `tx-${claim.sequence + 1}`, action: 'paid again', points: 1 };
    const refused = await dbOf(agent.runtime)
      .execute(
        sql`INSERT INTO ${ledgerTable} (agent_id, sequence, tx_json, source, source_ref, category)
            VALUES (${agent.runtime.agentId}::uuid, ${second.sequence}, ${JSON.stringify(second)}::jsonb, ${claim.source}, ${claim.source_ref}, ${claim.category})`,
      )
      .then(() => 'written', (error: unknown) => databaseReason(error));
    expect(refused).toContain(LEDGER_ONCE_INDEX);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 4 });
  });

  test('a second boot on the same data directory migrates nothing and keeps every row', async () => {
    const recorded = await migrationsRecorded(agent);
    const ledgerBefore = await (await rewardLedgerOf(agent.runtime)).history({ limit: 100 });
    const outcomesBefore = (await agent.service.counts()).outcomes;
    expect(recorded).toEqual({ migrations: 1, snapshots: 1, journal: 1 });
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    expect(await migrationsRecorded(agent)).toEqual(recorded);
    expect((await agent.service.counts()).outcomes).toBe(outcomesBefore);
    const ledger = await rewardLedgerOf(agent.runtime);
    expect(await ledger.history({ limit: 100 })).toEqual(ledgerBefore);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 4 });
  });
});

describe('services on a database without the plugin schema', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
    await dbOf(agent.runtime).execute(sql`DROP SCHEMA self_improve CASCADE`);
  });
  afterAll(async () => {
    await agent.close();
  });

  test.each([
    ['ScanOutcomeService', ScanOutcomeService, 'self_improve.outcomes'],
    ['RewardLedgerService', RewardLedgerService, 'self_improve.ledger'],
    ['EloBookService', EloBookService, 'self_improve.elo'],
    ['RuleBookService', RuleBookService, 'self_improve.rule_events'],
  ] as const)('%s refuses to start, naming the missing table and plugin-sql migrations', async (_name, service, table) => {
    const error = await service.start(agent.runtime).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`table ${table} does not exist`);
    expect((error as Error).message).toContain("@elizaos/plugin-sql must run this plugin's migrations");
  });
});
