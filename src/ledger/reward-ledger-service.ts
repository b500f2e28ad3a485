import { type IAgentRuntime, Service } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import type { LedgerCheckpoint } from './model/checkpoint';
import type { LedgerVerification } from './model/integrity';
import type { HistoryQuery, LedgerMetrics, LedgerTotals } from './model/totals';
import type { LedgerTransaction } from './model/chain';
import { type AppendItem, LedgerAppender, LEDGER_LOG_SRC } from './ledger-appender';
import { LedgerFoldKeeper } from './ledger-fold';
import { LedgerInspector } from './ledger-inspector';
import { subscribeLedger } from './ledger-listeners';
import { LedgerReconciler, type ReconcileMode } from './ledger-reconciler';
import { registerBuiltInSources } from './ledger-sources';
import { type LedgerAuditRecord, LedgerStore } from './ledger-store';
import type { AppendResult, CheckpointResult, ReconciledSource, ReconcileReport, SourceCheck } from './ledger-types';
import { eventsOf } from '../shared/events';
import { SerialQueue } from '../shared/serial-queue';
import { serviceOf } from '../shared/service-of';
import { REWARD_LEDGER_SERVICE } from '../shared/service-names';
import { type Db, dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';
import { ledgerTables } from './tables';
import { errorText } from '../shared/error-text';
import { inTurns, startTurn } from '../shared/event-loop';

export { DEFAULT_LEDGER_CATEGORIES } from './ledger-appender';
export type { AppendResult, CheckpointResult, ReconciledSource, HeadProblem, LedgerIntegrity, LedgerProblem, LedgerVerification, ReconcileProblem, ReconcileReport, SourceCheck } from './ledger-types';

interface Pending {
  items: readonly AppendItem[];
  resolve: (r: AppendResult[]) => void;
  reject: (e: unknown) => void;
}

/**
 * The reward ledger (seed 000): the single writer of every reward and penalty. Every append —
 * from this process or another on the same database — runs in a database transaction holding the
 * ledger's lock and reads the tip inside it, so appends are serialised by the database: ids are
 * consecutive, running totals right, the chain unbroken. At most one entry per (source, source
 * record, category): a second is reported as a duplicate, and refused by a unique index if it
 * ever reaches the table. Entries are checked against the category registry and their source
 * record before they are written; after each append the checksum (sum of points = running total)
 * is checked. With SELF_IMPROVE_LEDGER_SECRET set, hashes are HMAC-SHA256 under it.
 *
 * Its parts: `LedgerAppender` writes, `LedgerReconciler` reconciles, `LedgerInspector` verifies and
 * reports; the ledger records what happens in the agent by listening to its events (`subscribeLedger`).
 */
export class RewardLedgerService extends Service {
  static override serviceType = REWARD_LEDGER_SERVICE;
  override capabilityDescription = 'Tamper-evident, hash-chained ledger of every reward and penalty the agent earns';

  readonly sessionStartMs = Date.now();
  private db!: Db;
  private store!: LedgerStore;
  private appender!: LedgerAppender;
  private reconciler!: LedgerReconciler;
  private inspector!: LedgerInspector;
  private folds!: LedgerFoldKeeper;
  /** The background reads at start (the checksum's sum and the totals), awaited by `stop`. */
  private warming: Promise<void> = Promise.resolve();
  /** Appends and reconciliations, one at a time. */
  private readonly queue = new SerialQueue();
  private readonly pending: Pending[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;

  static override async start(runtime: IAgentRuntime): Promise<RewardLedgerService> {
    const service = new RewardLedgerService(runtime);
    const settings = loadConfig(runtime);
    const key = settings.SELF_IMPROVE_LEDGER_SECRET ?? null;
    service.db = dbOf(runtime);
    service.store = new LedgerStore(service.db, runtime.agentId);
    await startTurn();
    await requireTables(service.db, Object.values(ledgerTables));
    const logFailure = (what: string) => (error: unknown) => {
      runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, `${what} failed; it is read again when needed`);
    };
    service.folds = new LedgerFoldKeeper(service.store, service.sessionStartMs, logFailure('folding the ledger totals in the background'));
    service.appender = new LedgerAppender(runtime, service.store, key, service.folds);
    service.reconciler = new LedgerReconciler(runtime, service.db, service.store, service.appender, service.queue, settings.SELF_IMPROVE_LEDGER_RECONCILE_EVERY);
    service.inspector = new LedgerInspector(
      service.store,
      service.queue,
      runtime.agentId,
      key,
      service.folds,
      () => service.reconciler.stillVerified(),
      (mark) => service.reconciler.remember(mark),
    );
    await startTurn();
    const last = await service.store.last();
    await startTurn();
    const keyProblem = service.appender.keyProblem(last, await service.store.head());
    if (keyProblem) runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: runtime.agentId }, `${keyProblem}; appends are refused until it is fixed`);
    registerBuiltInSources(service, runtime);
    service.timer = setInterval(() => service.reconciler.inBackground('interval'), settings.SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS);
    service.timer.unref?.();
    service.unsubscribe = subscribeLedger(service, eventsOf(runtime), runtime);
    // In the background, a range at a time: the sum of points the first append's checksum starts
    // from, and the totals (from the stored fold on), which appends then extend as they write.
    service.warming = inTurns(() =>
      Promise.all([service.appender.warmChecksum().catch(logFailure('reading the sum of points at start')), service.folds.current().catch(logFailure('reading the ledger totals at start'))]),
    ).then(() => undefined);
    return service;
  }

  override async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.warming;
    await this.queue.idle();
    await this.folds.idle();
  }

  /** Whether transactions are keyed (SELF_IMPROVE_LEDGER_SECRET is set). */
  get keyed(): boolean {
    return this.appender.key !== null;
  }

  /** The last reconciliation's report, or null before the first. */
  get lastReconciliation(): ReconcileReport | null {
    return this.reconciler.lastReport;
  }

  registerCategory(category: string): void {
    this.appender.categories.add(category);
  }

  /** Names a kind of source record and how to check that one exists. */
  registerSource(source: string, check: SourceCheck): void {
    this.appender.sources.set(source, check);
  }

  /** Names what a source store calls for, so reconciliation can compare it with the ledger. */
  registerExpected(source: string, expected: ReconciledSource): void {
    this.reconciler.registerExpected(source, expected);
  }

  /** Checks an entry (category, sign, texts, source record) and appends it; expected failures come back as values with a code. */
  async append(input: unknown, timestamp?: string): Promise<AppendResult> {
    const [result] = await this.appendMany([input], timestamp);
    return result as AppendResult;
  }

  /**
   * Checks entries and appends the good ones, in order; one result per input. Appends are group
   * committed: everything asked for while a write is running goes into the next database
   * transaction together, in arrival order, so 1,000 concurrent appends cost a few transactions,
   * not 1,000.
   */
  appendMany(inputs: readonly unknown[], timestamp?: string): Promise<AppendResult[]> {
    const at = timestamp ?? new Date().toISOString();
    const waiting = new Promise<AppendResult[]>((resolve, reject) => this.pending.push({ items: inputs.map((input) => ({ input, timestamp: at })), resolve, reject }));
    void this.queue.run(() => this.flush());
    return waiting;
  }

  /**
   * Appends entries inside the caller's database transaction `t`, so the caller's records and
   * their entries commit together or not at all (e.g. scan outcomes and their rewards). Takes the
   * ledger lock until `t` ends; runs in a savepoint, so when it throws the caller's own writes
   * stand and the caller decides. Source checks run on `t`, where the caller's new records are.
   */
  appendWithin(t: Db, inputs: readonly unknown[], timestamp = new Date().toISOString()): Promise<AppendResult[]> {
    return t.transaction(async (savepoint) => {
      const items = inputs.map((input) => ({ input, timestamp }));
      const outcome = await this.appender.append(savepoint, await this.appender.check(items, savepoint));
      this.reconciler.afterAppend(outcome);
      return outcome.results;
    });
  }

  /** Writes every append asked for so far in one transaction (source records looked up before it opens). */
  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    try {
      const checked = await this.appender.check(
        batch.flatMap((b) => b.items),
        this.db,
      );
      const outcome = await this.db.transaction((t) => this.appender.append(t, checked));
      this.reconciler.afterAppend(outcome);
      let at = 0;
      for (const b of batch) {
        b.resolve(outcome.results.slice(at, at + b.items.length));
        at += b.items.length;
      }
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  /**
   * Balance reconciliation (seed 000 §4, `LedgerReconciler.reconcile`), verifying the whole chain
   * (`full`, the default) or what follows the last transaction this process verified
   * (`incremental`); runs by itself, incrementally, every SELF_IMPROVE_LEDGER_RECONCILE_EVERY new
   * transactions and every SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS.
   */
  reconcile(mode: ReconcileMode = 'full'): Promise<ReconcileReport> {
    return this.reconciler.reconcile(mode);
  }

  /** Audit records (reconciliations, quarantined rows, recoveries), newest first. */
  auditLog(limit = 20): Promise<LedgerAuditRecord[]> {
    return this.store.auditLog(limit);
  }

  /** Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first bad transaction. */
  verify(): Promise<LedgerVerification> {
    return this.inspector.verify();
  }

  /** A signed head checkpoint of the ledger as it stands; needs SELF_IMPROVE_LEDGER_SECRET. */
  checkpoint(nowIso?: string): Promise<CheckpointResult> {
    return this.inspector.checkpoint(nowIso);
  }

  /** The whole ledger verified, and checked against a checkpoint made earlier. */
  verifyCheckpoint(checkpoint: LedgerCheckpoint): ReturnType<LedgerInspector['verifyCheckpoint']> {
    return this.inspector.verifyCheckpoint(checkpoint);
  }

  totals(): Promise<LedgerTotals> {
    return this.inspector.totals();
  }

  metrics(): Promise<LedgerMetrics> {
    return this.inspector.metrics();
  }

  history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    return this.inspector.history(query);
  }

  /** The seed's `progress.json` document (newest 1,000 transactions), checksum validated now. */
  progressJson(nowIso?: string): Promise<Record<string, unknown>> {
    return this.inspector.progressJson(nowIso);
  }
}

/** Waits until the runtime has started RewardLedgerService and returns it. */
export const rewardLedgerOf = (runtime: IAgentRuntime): Promise<RewardLedgerService> => serviceOf(runtime, RewardLedgerService);
