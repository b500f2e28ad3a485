import { type IAgentRuntime, Service } from '@elizaos/core';
import { type ChainProblem, checkEntry, type LedgerEntryInput, type LedgerTransaction, nextTransaction, verifyChain } from '../domain/ledger-chain';
import { history, type HistoryQuery, type LedgerMetrics, ledgerMetrics, type LedgerTotals, ledgerTotals } from '../domain/ledger-totals';
import { buildProgressJson } from '../domain/progress-json';
import { diffAgainstSources } from '../domain/ledger-reconcile';
import { loadConfig, type SelfImproveConfig } from '../config';
import { type LedgerAuditRecord, LedgerStore } from './ledger-store';
import { REWARD_LEDGER_SERVICE } from './service-names';
import { registerBuiltInSources } from './ledger-sources';
import { dbOf } from './sql';

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

/** Which of these record ids exist (seed 000 step 3: every entry's source record is checked before it is written). */
export type SourceCheck = (sourceRefs: readonly string[]) => Promise<Set<string>>;

/** The first thing `verify` found wrong. */
export type LedgerProblem = Extract<LedgerVerification, { ok: false }>['first'];

/** The entries a source store calls for, by record id. */
export type ExpectedEntries = () => Promise<ReadonlyMap<string, LedgerEntryInput>>;

/** What one reconciliation found and did. Snake_case: printed as JSON. */
export interface ReconcileReport {
  at: string;
  /** True when nothing had to be recovered or flagged. */
  ok: boolean;
  chain_problem: LedgerProblem | null;
  /** Rows moved to the audit log when a broken chain was cut back. */
  quarantined: number;
  /** Entries appended for source records that had none. */
  appended: number;
  unexpected: number;
  mismatched: number;
}

export type AppendResult = { ok: true; transaction: LedgerTransaction } | { ok: false; code: string; field: string; message: string };

/** `verify()`: the chain, and the head kept apart from the rows (so deleted last rows show too). */
export type LedgerVerification = { ok: true; count: number; total: number } | { ok: false; first: ChainProblem | { sequence: number; id: string; code: 'head_mismatch'; message: string }; checked: number };

/**
 * The reward ledger (seed 000): the single writer of every reward and penalty. Appends are
 * serialised in this process and group committed (rows + head in one database transaction), so
 * concurrent callers get consecutive `tx-<n>` ids, a correct running total and an unbroken chain.
 * Entries are checked against the category registry and their source record before they are
 * written; after each append the checksum (sum of rewards + sum of penalties = total) is checked.
 */
export class RewardLedgerService extends Service {
  static override serviceType = REWARD_LEDGER_SERVICE;
  override capabilityDescription = 'Tamper-evident, hash-chained ledger of every reward and penalty the agent earns';

  readonly sessionStartMs = Date.now();
  private store!: LedgerStore;
  private tip: LedgerTransaction | null = null;
  private sum = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending: { inputs: readonly unknown[]; timestamp: string; resolve: (r: AppendResult[]) => void; reject: (e: unknown) => void }[] = [];
  private readonly categories = new Set<string>(DEFAULT_LEDGER_CATEGORIES);
  private readonly sources = new Map<string, SourceCheck>();
  private readonly expectedBySource = new Map<string, ExpectedEntries>();
  private settings!: SelfImproveConfig;
  private sinceReconcile = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private summaryCache: { tipHash: string | null; totals: LedgerTotals; metrics: LedgerMetrics } | null = null;
  /** The last reconciliation's report, or null before the first. */
  lastReconciliation: ReconcileReport | null = null;

  static override async start(runtime: IAgentRuntime): Promise<RewardLedgerService> {
    const service = new RewardLedgerService(runtime);
    service.settings = loadConfig(runtime);
    service.store = new LedgerStore(dbOf(runtime), runtime.agentId);
    await service.store.ensureSchema();
    service.tip = await service.store.last();
    service.sum = await service.store.pointsSum();
    registerBuiltInSources(service, runtime);
    service.timer = setInterval(() => void service.reconcile(), service.settings.SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS);
    service.timer.unref?.();
    return service;
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue.catch(() => undefined);
  }

  /** Names what a source store calls for, so reconciliation can compare it with the ledger. */
  registerExpected(source: string, expected: ExpectedEntries): void {
    this.expectedBySource.set(source, expected);
  }

  /**
   * Balance reconciliation (seed 000 §4): checks the chain and head, and compares the ledger with
   * what its source stores call for. On a mismatch scoring writes halt — appends wait in the queue,
   * none are lost — an audit record is written, and recovery runs: a broken chain is cut back to
   * its last valid transaction (the rows after it are kept in the audit log), source records
   * without their entry get it appended, and entries no record accounts for are flagged for review
   * in the audit log. Then scoring resumes. Runs every SELF_IMPROVE_LEDGER_RECONCILE_EVERY new
   * transactions and every SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS.
   */
  reconcile(): Promise<ReconcileReport> {
    const work = this.queue.catch(() => undefined).then(() => this.reconcileNow());
    this.queue = work;
    return work;
  }

  private async reconcileNow(): Promise<ReconcileReport> {
    this.sinceReconcile = 0;
    this.sum = await this.store.pointsSum();
    const report: ReconcileReport = { at: new Date().toISOString(), ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0 };
    let txs = await this.store.all();
    const verification = await this.verifyRows(txs);
    if (!verification.ok) {
      report.ok = false;
      report.chain_problem = verification.first;
      await this.store.audit('chain_broken', { problem: verification.first });
      report.quarantined = await this.store.quarantineFrom(verification.first.sequence, { problem: verification.first });
      txs = await this.store.all();
      this.tip = txs[txs.length - 1] ?? null;
      this.sum = txs.reduce((sum, tx) => sum + tx.points, 0);
    }
    const expected = new Map<string, ReadonlyMap<string, LedgerEntryInput>>();
    for (const [source, load] of this.expectedBySource) expected.set(source, await load());
    const diff = diffAgainstSources(txs, expected);
    report.unexpected = diff.unexpected.length;
    report.mismatched = diff.mismatched.length;
    if (diff.unexpected.length > 0 || diff.mismatched.length > 0) {
      report.ok = false;
      await this.store.audit('needs_review', { unexpected: diff.unexpected.slice(0, 100), mismatched: diff.mismatched.slice(0, 100), unexpected_count: diff.unexpected.length, mismatched_count: diff.mismatched.length });
    }
    if (diff.missing.length > 0) {
      report.ok = false;
      await this.store.audit('missing_entries', { count: diff.missing.length, first: diff.missing.slice(0, 100) });
      const appended = await this.appendNow(diff.missing.map((input) => ({ input, timestamp: report.at })));
      report.appended = appended.filter((r) => r.ok).length;
    }
    if (!report.ok) await this.store.audit('recovered', { ...report });
    this.lastReconciliation = report;
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
   * transaction together, in arrival order, so concurrent callers never interleave inside a chain
   * step and 1,000 concurrent appends cost a few transactions, not 1,000.
   */
  appendMany(inputs: readonly unknown[], timestamp?: string): Promise<AppendResult[]> {
    const at = timestamp ?? new Date().toISOString();
    const waiting = new Promise<AppendResult[]>((resolve, reject) => this.pending.push({ inputs, timestamp: at, resolve, reject }));
    this.queue = this.queue.catch(() => undefined).then(() => this.flush());
    return waiting;
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    try {
      const results = await this.appendNow(batch.flatMap((b) => b.inputs.map((input) => ({ input, timestamp: b.timestamp }))));
      let at = 0;
      for (const b of batch) {
        b.resolve(results.slice(at, at + b.inputs.length));
        at += b.inputs.length;
      }
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  private async appendNow(items: readonly { input: unknown; timestamp: string }[]): Promise<AppendResult[]> {
    const checks = items.map(({ input }) => checkEntry(input, this.categories));
    const valid = checks.flatMap((c) => (c.ok ? [c.entry] : []));
    const existing = await this.existingSources(valid);
    const txs: LedgerTransaction[] = [];
    let tip = this.tip;
    const results = checks.map((c, i): AppendResult => {
      if (!c.ok) return { ok: false, code: c.code, field: c.field, message: c.message };
      const entry = c.entry;
      if (!this.sources.has(entry.source)) {
        return { ok: false, code: 'unknown_source', field: 'source', message: `source must be one of ${[...this.sources.keys()].join(', ')} (got ${JSON.stringify(entry.source)})` };
      }
      if (!existing.get(entry.source)?.has(entry.source_ref)) {
        return { ok: false, code: 'source_not_found', field: 'source_ref', message: `no ${entry.source} record with id ${JSON.stringify(entry.source_ref)}` };
      }
      tip = nextTransaction(tip, entry, (items[i] as { timestamp: string }).timestamp);
      txs.push(tip);
      return { ok: true, transaction: tip };
    });
    await this.store.append(txs);
    this.tip = tip;
    for (const tx of txs) this.sum += tx.points;
    this.sinceReconcile += txs.length;
    if (this.sinceReconcile >= this.settings.SELF_IMPROVE_LEDGER_RECONCILE_EVERY) {
      this.sinceReconcile = 0;
      queueMicrotask(() => void this.reconcile());
    }
    if (tip && this.sum !== tip.running_total) {
      // Checksum after the append (seed 000 §2): a mismatch halts scoring and recovers at once.
      this.runtime.logger.error({ src: 'plugin:self-improve:ledger', agentId: this.runtime.agentId, sum: this.sum, runningTotal: tip.running_total }, 'ledger checksum mismatch after append; reconciling');
      this.sinceReconcile = 0;
      queueMicrotask(() => void this.reconcile());
    }
    return results;
  }

  /** Per source, which of the entries' records exist: one batched check per source. */
  private async existingSources(entries: readonly LedgerEntryInput[]): Promise<Map<string, Set<string>>> {
    const bySource = new Map<string, string[]>();
    for (const e of entries) {
      const refs = bySource.get(e.source) ?? [];
      refs.push(e.source_ref);
      bySource.set(e.source, refs);
    }
    const found = new Map<string, Set<string>>();
    for (const [source, refs] of bySource) {
      const check = this.sources.get(source);
      found.set(source, check ? await check(refs).catch(() => new Set<string>()) : new Set<string>());
    }
    return found;
  }

  /** Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first bad transaction. */
  async verify(): Promise<LedgerVerification> {
    await this.queue.catch(() => undefined);
    return this.verifyRows(await this.store.all());
  }

  private async verifyRows(txs: readonly LedgerTransaction[]): Promise<LedgerVerification> {
    const chain = verifyChain(txs);
    if (!chain.ok) return chain;
    const head = await this.store.head();
    const last = txs[txs.length - 1];
    if ((head?.count ?? 0) !== txs.length || (last && head?.lastHash !== last.hash)) {
      const sequence = txs.length + 1;
      return {
        ok: false,
        checked: txs.length,
        first: { sequence, id: `tx-${sequence}`, code: 'head_mismatch', message: `the head records ${head?.count ?? 0} transactions ending in ${head?.lastHash ?? 'nothing'}; the log has ${txs.length}` },
      };
    }
    return chain;
  }

  async totals(): Promise<LedgerTotals> {
    return (await this.summary()).totals;
  }

  async metrics(): Promise<LedgerMetrics> {
    return (await this.summary()).metrics;
  }

  /**
   * Totals and metrics, read from the whole ledger once per ledger state: the dashboard asks for
   * both every 5 seconds, and the tip's hash names the state (a recovery that cuts the chain back
   * changes it too). Edits made to the table behind the ledger's back show in `verify`, not here.
   */
  private async summary(): Promise<{ totals: LedgerTotals; metrics: LedgerMetrics }> {
    const tipHash = this.tip?.hash ?? null;
    if (this.summaryCache && this.summaryCache.tipHash === tipHash) return this.summaryCache;
    const txs = await this.store.all();
    this.summaryCache = { tipHash, totals: ledgerTotals(txs, this.sessionStartMs), metrics: ledgerMetrics(txs) };
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
