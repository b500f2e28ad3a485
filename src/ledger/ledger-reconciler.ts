import type { IAgentRuntime } from '@elizaos/core';
import type { LedgerEntryInput, LedgerTransaction } from './model/chain';
import { ChainVerifier, type VerifiedMark } from './model/chain-check';
import { verifyAgainstHead } from './model/integrity';
import { diffAgainstSources, type ReconcileDiff } from './model/reconcile';
import { prefixDigits, type RefRange, refRanges, sameSummary } from './model/ref-ranges';
import { type LedgerAppender, LEDGER_LOG_SRC, type LockedAppend } from './ledger-appender';
import type { LedgerStore } from './ledger-store';
import type { ReconciledSource, ReconcileReport } from './ledger-types';
import type { SerialQueue } from '../shared/serial-queue';
import type { Db } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';

/** `full`: the whole chain is verified. `incremental`: only what follows the last verified transaction. */
export type ReconcileMode = 'full' | 'incremental';

/** A range of one reconciled source whose figures differ from the ledger's. */
interface Suspect {
  source: string;
  range: RefRange;
}

/** Automatic reconciliation waits for at least 1/LENGTH_SHARE of the ledger's length in new transactions. */
const LENGTH_SHARE = 4;

/**
 * Balance reconciliation (seed 000 §4) of one ledger: when it runs (every `every` new
 * transactions and on a timer, incrementally; at once and in full on a checksum mismatch or when
 * asked), what it compares and how it recovers. Its cost does not grow with what was already
 * reconciled, in memory or in any one step: the chain is read a page at a time (from the last
 * transaction verified, when incremental), and each reconciled source is compared with the ledger
 * by count, points and a record-id checksum per range of record ids, with rows read only in a
 * range whose figures differ. The event loop gets a turn between pages and ranges.
 */
export class LedgerReconciler {
  /** The last reconciliation's report, or null before the first. */
  lastReport: ReconcileReport | null = null;
  private readonly sources = new Map<string, ReconciledSource>();
  private sinceReconcile = 0;
  /** The last transaction a reconciliation of this process verified (kept while its hash stays the same). */
  private verified: VerifiedMark | null = null;
  /** The ledger's length when it was last reconciled. */
  private lastLength = 0;

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly db: Db,
    private readonly store: LedgerStore,
    private readonly appender: LedgerAppender,
    private readonly queue: SerialQueue,
    private readonly every: number,
  ) {}

  /** Names what a source store calls for, so reconciliation can compare it with the ledger. */
  registerExpected(source: string, expected: ReconciledSource): void {
    this.sources.set(source, expected);
  }

  /**
   * One reconciliation, queued with this process's appends. Outside the database lock: the chain
   * is verified (`mode`) and every range of every reconciled source summarised on both sides.
   * Then, in one database transaction holding the ledger lock: the chain since, the head, and the ranges that
   * differed row by row. On a mismatch scoring writes halt (appends wait for the lock), an audit
   * record is written, and recovery runs: a broken chain is cut back to its last valid transaction
   * (the rows after it are kept in the audit log, and every range is compared row by row), source
   * records without their entry get it appended, and entries no record accounts for are flagged
   * for review in the audit log.
   */
  async reconcile(mode: ReconcileMode = 'full'): Promise<ReconcileReport> {
    const report = await this.queue.run(async () => {
      const verified = await this.verifyUnlocked(mode === 'full' ? null : await this.stillVerified());
      const suspects = await this.suspectRanges();
      return this.db.transaction((t) => this.reconcileLocked(t, verified, suspects.suspects, suspects.compared));
    });
    this.lastReport = report;
    return report;
  }

  /** A reconciliation nobody awaits: a failure is logged (and the next one retries), never an unhandled rejection. */
  inBackground(reason: 'interval' | 'every' | 'checksum'): void {
    this.reconcile(reason === 'checksum' ? 'full' : 'incremental').catch((error: unknown) => {
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId, reason, error: error instanceof Error ? error.message : String(error) }, 'ledger reconciliation failed; it runs again on the next trigger');
    });
  }

  /**
   * After each append: reconciliation every `every` transactions or every quarter of the ledger's
   * length, whichever is more (a reconciliation reads each row once, so this keeps its cost per
   * appended transaction bounded at any length), and at once on a checksum mismatch (seed 000 §2).
   */
  afterAppend(outcome: LockedAppend): void {
    this.sinceReconcile += outcome.appended;
    if (!outcome.checksumOk) {
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId, checksum: this.appender.checksum }, 'ledger checksum mismatch after append; reconciling');
      this.appender.checksum = null;
      this.sinceReconcile = 0;
      queueMicrotask(() => this.inBackground('checksum'));
    } else if (this.sinceReconcile >= Math.max(this.every, Math.floor(this.lastLength / LENGTH_SHARE))) {
      this.sinceReconcile = 0;
      queueMicrotask(() => this.inBackground('every'));
    }
  }

  /** The mark of the last verification, when the transaction it names still has the hash it had (else nothing is taken as verified). */
  async stillVerified(): Promise<VerifiedMark | null> {
    const mark = this.verified;
    if (mark === null || (await this.store.hashAt(mark.last.sequence)) !== mark.last.hash) return null;
    return mark;
  }

  /** Verifies the chain after `from` a page at a time; returns the mark of its last valid transaction (the locked step goes on from there). */
  private async verifyUnlocked(from: VerifiedMark | null): Promise<VerifiedMark | null> {
    const verifier = ChainVerifier.resume(this.appender.key, from);
    await this.store.feedVerifier(verifier, this.db);
    return verifier.mark;
  }

  /** The ranges of each reconciled source whose count, points or checksum differ from the ledger's (none read row by row). */
  private async suspectRanges(db: Db = this.db): Promise<{ suspects: Suspect[]; compared: number }> {
    const ranges = refRanges(prefixDigits((await this.store.head(db))?.count ?? 0));
    const suspects: Suspect[] = [];
    for (const [source, expected] of this.sources) {
      for (const range of ranges) {
        const [wanted, held] = await Promise.all([expected.summary(db, range), this.store.rangeSummary(source, range, db)]);
        if (!sameSummary(wanted, held)) suspects.push({ source, range });
        await yieldToEventLoop();
      }
    }
    return { suspects, compared: ranges.length * this.sources.size };
  }

  private async reconcileLocked(t: Db, verified: VerifiedMark | null, suspects: Suspect[], compared: number): Promise<ReconcileReport> {
    await this.store.lock(t);
    this.sinceReconcile = 0;
    const report: ReconcileReport = { at: new Date().toISOString(), ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0, ranges_compared: compared, ranges_read: 0 };
    const head = await this.store.head(t);
    this.lastLength = head?.count ?? 0;
    const keyProblem = this.appender.keyProblem(await this.store.last(t), head);
    if (keyProblem) {
      // A missing or different key makes every keyed row look forged, and a head the key did not sign
      // may front rewritten rows: recovering would cut the first away and re-sign the second.
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId }, `${keyProblem}; reconciliation left the ledger as it is`);
      const count = head?.count ?? 0;
      const first = { sequence: count, id: `tx-${count}`, code: 'key_mismatch' as const, message: keyProblem };
      await this.store.audit('key_mismatch', { problem: first }, t);
      return { ...report, ok: false, chain_problem: first };
    }
    // The rows appended since the unlocked pass (or from the problem it stopped at), and the head.
    const verifier = ChainVerifier.resume(this.appender.key, verified);
    await this.store.feedVerifier(verifier, t);
    const verification = verifyAgainstHead(verifier.result(), verifier.last, head, this.appender.key, this.runtime.agentId);
    this.verified = verifier.mark;
    if (!verification.ok) {
      report.ok = false;
      report.chain_problem = verification.first;
      await this.store.audit('chain_broken', { problem: verification.first }, t);
      report.quarantined = await this.store.quarantineFrom(t, verification.first.sequence, { problem: verification.first }, this.appender.signHead);
      // Rows cut away were entries of some records: every range is compared again.
      ({ suspects } = await this.suspectRanges(t));
    }
    report.ranges_read = suspects.length;
    const diff = await this.diffRanges(t, suspects);
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

  /** The ledger compared row by row with its sources in the suspect ranges (read on `t`, under the lock). */
  private async diffRanges(t: Db, suspects: readonly Suspect[]): Promise<ReconcileDiff> {
    const diff: ReconcileDiff = { missing: [], unexpected: [], mismatched: [] };
    for (const { source, range } of suspects) {
      const expected = this.sources.get(source);
      if (!expected) continue;
      const txs: LedgerTransaction[] = await this.store.inRange(source, range, t);
      const wanted: ReadonlyMap<string, LedgerEntryInput> = await expected.entries(t, range);
      const part = diffAgainstSources(txs, new Map([[source, wanted]]));
      diff.missing.push(...part.missing);
      diff.unexpected.push(...part.unexpected);
      diff.mismatched.push(...part.mismatched);
      await yieldToEventLoop();
    }
    return diff;
  }
}
