import { type IAgentRuntime, Service } from '@elizaos/core';
import { loadConfig, type SelfImproveConfig } from '../shared/config';
import { type LedgerTransaction, nextTransaction } from './model/chain';
import { checkEntry, type EntryCheck, type LedgerEntryInput } from './model/entry';
import { type CheckpointCheck, headMac, type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from './model/checkpoint';
import { keyProblemOf, type LedgerVerification, type SignedHead, verifyLedger } from './model/integrity';
import { claimKeyOf } from './model/claims';
import { diffAgainstSources } from './model/reconcile';
import { history, type HistoryQuery, type LedgerMetrics, ledgerMetrics, type LedgerTotals, ledgerTotals } from './model/totals';
import { buildProgressJson } from './model/progress-json';
import { registerBuiltInSources } from './ledger-sources';
import { type HeadSigner, type LedgerAuditRecord, LedgerStore } from './ledger-store';
import type { AppendResult, CheckpointResult, ExpectedEntries, ReconcileReport, SourceCheck } from './ledger-types';
import { REWARD_LEDGER_SERVICE } from '../shared/service-names';
import { type Db, dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';
import { ledgerTables } from './tables';

/** Categories every ledger accepts (seed 000 step 1: categories come from a registry); more with `registerCategory`. */
export const DEFAULT_LEDGER_CATEGORIES = [
  'finding_fixed',
  'finding_accepted',
  'false_positive',
  'finding_reopened',
  'trajectory_accepted',
  'rule_validated',
  'rule_violated',
  'guard_decision',
] as const;

const LOG_SRC = 'plugin:self-improve:ledger';

export type { AppendResult, CheckpointResult, ExpectedEntries, HeadProblem, LedgerIntegrity, LedgerProblem, LedgerVerification, ReconcileProblem, ReconcileReport, SourceCheck } from './ledger-types';

interface Pending {
  items: readonly { input: unknown; timestamp: string }[];
  resolve: (r: AppendResult[]) => void;
  reject: (e: unknown) => void;
}

/** What one locked append did, for the bookkeeping after it. */
interface LockedAppend {
  results: AppendResult[];
  appended: number;
  checksumOk: boolean;
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
 */
export class RewardLedgerService extends Service {
  static override serviceType = REWARD_LEDGER_SERVICE;
  override capabilityDescription = 'Tamper-evident, hash-chained ledger of every reward and penalty the agent earns';

  readonly sessionStartMs = Date.now();
  private store!: LedgerStore;
  private db!: Db;
  private key: string | null = null;
  /** Sum of points as of the tip with this hash: the next append's checksum starts from it when the tip has not moved elsewhere. */
  private checksum: { tipHash: string | null; sum: number } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending: Pending[] = [];
  private readonly categories = new Set<string>(DEFAULT_LEDGER_CATEGORIES);
  private readonly sources = new Map<string, SourceCheck>();
  private readonly expectedBySource = new Map<string, ExpectedEntries>();
  private settings!: SelfImproveConfig;
  /** Signs the head with the secret (null without one). */
  private readonly signHead: HeadSigner = (count, lastHash) => (this.key === null ? null : headMac(this.runtime.agentId, count, lastHash, this.key));
  private sinceReconcile = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private summaryCache: { head: string; totals: LedgerTotals; metrics: LedgerMetrics } | null = null;
  /** The last reconciliation's report, or null before the first. */
  lastReconciliation: ReconcileReport | null = null;

  static override async start(runtime: IAgentRuntime): Promise<RewardLedgerService> {
    const service = new RewardLedgerService(runtime);
    service.settings = loadConfig(runtime);
    service.key = service.settings.SELF_IMPROVE_LEDGER_SECRET ?? null;
    service.db = dbOf(runtime);
    await requireTables(service.db, Object.values(ledgerTables));
    service.store = new LedgerStore(service.db, runtime.agentId);
    const keyProblem = service.keyProblem(await service.store.last(), await service.store.head());
    if (keyProblem) runtime.logger.error({ src: LOG_SRC, agentId: runtime.agentId }, `${keyProblem}; appends are refused until it is fixed`);
    registerBuiltInSources(service, runtime);
    service.timer = setInterval(() => service.reconcileInBackground('interval'), service.settings.SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS);
    service.timer.unref?.();
    return service;
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue.catch(() => undefined);
  }

  /** Whether transactions are keyed (SELF_IMPROVE_LEDGER_SECRET is set). */
  get keyed(): boolean {
    return this.key !== null;
  }

  /** Names what a source store calls for, so reconciliation can compare it with the ledger. */
  registerExpected(source: string, expected: ExpectedEntries): void {
    this.expectedBySource.set(source, expected);
  }

  /**
   * Balance reconciliation (seed 000 §4), in one database transaction holding the ledger lock:
   * checks the chain and head, and compares the ledger with what its source stores call for. On
   * a mismatch scoring writes halt (appends wait for the lock), an audit record is written, and
   * recovery runs: a broken chain is cut back to its last valid transaction (the rows after it
   * are kept in the audit log), source records without their entry get it appended, and entries
   * no record accounts for are flagged for review in the audit log. Then scoring resumes. Runs
   * every SELF_IMPROVE_LEDGER_RECONCILE_EVERY new transactions and every
   * SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS.
   */
  reconcile(): Promise<ReconcileReport> {
    const work = this.queue.catch(() => undefined).then(() => this.db.transaction((t) => this.reconcileLocked(t)));
    this.queue = work;
    return work.then((report) => {
      this.lastReconciliation = report;
      return report;
    });
  }

  /** A reconciliation nobody awaits: a failure is logged (and the next one retries), never an unhandled rejection. */
  private reconcileInBackground(reason: 'interval' | 'every' | 'checksum'): void {
    this.reconcile().catch((error: unknown) => {
      this.runtime.logger.error({ src: LOG_SRC, agentId: this.runtime.agentId, reason, error: error instanceof Error ? error.message : String(error) }, 'ledger reconciliation failed; it runs again on the next trigger');
    });
  }

  private async reconcileLocked(t: Db): Promise<ReconcileReport> {
    await this.store.lock(t);
    this.sinceReconcile = 0;
    const report: ReconcileReport = { at: new Date().toISOString(), ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0 };
    let txs = await this.store.all(t);
    const keyProblem = this.keyProblem(txs[txs.length - 1] ?? null, await this.store.head(t));
    if (keyProblem) {
      // A missing or different key makes every keyed row look forged, and a head the key did not sign
      // may front rewritten rows: recovering would cut the first away and re-sign the second.
      this.runtime.logger.error({ src: LOG_SRC, agentId: this.runtime.agentId }, `${keyProblem}; reconciliation left the ledger as it is`);
      const first = { sequence: txs.length, id: `tx-${txs.length}`, code: 'key_mismatch' as const, message: keyProblem };
      await this.store.audit('key_mismatch', { problem: first }, t);
      return { ...report, ok: false, chain_problem: first };
    }
    const verification = await this.verifyRows(txs, t);
    if (!verification.ok) {
      report.ok = false;
      report.chain_problem = verification.first;
      await this.store.audit('chain_broken', { problem: verification.first }, t);
      report.quarantined = await this.store.quarantineFrom(t, verification.first.sequence, { problem: verification.first }, this.signHead);
      txs = await this.store.all(t);
    }
    const expected = new Map<string, ReadonlyMap<string, LedgerEntryInput>>();
    for (const [source, load] of this.expectedBySource) expected.set(source, await load(t));
    const diff = diffAgainstSources(txs, expected);
    report.unexpected = diff.unexpected.length;
    report.mismatched = diff.mismatched.length;
    if (diff.unexpected.length > 0 || diff.mismatched.length > 0) {
      report.ok = false;
      await this.store.audit('needs_review', { unexpected: diff.unexpected.slice(0, 100), mismatched: diff.mismatched.slice(0, 100), unexpected_count: diff.unexpected.length, mismatched_count: diff.mismatched.length }, t);
    }
    if (diff.missing.length > 0) {
      report.ok = false;
      await this.store.audit('missing_entries', { count: diff.missing.length, first: diff.missing.slice(0, 100) }, t);
      const items = diff.missing.map((input) => ({ input, timestamp: report.at }));
      const checks = items.map(({ input }) => checkEntry(input, this.categories));
      const appended = await this.appendLocked(t, items, checks, await this.existingSources(checks, t));
      report.appended = appended.results.filter((r) => r.ok && r.status === 'appended').length;
    }
    if (!report.ok) await this.store.audit('recovered', { ...report }, t);
    return report;
  }

  /** Audit records (reconciliations, quarantined rows, recoveries), newest first. */
  auditLog(limit = 20): Promise<LedgerAuditRecord[]> {
    return this.store.auditLog(limit);
  }

  registerCategory(category: string): void {
    this.categories.add(category);
  }

  /** Names a kind of source record and how to check that one exists. */
  registerSource(source: string, check: SourceCheck): void {
    this.sources.set(source, check);
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
    this.queue = this.queue.catch(() => undefined).then(() => this.flush());
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
      const checks = items.map(({ input }) => checkEntry(input, this.categories));
      const outcome = await this.appendLocked(savepoint, items, checks, await this.existingSources(checks, savepoint));
      this.afterAppend(outcome);
      return outcome.results;
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    try {
      const items = batch.flatMap((b) => b.items);
      const checks = items.map(({ input }) => checkEntry(input, this.categories));
      const found = await this.existingSources(checks, this.db);
      const outcome = await this.db.transaction((t) => this.appendLocked(t, items, checks, found));
      this.afterAppend(outcome);
      let at = 0;
      for (const b of batch) {
        b.resolve(outcome.results.slice(at, at + b.items.length));
        at += b.items.length;
      }
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  /** Why appends (and recovery) are refused now, or null (`keyProblemOf` with this process's key). */
  private keyProblem(tip: LedgerTransaction | null, head: SignedHead | null): string | null {
    return keyProblemOf(tip, head, this.key, this.runtime.agentId);
  }

  /**
   * The append itself, inside `t`: takes the ledger lock, reads the tip there (never a cached
   * one: another process may have appended), looks up which claims are already held, and writes
   * the new transactions and the head. Results in input order.
   */
  private async appendLocked(t: Db, items: readonly { input: unknown; timestamp: string }[], checks: readonly EntryCheck[], existing: Map<string, Set<string>>): Promise<LockedAppend> {
    await this.store.lock(t);
    let tip = await this.store.last(t);
    const keyProblem = this.keyProblem(tip, await this.store.head(t));
    if (keyProblem) {
      this.runtime.logger.error({ src: LOG_SRC, agentId: this.runtime.agentId }, `${keyProblem}; append refused`);
      return { results: checks.map(() => ({ ok: false, code: 'key_mismatch', field: '(ledger)', message: keyProblem })), appended: 0, checksumOk: true };
    }
    const claimable = checks.flatMap((c) => (c.ok && existing.get(c.entry.source)?.has(c.entry.source_ref) ? [c.entry] : []));
    const claimed = await this.store.claimed(t, claimable);
    const sumBefore = this.checksum && this.checksum.tipHash === (tip?.hash ?? null) ? this.checksum.sum : await this.store.pointsSum(t);
    const txs: LedgerTransaction[] = [];
    const results = checks.map((c, i): AppendResult => {
      if (!c.ok) return { ok: false, code: c.code, field: c.field, message: c.message };
      const entry = c.entry;
      if (!this.sources.has(entry.source)) {
        return { ok: false, code: 'unknown_source', field: 'source', message: `source must be one of ${[...this.sources.keys()].join(', ')} (got ${JSON.stringify(entry.source)})` };
      }
      if (!existing.get(entry.source)?.has(entry.source_ref)) {
        return { ok: false, code: 'source_not_found', field: 'source_ref', message: `no ${entry.source} record with id ${JSON.stringify(entry.source_ref)}` };
      }
      const claim = claimKeyOf(entry);
      const holder = claimed.get(claim);
      if (holder) return { ok: true, status: 'duplicate', transaction: holder };
      tip = nextTransaction(tip, entry, (items[i] as { timestamp: string }).timestamp, this.key);
      claimed.set(claim, tip);
      txs.push(tip);
      return { ok: true, status: 'appended', transaction: tip };
    });
    await this.store.append(t, txs, this.signHead);
    const sum = txs.reduce((s, tx) => s + tx.points, sumBefore);
    this.checksum = { tipHash: tip?.hash ?? null, sum };
    return { results, appended: txs.length, checksumOk: tip === null || sum === tip.running_total };
  }

  /** Reconciliation every SELF_IMPROVE_LEDGER_RECONCILE_EVERY transactions, and at once on a checksum mismatch (seed 000 §2). */
  private afterAppend(outcome: LockedAppend): void {
    this.sinceReconcile += outcome.appended;
    if (!outcome.checksumOk) {
      this.runtime.logger.error({ src: LOG_SRC, agentId: this.runtime.agentId, checksum: this.checksum }, 'ledger checksum mismatch after append; reconciling');
      this.checksum = null;
      this.sinceReconcile = 0;
      queueMicrotask(() => this.reconcileInBackground('checksum'));
    } else if (this.sinceReconcile >= this.settings.SELF_IMPROVE_LEDGER_RECONCILE_EVERY) {
      this.sinceReconcile = 0;
      queueMicrotask(() => this.reconcileInBackground('every'));
    }
  }

  /** Per source, which of the valid entries' records exist: one batched check per source, on `db`. */
  private async existingSources(checks: readonly EntryCheck[], db: Db): Promise<Map<string, Set<string>>> {
    const bySource = new Map<string, string[]>();
    for (const c of checks) {
      if (!c.ok) continue;
      const refs = bySource.get(c.entry.source) ?? [];
      refs.push(c.entry.source_ref);
      bySource.set(c.entry.source, refs);
    }
    const found = new Map<string, Set<string>>();
    for (const [source, refs] of bySource) {
      const check = this.sources.get(source);
      found.set(source, check ? await check(refs, db) : new Set<string>());
    }
    return found;
  }

  /** Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first bad transaction. */
  async verify(): Promise<LedgerVerification> {
    await this.queue.catch(() => undefined);
    return this.verifyRows(await this.store.all());
  }

  /** `verifyLedger` of these rows with the head read on `db` and this process's key. */
  private async verifyRows(txs: readonly LedgerTransaction[], db?: Db): Promise<LedgerVerification> {
    return verifyLedger(txs, await this.store.head(db), this.key, this.runtime.agentId);
  }

  /**
   * A signed head checkpoint of the ledger as it stands (`makeCheckpoint`), after verifying it:
   * kept outside the database, it lets `verifyCheckpoint` detect a later rewrite of everything up
   * to it. Needs SELF_IMPROVE_LEDGER_SECRET.
   */
  async checkpoint(nowIso = new Date().toISOString()): Promise<CheckpointResult> {
    if (this.key === null) return { ok: false, code: 'no_secret', message: 'a signed checkpoint needs SELF_IMPROVE_LEDGER_SECRET; it is not set' };
    await this.queue.catch(() => undefined);
    const txs = await this.store.all();
    const verification = await this.verifyRows(txs);
    if (!verification.ok) return { ok: false, code: 'ledger_invalid', message: `the ledger does not verify, so it is not signed: ${verification.first.message}` };
    return { ok: true, checkpoint: makeCheckpoint(this.runtime.agentId, txs, nowIso, this.key) };
  }

  /** The whole ledger verified, and checked against a checkpoint made earlier (`verifyAgainstCheckpoint`). */
  async verifyCheckpoint(checkpoint: LedgerCheckpoint): Promise<{ verification: LedgerVerification; checkpoint: CheckpointCheck | { ok: false; code: 'no_secret'; message: string } }> {
    await this.queue.catch(() => undefined);
    const txs = await this.store.all();
    const verification = await this.verifyRows(txs);
    if (this.key === null) {
      return { verification, checkpoint: { ok: false, code: 'no_secret', message: 'SELF_IMPROVE_LEDGER_SECRET is not set: the checkpoint signature cannot be checked' } };
    }
    return { verification, checkpoint: verifyAgainstCheckpoint(txs, checkpoint, this.key, this.runtime.agentId) };
  }

  async totals(): Promise<LedgerTotals> {
    return (await this.summary()).totals;
  }

  async metrics(): Promise<LedgerMetrics> {
    return (await this.summary()).metrics;
  }

  /**
   * Totals and metrics, read from the whole ledger once per ledger state: the dashboard asks for
   * both every 5 seconds, and the head (count and last hash, read from the database: another
   * process may have appended) names the state. Edits made to the table behind the ledger's back
   * show in `verify`, not here.
   */
  private async summary(): Promise<{ totals: LedgerTotals; metrics: LedgerMetrics }> {
    const head = await this.store.head();
    const state = head ? `${head.count}:${head.lastHash}` : 'empty';
    if (this.summaryCache && this.summaryCache.head === state) return this.summaryCache;
    const txs = await this.store.all();
    this.summaryCache = { head: state, totals: ledgerTotals(txs, this.sessionStartMs), metrics: ledgerMetrics(txs) };
    return this.summaryCache;
  }

  async history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    return history(await this.store.all(), query);
  }

  /** The seed's `progress.json` document (newest 1,000 transactions), checksum validated now. */
  async progressJson(nowIso = new Date().toISOString()): Promise<Record<string, unknown>> {
    await this.queue.catch(() => undefined);
    return buildProgressJson(await this.store.all(), this.sessionStartMs, nowIso);
  }
}

/** Waits until the runtime has started RewardLedgerService and returns it. */
export async function rewardLedgerOf(runtime: IAgentRuntime): Promise<RewardLedgerService> {
  return (await runtime.getServiceLoadPromise(REWARD_LEDGER_SERVICE as never)) as unknown as RewardLedgerService;
}
