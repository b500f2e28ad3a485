import type { IAgentRuntime } from '@elizaos/core';
import type { LedgerEntryInput, LedgerTransaction } from './model/chain';
import { ChainVerifier, type VerifiedMark } from './model/chain-check';
import { verifyAgainstHead } from './model/integrity';
import { resumableMark, signVerifiedMark } from './model/verified-mark';
import { diffAgainstSources, type ReconcileDiff } from './model/reconcile';
import { prefixDigits, type RefRange, refRanges, sameSummary } from './model/ref-ranges';
import { type LedgerAppender, LEDGER_LOG_SRC, type LockedAppend } from './ledger-appender';
import type { LedgerStore, ReconcileMark } from './ledger-store';
import type { ReconciledSource, ReconcileReport } from './ledger-types';
import type { SerialQueue } from '../shared/serial-queue';
import type { Db } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { errorText } from '../shared/error-text';

/** `full`: the whole chain is verified. `incremental`: only what follows the last verified transaction. */
export type ReconcileMode = 'full' | 'incremental';

/** Where one reconciled source differs from the ledger: a range of record ids whose figures differ, or records new since the last reconciliation that disagree with their entries. */
type Suspect = { source: string; range: RefRange } | { source: string; refs: string[] };

/** What the comparison outside the lock found, and how much it compared. `through`: the ledger length the new-records comparison went to (null: ranges were compared). */
interface Compared {
  suspects: Suspect[];
  ranges: number;
  records: number;
  through: number | null;
}

/** Ledger sequences an incremental reconciliation compares per statement. */
const NEW_ENTRIES_PAGE = 1_000;

/** An automatic reconciliation is a full one when the last full one ended longer ago than this (or never did). */
export const FULL_RECONCILE_EVERY_MS = 24 * 3_600_000;

/**
 * Balance reconciliation (seed 000 §4) of one ledger: when it runs (every `every` new
 * transactions and on a timer; in full at once on a checksum mismatch, once a day, and when
 * asked; else incrementally), what it compares and how it recovers. Its cost does not grow with
 * what was already reconciled, in memory or in any one step. The chain is read a page at a time
 * (from the last transaction verified, when incremental). A full reconciliation compares each
 * reconciled source with the ledger by count, points and a record-id checksum per range of record
 * ids, reading rows only in a range whose figures differ; an incremental one compares only what
 * is new since the last reconciliation, a page at a time, and so misses an edit of an older row
 * that keeps the chain intact (the next full one finds it). The event loop gets a turn between
 * pages and ranges.
 */
export class LedgerReconciler {
  /** The last reconciliation's report, or null before the first. */
  lastReport: ReconcileReport | null = null;
  private readonly sources = new Map<string, ReconciledSource>();
  private sinceReconcile = 0;
  /** The background reconciliation waiting its turn in the queue, if any (`inBackground`). */
  private backgroundWaiting: { mode: 'full' | 'scheduled' } | null = null;
  /**
   * The last transaction a reconciliation, verification or checkpoint of this process verified
   * (kept while its hash stays the same); at first, the one a reconciliation stored signed
   * (`storedMark`), when there is one.
   */
  private verified: VerifiedMark | null = null;
  /** The stored mark's reading, once per process (afterwards this process's own marks reach as far); null until it starts, and again after a failed read. */
  private storedMarkTaken: Promise<void> | null = null;

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
   * is verified (`mode`) and the sources compared with the ledger — in full, every range of every
   * reconciled source by its summary; incrementally, from where the last reconciliation (of any
   * process) left off, each ledger entry appended since against the record it names and each
   * record added since against the ledger (by ranges when there is no usable mark). Then, in one
   * database transaction holding the ledger lock: the chain since, the head, the entries appended
   * since (incremental), and what differed, row by row. On a mismatch scoring writes halt
   * (appends wait for the lock), an audit record is written, and recovery runs: a broken chain is
   * cut back to its last valid transaction (the rows after it are kept in the audit log, and
   * every range is compared row by row), source records without their entry get it appended, and
   * entries no record accounts for are flagged for review in the audit log. Where it left off is
   * stored with it.
   */
  reconcile(mode: ReconcileMode | 'scheduled' = 'full'): Promise<ReconcileReport> {
    return this.queue.run(() => this.reconcileNow(mode));
  }

  /** `reconcile`'s work, run in the queue. */
  private async reconcileNow(mode: ReconcileMode | 'scheduled'): Promise<ReconcileReport> {
    // Reconciliations queued behind one another start on a turn of the event loop each.
    await yieldToEventLoop();
    const full = mode === 'full' || (mode === 'scheduled' && (await this.fullDue()));
    // Records after these positions are for the next reconciliation.
    const positions = await this.positions();
    const mark = full ? null : await this.usableMark(positions);
    const verified = await this.verifyUnlocked(full ? null : await this.stillVerified());
    const compared = mark ? await this.newSuspects(this.db, mark, { count: (await this.store.head())?.count ?? 0, positions }) : await this.suspectRanges();
    const report = await this.db.transaction((t) => this.reconcileLocked(t, verified, compared, positions, full));
    this.lastReport = report;
    return report;
  }

  /** Whether the last full reconciliation (of any process) ended FULL_RECONCILE_EVERY_MS ago or more, or none did. */
  private async fullDue(): Promise<boolean> {
    const fullAtMs = (await this.store.reconcileMark())?.fullAtMs ?? null;
    return fullAtMs === null || Date.now() - fullAtMs >= FULL_RECONCILE_EVERY_MS;
  }

  /** A reconciliation nobody awaits: full on a checksum mismatch or when one is due (`fullDue`), else incremental. A failure is logged (and the next one retries), never an unhandled rejection. */
  inBackground(reason: 'interval' | 'every' | 'checksum'): void {
    const mode = reason === 'checksum' ? 'full' : 'scheduled';
    // One waiting reconciliation covers every request made before it starts (a 1M-row ingest
    // queued 109, which then ran back to back in a 376 ms stall); a checksum mismatch makes it full.
    if (this.backgroundWaiting) {
      if (mode === 'full') this.backgroundWaiting.mode = 'full';
      return;
    }
    const waiting: { mode: 'full' | 'scheduled' } = { mode };
    this.backgroundWaiting = waiting;
    this.queue
      .run(() => {
        this.backgroundWaiting = null;
        return this.reconcileNow(waiting.mode);
      })
      .catch((error: unknown) => {
        this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId, reason, error: errorText(error) }, 'ledger reconciliation failed; it runs again on the next trigger');
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

  /** Each reconciled source's position now. */
  private async positions(): Promise<Record<string, number>> {
    const positions: Record<string, number> = {};
    for (const [source, expected] of this.sources) positions[source] = await expected.position(this.db);
    return positions;
  }

  /**
   * The stored mark, when an incremental reconciliation can go on from it: the transaction it ends
   * on still there with the same hash (not cut away, nor cut and appended again), and every source
   * at or past its position; else ranges are compared.
   */
  private async usableMark(positions: Record<string, number>): Promise<ReconcileMark | null> {
    const mark = await this.store.reconcileMark();
    if (mark === null || (mark.count > 0 && (await this.store.hashAt(mark.count)) !== mark.lastHash)) return null;
    for (const [source, position] of Object.entries(positions)) {
      const from = mark.positions[source];
      if (from === undefined || from > position) return null;
    }
    return mark;
  }

  /**
   * The records new between two marks that disagree with the ledger: each entry appended after
   * `from.count` through `to.count` against what the record it names calls for, and each record
   * after its source's `from` position through its `to` position that calls for an entry the
   * ledger lacks. A page of entries per statement, the event loop free between them.
   */
  private async newSuspects(db: Db, from: Pick<ReconcileMark, 'count' | 'positions'>, to: Pick<ReconcileMark, 'count' | 'positions'>): Promise<Compared> {
    const suspects: Suspect[] = [];
    let records = 0;
    for (const [source, expected] of this.sources) {
      const refs = new Set<string>();
      for (let after = from.count; after < to.count; after += NEW_ENTRIES_PAGE) {
        const txs = await this.store.sourceBetween(source, after, Math.min(after + NEW_ENTRIES_PAGE, to.count), db);
        records += txs.length;
        const wanted = await expected.entriesFor(
          db,
          txs.map((tx) => tx.source_ref),
        );
        const part = diffAgainstSources(txs, new Map([[source, wanted]]));
        for (const row of [...part.unexpected, ...part.mismatched]) refs.add(row.source_ref);
        await yieldToEventLoop();
      }
      const [after, through] = [from.positions[source] ?? 0, to.positions[source] ?? 0];
      if (after < through) {
        const added = await expected.newRecords(db, after, through);
        records += added.count;
        for (const ref of added.unpaid.keys()) refs.add(ref);
      }
      if (refs.size > 0) suspects.push({ source, refs: [...refs] });
    }
    return { suspects, ranges: 0, records, through: to.count };
  }

  /** Takes `mark` (a chain a verification or checkpoint of this process found whole up to it) as verified, when it reaches further than the one kept. */
  remember(mark: VerifiedMark): void {
    if (this.verified === null || mark.last.sequence > this.verified.last.sequence) this.verified = mark;
  }

  /** The mark of the last verification, when the transaction it names still has the hash it had (else nothing is taken as verified). */
  async stillVerified(): Promise<VerifiedMark | null> {
    // Shared by callers that ask at once (a checkpoint beside a reconciliation), so none verifies from the start meanwhile.
    this.storedMarkTaken ??= this.storedMark().then(
      (stored) => {
        if (stored !== null) this.remember(stored);
      },
      (error: unknown) => {
        this.storedMarkTaken = null;
        throw error;
      },
    );
    await this.storedMarkTaken;
    const mark = this.verified;
    if (mark === null || (await this.store.hashAt(mark.last.sequence)) !== mark.last.hash) return null;
    return mark;
  }

  /** The mark a reconciliation stored (of any process), when it is signed with this ledger's secret and its transaction is still there as it was (`resumableMark`); null without a secret. */
  private async storedMark(): Promise<VerifiedMark | null> {
    const key = this.appender.key;
    if (key === null) return null;
    const stored = await this.store.verifiedMark();
    if (stored === null || !Number.isSafeInteger(stored.sequence) || stored.sequence < 1) return null;
    const [tx] = await this.store.after(stored.sequence - 1, 1);
    return resumableMark(stored, tx ?? null, this.runtime.agentId, key);
  }

  /** Verifies the chain after `from` a page at a time; returns the mark of its last valid transaction (the locked step goes on from there). */
  private async verifyUnlocked(from: VerifiedMark | null): Promise<VerifiedMark | null> {
    const verifier = ChainVerifier.resume(this.appender.key, from);
    await this.store.feedVerifier(verifier, this.db);
    return verifier.mark;
  }

  /** The ranges of each reconciled source whose count, points or checksum differ from the ledger's (none read row by row). */
  private async suspectRanges(db: Db = this.db): Promise<Compared> {
    const ranges = refRanges(prefixDigits((await this.store.head(db))?.count ?? 0));
    const suspects: Suspect[] = [];
    for (const [source, expected] of this.sources) {
      for (const range of ranges) {
        const [wanted, held] = await Promise.all([expected.summary(db, range), this.store.rangeSummary(source, range, db)]);
        if (!sameSummary(wanted, held)) suspects.push({ source, range });
        await yieldToEventLoop();
      }
    }
    return { suspects, ranges: ranges.length * this.sources.size, records: 0, through: null };
  }

  private async reconcileLocked(t: Db, verified: VerifiedMark | null, compared: Compared, positions: Record<string, number>, full: boolean): Promise<ReconcileReport> {
    await this.store.lock(t);
    this.sinceReconcile = 0;
    const report: ReconcileReport = { at: new Date().toISOString(), ok: true, chain_problem: null, quarantined: 0, appended: 0, unexpected: 0, mismatched: 0, ranges_compared: compared.ranges, ranges_read: 0, records_compared: compared.records, records_read: 0 };
    const head = await this.store.head(t);
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
    // For the next process: where the chain was found whole, signed (it commits with this reconciliation).
    if (verification.ok && this.verified !== null && this.appender.key !== null) {
      await this.store.saveVerifiedMark(t, signVerifiedMark(this.verified, this.runtime.agentId, this.appender.key));
    }
    let { suspects } = compared;
    if (!verification.ok) {
      report.ok = false;
      report.chain_problem = verification.first;
      await this.store.audit('chain_broken', { problem: verification.first }, t);
      report.quarantined = await this.store.quarantineFrom(t, verification.first.sequence, { problem: verification.first }, this.appender.signHead);
      // Rows cut away were entries of some records: every range is compared again.
      const again = await this.suspectRanges(t);
      ({ suspects } = again);
      report.ranges_compared = again.ranges;
    } else if (compared.through !== null) {
      // Entries appended while the comparison ran (the records' positions stay those read before it).
      const since = await this.newSuspects(t, { count: compared.through, positions }, { count: head?.count ?? 0, positions });
      suspects = [...suspects, ...since.suspects];
      report.records_compared += since.records;
    }
    report.ranges_read = suspects.filter((s) => 'range' in s).length;
    report.records_read = suspects.reduce((n, s) => n + ('refs' in s ? s.refs.length : 0), 0);
    const diff = await this.diffSuspects(t, suspects);
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
    const end = await this.store.head(t);
    await this.store.saveReconcileMark(t, { count: end?.count ?? 0, lastHash: end?.lastHash ?? null, positions }, full);
    return report;
  }

  /** The ledger compared row by row with its sources where they differed (read on `t`, under the lock): a range, or the records named. */
  private async diffSuspects(t: Db, suspects: readonly Suspect[]): Promise<ReconcileDiff> {
    const diff: ReconcileDiff = { missing: [], unexpected: [], mismatched: [] };
    for (const suspect of suspects) {
      const expected = this.sources.get(suspect.source);
      if (!expected) continue;
      const [txs, wanted]: [LedgerTransaction[], ReadonlyMap<string, LedgerEntryInput>] =
        'range' in suspect
          ? [await this.store.inRange(suspect.source, suspect.range, t), await expected.entries(t, suspect.range)]
          : [await this.store.ofRefs(suspect.source, suspect.refs, t), await expected.entriesFor(t, suspect.refs)];
      const part = diffAgainstSources(txs, new Map([[suspect.source, wanted]]));
      diff.missing.push(...part.missing);
      diff.unexpected.push(...part.unexpected);
      diff.mismatched.push(...part.mismatched);
      await yieldToEventLoop();
    }
    return diff;
  }
}
