import type { LedgerTransaction } from './model/chain';
import { type CheckpointCheck, checkAgainstCheckpoint, type LedgerCheckpoint, makeCheckpoint } from './model/checkpoint';
import { type LedgerVerification, verifyAgainstHead } from './model/integrity';
import { ChainVerifier, type VerifiedMark } from './model/chain-check';
import { PROGRESS_LOG_LIMIT, progressDocument } from './model/progress-json';
import { checkHistoryQuery, type HistoryQuery, type LedgerMetrics, type LedgerTotals, metricsOfFold, totalsOfFold } from './model/totals';
import type { LedgerFoldKeeper } from './ledger-fold';
import { type LedgerStore, VERIFY_PAGE } from './ledger-store';
import type { CheckpointResult } from './ledger-types';
import type { SerialQueue } from '../shared/serial-queue';
import { yieldToEventLoop } from '../shared/event-loop';

/**
 * What can be read and proved about one ledger: verification of the whole chain, signed head
 * checkpoints and checks against them, totals, metrics, history and `progress.json`. Reads that
 * must see every append asked for so far wait for the append queue to be idle first.
 */
export class LedgerInspector {
  constructor(
    private readonly store: LedgerStore,
    private readonly queue: SerialQueue,
    private readonly agentId: string,
    private readonly key: string | null,
    private readonly folds: LedgerFoldKeeper,
    /** The last transaction this process verified, while its hash is unchanged (`LedgerReconciler.stillVerified`); null: none. */
    private readonly verifiedMark: () => Promise<VerifiedMark | null> = async () => null,
    /** Told of the last transaction of a chain a verification or checkpoint found whole, so the next one resumes after it (`LedgerReconciler.remember`). */
    private readonly rememberVerified: (mark: VerifiedMark) => void = () => undefined,
  ) {}

  /**
   * Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first
   * bad transaction. Reads the ledger a page at a time and keeps one transaction of it in memory.
   */
  async verify(): Promise<LedgerVerification> {
    await this.queue.idle();
    return (await this.scanFrom(null)).verification;
  }

  /**
   * A signed head checkpoint of the ledger as it stands (`makeCheckpoint`), after verifying it:
   * kept outside the database, it lets `verifyCheckpoint` detect a later rewrite of everything up
   * to it. Needs SELF_IMPROVE_LEDGER_SECRET. The chain is verified from the last transaction this
   * process verified (a reconciliation, a verification or a checkpoint), when that one still has
   * the hash it had (a rewrite before it would have changed it), else from the start.
   */
  async checkpoint(nowIso = new Date().toISOString()): Promise<CheckpointResult> {
    if (this.key === null) return { ok: false, code: 'no_secret', message: 'a signed checkpoint needs SELF_IMPROVE_LEDGER_SECRET; it is not set' };
    await this.queue.idle();
    const { verification, last } = await this.scanFrom(await this.verifiedMark());
    if (!verification.ok) return { ok: false, code: 'ledger_invalid', message: `the ledger does not verify, so it is not signed: ${verification.first.message}` };
    return { ok: true, checkpoint: makeCheckpoint(this.agentId, last ? [last] : [], nowIso, this.key) };
  }

  /** The whole ledger verified, and checked against a checkpoint made earlier (`verifyAgainstCheckpoint`), in one paged read. */
  async verifyCheckpoint(checkpoint: LedgerCheckpoint): Promise<{ verification: LedgerVerification; checkpoint: CheckpointCheck | { ok: false; code: 'no_secret'; message: string } }> {
    await this.queue.idle();
    const { verification, prefix } = await this.scan(checkpoint.sequence);
    if (this.key === null) {
      return { verification, checkpoint: { ok: false, code: 'no_secret', message: 'SELF_IMPROVE_LEDGER_SECRET is not set: the checkpoint signature cannot be checked' } };
    }
    return { verification, checkpoint: checkAgainstCheckpoint(prefix.verifier.result(), prefix.verifier.last, prefix.rows, checkpoint, this.key, this.agentId) };
  }

  /**
   * One read of the whole ledger, a page at a time (the event loop gets a turn between pages):
   * the chain and head verified, and the chain of its first `prefixRows`
   * transactions verified on its own (what a checkpoint of that length covers).
   */
  private async scan(prefixRows: number): Promise<{ verification: LedgerVerification; prefix: { verifier: ChainVerifier; rows: number } }> {
    const whole = new ChainVerifier(this.key);
    const prefix = { verifier: new ChainVerifier(this.key), rows: 0 };
    let after = 0;
    let last: LedgerTransaction | null = null;
    for (;;) {
      const page = await this.store.after(after, VERIFY_PAGE);
      whole.add(page);
      if (prefix.rows < prefixRows) {
        const part = page.slice(0, prefixRows - prefix.rows);
        prefix.verifier.add(part);
        prefix.rows += part.length;
      }
      last = page[page.length - 1] ?? last;
      // After a problem nothing later changes the answer, once the prefix is read (or broken) too.
      const prefixDone = prefix.rows >= prefixRows || !prefix.verifier.ok;
      if (page.length < VERIFY_PAGE || (!whole.ok && prefixDone)) break;
      after = last?.sequence ?? after;
      await yieldToEventLoop();
    }
    const verification = verifyAgainstHead(whole.result(), whole.last, await this.store.head(), this.key, this.agentId);
    return { verification, prefix };
  }

  /**
   * The chain after `mark` (all of it when null) verified a page at a time, with the head; the last
   * transaction. A chain found whole is remembered: in a new process, before its first
   * reconciliation, every checkpoint verified the whole ledger again (8.7 s at 1M transactions).
   */
  private async scanFrom(mark: VerifiedMark | null): Promise<{ verification: LedgerVerification; last: LedgerTransaction | null }> {
    const verifier = ChainVerifier.resume(this.key, mark);
    await this.store.feedVerifier(verifier);
    const verification = verifyAgainstHead(verifier.result(), verifier.last, await this.store.head(), this.key, this.agentId);
    const verified = verifier.mark;
    if (verification.ok && verified !== null) this.rememberVerified(verified);
    return { verification, last: verifier.last };
  }

  async totals(): Promise<LedgerTotals> {
    return totalsOfFold(await this.folds.current());
  }

  async metrics(): Promise<LedgerMetrics> {
    return metricsOfFold(await this.folds.current());
  }

  /** The newest transactions (of one category, when given), newest first: one indexed query. */
  async history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    checkHistoryQuery(query);
    return query.limit === 0 ? [] : this.store.newest(query.limit, query.category);
  }

  /** The seed's `progress.json` document (newest 1,000 transactions), checksum validated now. */
  async progressJson(nowIso = new Date().toISOString()): Promise<Record<string, unknown>> {
    await this.queue.idle();
    const fold = await this.folds.current();
    return progressDocument(totalsOfFold(fold), metricsOfFold(fold), await this.store.newest(PROGRESS_LOG_LIMIT), nowIso);
  }
}

