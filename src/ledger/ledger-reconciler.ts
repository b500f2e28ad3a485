import type { IAgentRuntime } from '@elizaos/core';
import type { LedgerEntryInput } from './model/chain';
import { verifyLedger } from './model/integrity';
import { diffAgainstSources } from './model/reconcile';
import { type LedgerAppender, LEDGER_LOG_SRC, type LockedAppend } from './ledger-appender';
import type { LedgerStore } from './ledger-store';
import type { ExpectedEntries, ReconcileReport } from './ledger-types';
import type { SerialQueue } from '../shared/serial-queue';
import type { Db } from '../shared/sql';

/**
 * Balance reconciliation (seed 000 §4) of one ledger: when it runs (every `every` new
 * transactions, at once on a checksum mismatch, and whenever asked), what it compares (the chain
 * and head, and the entries each registered source store calls for) and how it recovers.
 */
export class LedgerReconciler {
  /** The last reconciliation's report, or null before the first. */
  lastReport: ReconcileReport | null = null;
  private readonly expectedBySource = new Map<string, ExpectedEntries>();
  private sinceReconcile = 0;

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly db: Db,
    private readonly store: LedgerStore,
    private readonly appender: LedgerAppender,
    private readonly queue: SerialQueue,
    private readonly every: number,
  ) {}

  /** Names what a source store calls for, so reconciliation can compare it with the ledger. */
  registerExpected(source: string, expected: ExpectedEntries): void {
    this.expectedBySource.set(source, expected);
  }

  /**
   * One reconciliation, in one database transaction holding the ledger lock and queued with the
   * appends: checks the chain and head, and compares the ledger with what its source stores call
   * for. On a mismatch scoring writes halt (appends wait for the lock), an audit record is
   * written, and recovery runs: a broken chain is cut back to its last valid transaction (the
   * rows after it are kept in the audit log), source records without their entry get it
   * appended, and entries no record accounts for are flagged for review in the audit log.
   */
  async reconcile(): Promise<ReconcileReport> {
    const report = await this.queue.run(() => this.db.transaction((t) => this.reconcileLocked(t)));
    this.lastReport = report;
    return report;
  }

  /** A reconciliation nobody awaits: a failure is logged (and the next one retries), never an unhandled rejection. */
  inBackground(reason: 'interval' | 'every' | 'checksum'): void {
    this.reconcile().catch((error: unknown) => {
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId, reason, error: error instanceof Error ? error.message : String(error) }, 'ledger reconciliation failed; it runs again on the next trigger');
    });
  }

  /** After each append: reconciliation every `every` transactions, and at once on a checksum mismatch (seed 000 §2). */
  afterAppend(outcome: LockedAppend): void {
    this.sinceReconcile += outcome.appended;
    if (!outcome.checksumOk) {
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId, checksum: this.appender.checksum }, 'ledger checksum mismatch after append; reconciling');
      this.appender.checksum = null;
      this.sinceReconcile = 0;
      queueMicrotask(() => this.inBackground('checksum'));
    } else if (this.sinceReconcile >= this.every) {
      this.sinceReconcile = 0;
      queueMicrotask(() => this.inBackground('every'));
    }
  }

  private async reconcileLocked(t: Db): Promise<ReconcileReport> {
    await this.store.lock(t);
    this.sinceReconcile = 0;
    const report: ReconcileReport = { at: new Date().toISOString(), ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0 };
    let txs = await this.store.all(t);
    const head = await this.store.head(t);
    const keyProblem = this.appender.keyProblem(txs[txs.length - 1] ?? null, head);
    if (keyProblem) {
      // A missing or different key makes every keyed row look forged, and a head the key did not sign
      // may front rewritten rows: recovering would cut the first away and re-sign the second.
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId }, `${keyProblem}; reconciliation left the ledger as it is`);
      const first = { sequence: txs.length, id: `tx-${txs.length}`, code: 'key_mismatch' as const, message: keyProblem };
      await this.store.audit('key_mismatch', { problem: first }, t);
      return { ...report, ok: false, chain_problem: first };
    }
    const verification = verifyLedger(txs, head, this.appender.key, this.runtime.agentId);
    if (!verification.ok) {
      report.ok = false;
      report.chain_problem = verification.first;
      await this.store.audit('chain_broken', { problem: verification.first }, t);
      report.quarantined = await this.store.quarantineFrom(t, verification.first.sequence, { problem: verification.first }, this.appender.signHead);
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
      const appended = await this.appender.append(t, await this.appender.check(items, t));
      report.appended = appended.results.filter((r) => r.ok && r.status === 'appended').length;
    }
    if (!report.ok) await this.store.audit('recovered', { ...report }, t);
    return report;
  }
}
