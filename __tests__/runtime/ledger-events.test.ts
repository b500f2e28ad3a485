// The ledger hears of new scan outcomes through the `outcomesRecorded` event, inside the ingest's
// transaction: its entries are written on that transaction, so they commit with the outcomes or
// not at all, one per rewarded outcome; a ledger failure there never fails the ingest.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { ledgerTable } from '../../src/ledger/tables';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { eventsOf } from '../../src/shared/events';
import { type Db, dbOf, queryRows } from '../../src/shared/sql';
import { ledgerCounts } from '../helpers/ledger-counts';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { errorText } from '../../src/shared/error-text';

const LABELS = ['fixed', 'rejected_fp', 'ignored', 'accepted', 'reopened'] as const;

describe('ledger entries through the outcomesRecorded event', () => {
  let agent: TestAgent;
  let ledger: RewardLedgerService;
  /** What a listener subscribed after the ledger saw inside each ingest's transaction. */
  let seenInside: { outcomes: number; entries: number }[];
  let unsubscribe: () => void;

  /** Ledger entries for these outcome ids, read on `db`. */
  const entriesFor = async (db: Db, ids: readonly string[]) => {
    const list = sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    );
    const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${ledgerTable} WHERE agent_id = ${agent.runtime.agentId}::uuid AND tx_json->>'source_ref' IN (${list})`);
    return Number(row?.n);
  };

  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' } });
    ledger = await rewardLedgerOf(agent.runtime);
    seenInside = [];
    unsubscribe = eventsOf(agent.runtime).on('outcomesRecorded', async ({ tx, outcomes }) => {
      seenInside.push({ outcomes: outcomes.length, entries: await entriesFor(tx, outcomes.map((o) => o.id)) });
    });
  });
  afterAll(async () => {
    unsubscribe();
    await agent.close();
  });

  test('the entries are on the ingest transaction before it commits, one per rewarded outcome; a re-ingest announces nothing', async () => {
    const rows = makeRows({ n: 10, labels: [...LABELS], keyPrefix: 'inside' });
    expect(await agent.service.ingest(rows)).toMatchObject({ accepted: 10, rejected: [] });
    expect(seenInside).toEqual([{ outcomes: 10, entries: 8 }]);
    expect(await agent.service.ingest(rows)).toMatchObject({ accepted: 0, duplicate: 10 });
    expect(seenInside).toHaveLength(1);
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 8, entries: 8, paidTwice: 0, unpaid: 0 });
  });

  test('when the ingest transaction fails at commit, after the event, its outcomes and their entries are both gone', async () => {
    const db = dbOf(agent.runtime);
    // A check the database makes only at COMMIT: every row of the batch and every entry are written by then.
    await db.execute(
      sql.raw(`CREATE OR REPLACE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'doomed finding %', NEW.finding_key; END $$`),
    );
    await db.execute(
      sql.raw(`CREATE CONSTRAINT TRIGGER refuse_doomed AFTER INSERT ON self_improve.outcomes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.finding_key LIKE 'doomed-%') EXECUTE FUNCTION refuse_doomed()`),
    );
    const rows = makeRows({ n: 5, labels: [...LABELS], keyPrefix: 'doomed' });
    const error = await agent.service.ingest(rows).then(
      () => null,
      // As a log line shows it: PostgreSQL's driver wraps an error at COMMIT ("Failed query: commit"), PGlite's does not.
      (e: unknown) => errorText(e),
    );
    expect(error).toContain('doomed finding');
    expect(seenInside[seenInside.length - 1]).toEqual({ outcomes: 5, entries: 4 });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 8, entries: 8, paidTwice: 0, unpaid: 0 });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 8 });

    await db.execute(sql.raw(`DROP TRIGGER refuse_doomed ON self_improve.outcomes`));
    expect(await agent.service.ingest(rows)).toMatchObject({ accepted: 5, rejected: [] });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 12, entries: 12, paidTwice: 0, unpaid: 0 });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 12 });
  });

  test('a ledger failure inside the event is logged and rolled back to its savepoint: the outcomes are stored, and reconciliation appends their entries once', async () => {
    const db = dbOf(agent.runtime);
    const failures: { event?: unknown; message: string }[] = [];
    const logger = agent.runtime.logger as unknown as { warn: (...args: unknown[]) => unknown };
    const warn = logger.warn;
    logger.warn = (...args: unknown[]) => {
      failures.push({ event: (args[0] as Record<string, unknown>).event, message: String(args[1]) });
      return warn.apply(agent.runtime.logger, args);
    };
    // The ledger's write fails after it took the lock and read the tip; the table stays readable.
    await db.execute(sql.raw(`CREATE OR REPLACE FUNCTION refuse_entries() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the ledger is down'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER refuse_entries BEFORE INSERT ON self_improve.ledger FOR EACH ROW EXECUTE FUNCTION refuse_entries()`));
    try {
      expect(await agent.service.ingest(makeRows({ n: 5, labels: [...LABELS], keyPrefix: 'ledger-down' }))).toMatchObject({ accepted: 5, rejected: [] });
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER refuse_entries ON self_improve.ledger`));
      logger.warn = warn;
    }
    expect(failures.filter((f) => f.event === 'outcomesRecorded')).toEqual([{ event: 'outcomesRecorded', message: 'an event handler failed; the event went on to the others' }]);
    expect(seenInside[seenInside.length - 1]).toEqual({ outcomes: 5, entries: 0 });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 16, entries: 12, paidTwice: 0, unpaid: 4 });
    expect(await ledger.reconcile()).toMatchObject({ ok: false, appended: 4 });
    expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 16, entries: 16, paidTwice: 0, unpaid: 0 });
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 16 });
  });
});
