// Run with `bun run` (not `bun test`, whose runner takes unhandled rejections for itself): boots an
// agent, makes the database fail under the ledger's reconciliation timer, the ELO flush, the
// learning task and the rule decay task, lets each failure clear, and prints one JSON document of
// what happened, with every unhandled rejection the process saw.
import { getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { eloItems, eloLog } from '../../src/elo/tables';
import { ledgerTable } from '../../src/ledger/tables';
import { outcomesTable } from '../../src/scan/tables';
import { qualifiedName } from '../../src/shared/plugin-schema';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import type { RuleBookService } from '../../src/rules/rule-book-service';
import { RULE_BOOK_SERVICE } from '../../src/shared/service-names';
import { dbOf, queryRows } from '../../src/shared/sql';
import { learnPendingWorker } from '../../src/scan/surfaces/learn-pending-task';
import { ruleDecayWorker } from '../../src/rules/surfaces/rule-decay-task';
import { makeRows } from './rows';
import { startAgent } from './runtime';

const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason instanceof Error ? reason.message : String(reason)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The listener works: a deliberate unhandled rejection is seen (and then set aside).
Promise.reject(new Error('probe'));
await sleep(10);
const probe = unhandled.splice(0);

const agent = await startAgent({ settings: { SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS: '1000', SELF_IMPROVE_LESSON_MODEL: 'off' } });
const logged: { level: string; message: string }[] = [];
const logger = agent.runtime.logger as unknown as Record<'warn' | 'error', (...args: unknown[]) => void>;
for (const level of ['warn', 'error'] as const) {
  const original = logger[level].bind(logger);
  logger[level] = (...args: unknown[]) => {
    logged.push({ level, message: String(args[args.length - 1]) });
    original(...args);
  };
}
const db = dbOf(agent.runtime);
/** Renames a table to `<name>_away` (the database then fails every statement on it), and back. */
const setAside = (table: PgTable) => db.execute(sql.raw(`ALTER TABLE ${qualifiedName(table)} RENAME TO ${getTableName(table)}_away`));
const putBack = (table: PgTable) => db.execute(sql.raw(`ALTER TABLE ${qualifiedName(table)}_away RENAME TO ${getTableName(table)}`));
const count = async (table: PgTable) => Number((await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${table} WHERE agent_id = ${agent.runtime.agentId}::uuid`))[0]?.n);
const loggedNow = (prefix: string) => logged.filter((l) => l.message.startsWith(prefix)).map((l) => l.level);

// Reconciliation on its 1-second timer, with the ledger table gone for 1.6 seconds.
const ledger = await rewardLedgerOf(agent.runtime);
await agent.service.ingest(makeRows({ n: 4, labels: ['fixed', 'rejected_fp'], keyPrefix: 'bg' }));
await setAside(ledgerTable);
await sleep(1_600);
await putBack(ledgerTable);
const reconcileFailedLogs = loggedNow('ledger reconciliation failed');
const before = ledger.lastReconciliation?.at ?? '';
await sleep(1_600);
const reconciliation = { failedLogs: reconcileFailedLogs, laterOk: ledger.lastReconciliation?.ok ?? null, ranAgain: (ledger.lastReconciliation?.at ?? '') > before, verify: await ledger.verify() };

// The ELO flush with its log table gone; a second change comes in before the table is back.
const book = await eloBookOf(agent.runtime);
book.recordAccess('file', 'src/a.ts', { reason: 'first' });
await setAside(eloLog);
await book.flush();
const pendingAfterFailure = book.pendingChanges;
book.recordAccess('file', 'src/b.ts', { reason: 'second' });
await putBack(eloLog);
await book.flush();
const elo = {
  failedLogs: loggedNow('ELO batch not written'),
  pendingAfterFailure,
  pendingAfterRecovery: book.pendingChanges,
  items: await count(eloItems),
  logOrder: (await book.updateLogEntries(10)).map((e) => e.entity_id).reverse(),
};

// The learning task with the outcome table gone.
await agent.service.ingest(makeRows({ n: 20, labels: ['rejected_fp'], keyPrefix: 'learn-bg', category: 'xss' }));
const task = (name: string) => ({ name }) as never;
await setAside(outcomesTable);
await learnPendingWorker.execute(agent.runtime, {}, task(learnPendingWorker.name));
await putBack(outcomesTable);
const pendingAfterFailedPass = (await agent.service.counts()).pending;
await learnPendingWorker.execute(agent.runtime, {}, task(learnPendingWorker.name));
const learning = { failedLogs: loggedNow('periodic learning pass failed'), pendingAfterFailedPass, pendingAfterRecovery: (await agent.service.counts()).pending };

// The rule decay task while maintenance fails.
const rules = agent.runtime.getService<RuleBookService>(RULE_BOOK_SERVICE) as RuleBookService;
const maintain = rules.maintain.bind(rules);
rules.maintain = async () => {
  throw new Error('database is down');
};
await ruleDecayWorker.execute(agent.runtime, {}, task(ruleDecayWorker.name));
rules.maintain = maintain;
const decay = { failedLogs: loggedNow('rule maintenance failed') };

await sleep(50);
await agent.close();
// Timers of the closed runtime's dependencies would keep the process up for half a minute more.
process.stdout.write(`${JSON.stringify({ probe, reconciliation, elo, learning, decay, unhandled })}\n`, () => process.exit(0));
