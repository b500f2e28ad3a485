import type { LedgerTransaction } from './model/chain';
import { type CheckpointCheck, checkAgainstCheckpoint, type LedgerCheckpoint, makeCheckpoint } from './model/checkpoint';
import { type LedgerVerification, verifyAgainstHead } from './model/integrity';
import { ChainVerifier } from './model/chain-check';
import { PROGRESS_LOG_LIMIT, progressDocument } from './model/progress-json';
import { checkHistoryQuery, emptyFold, foldFromStore, foldToStore, foldTransactions, type HistoryQuery, type LedgerFold, type LedgerMetrics, type LedgerTotals, metricsOfFold, totalsOfFold } from './model/totals';
import type { LedgerStore } from './ledger-store';
import type { CheckpointResult } from './ledger-types';
import { SerialQueue } from '../shared/serial-queue';
import { yieldToEventLoop } from '../shared/event-loop';

/**
 * What can be read and proved about one ledger: verification of the whole chain, signed head
 * checkpoints and checks against them, totals, metrics, history and `progress.json`. Reads that
 * must see every append asked for so far wait for the append queue to be idle first.
 */
export class LedgerInspector {
  /** Totals of the transactions read so far; extended by the ones appended since (by any process). */
  private fold: LedgerFold | null = null;
  private readonly folding = new SerialQueue();

  constructor(
    private readonly store: LedgerStore,
    private readonly queue: SerialQueue,
    private readonly agentId: string,
    private readonly key: string | null,
    private readonly sessionStartMs: number,
  ) {}

  /**
   * Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first
   * bad transaction. Reads the ledger a page at a time and keeps one transaction of it in memory.
   */
  async verify(): Promise<LedgerVerification> {
    await this.queue.idle();
    return (await this.scan(0)).verification;
  }

  /**
   * A signed head checkpoint of the ledger as it stands (`makeCheckpoint`), after verifying it:
   * kept outside the database, it lets `verifyCheckpoint` detect a later rewrite of everything up
   * to it. Needs SELF_IMPROVE_LEDGER_SECRET.
   */
  async checkpoint(nowIso = new Date().toISOString()): Promise<CheckpointResult> {
    if (this.key === null) return { ok: false, code: 'no_secret', message: 'a signed checkpoint needs SELF_IMPROVE_LEDGER_SECRET; it is not set' };
    await this.queue.idle();
    const { verification, last } = await this.scan(0);
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
   * the chain and head verified, its last transaction, and the chain of its first `prefixRows`
   * transactions verified on its own (what a checkpoint of that length covers).
   */
  private async scan(prefixRows: number): Promise<{ verification: LedgerVerification; last: LedgerTransaction | null; prefix: { verifier: ChainVerifier; rows: number } }> {
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
    return { verification, last, prefix };
  }

  async totals(): Promise<LedgerTotals> {
    return totalsOfFold(await this.summary());
  }

  async metrics(): Promise<LedgerMetrics> {
    return metricsOfFold(await this.summary());
  }

  /** The newest transactions (of one category, when given), newest first: one indexed query. */
  async history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    checkHistoryQuery(query);
    return query.limit === 0 ? [] : this.store.newest(query.limit, query.category);
  }

  /** The seed's `progress.json` document (newest 1,000 transactions), checksum validated now. */
  async progressJson(nowIso = new Date().toISOString()): Promise<Record<string, unknown>> {
    await this.queue.idle();
    const fold = await this.summary();
    return progressDocument(totalsOfFold(fold), metricsOfFold(fold), await this.store.newest(PROGRESS_LOG_LIMIT), nowIso);
  }

  /**
   * The fold of the whole ledger as it stands: the cached fold — or, in a new process, the one
   * stored in `ledger_fold` — extended by the transactions appended since (by this process or
   * another), a page at a time. When the ledger no longer continues it (rows cut back by
   * recovery, or the last folded row rewritten), it is folded again from the start. A request
   * costs one head read plus the new rows, not the ledger's length; the fold is stored again once
   * it has grown by STORE_EVERY transactions. Edits made to older rows behind the ledger's back
   * show in `verify`, not here.
   */
  private summary(): Promise<LedgerFold> {
    return this.folding.run(async () => {
      const head = await this.store.head();
      let fold = this.fold ?? foldFromStore(await this.store.storedFold(), this.sessionStartMs);
      const continues = fold !== null && head !== null && head.count >= fold.count && (fold.count === 0 || (await this.store.hashAt(fold.lastSequence)) === fold.lastHash);
      if (!continues || fold === null) fold = emptyFold(this.sessionStartMs);
      for (;;) {
        const page = await this.store.after(fold.lastSequence, FOLD_PAGE);
        if (page.length === 0) break;
        fold = foldTransactions(fold, page);
        this.fold = fold;
        await this.storeIfGrown(fold);
        if (page.length < FOLD_PAGE) break;
        await yieldToEventLoop();
      }
      this.fold = fold;
      return fold;
    });
  }

  private storedCount = -1;

  private async storeIfGrown(fold: LedgerFold): Promise<void> {
    if (this.storedCount >= 0 && fold.count - this.storedCount < STORE_EVERY) return;
    const stored = foldToStore(fold);
    if (stored === null) return;
    await this.store.storeFold(stored);
    this.storedCount = fold.count;
  }
}

/** Transactions read per page while folding or verifying (the event loop gets a turn between pages). */
const FOLD_PAGE = 1_000;
const VERIFY_PAGE = 1_000;
/** The fold is stored again once it has grown by this many transactions. */
const STORE_EVERY = 1_000;
