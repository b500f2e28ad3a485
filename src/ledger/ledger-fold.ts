import { GENESIS_PREV_HASH, type LedgerTransaction } from './model/chain';
import { emptyFold, foldFromStore, foldToStore, foldTransactions, type LedgerFold } from './model/totals';
import type { LedgerStore } from './ledger-store';
import { SerialQueue } from '../shared/serial-queue';
import type { Db } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';

/** Transactions read per page while folding (the event loop gets a turn between pages). */
const FOLD_PAGE = 1_000;
/** At most this many transactions another append or process wrote are folded inside an append (the rest in the background). */
const CATCH_UP_IN_APPEND = 10_000;
/** The fold is stored again once it has grown by this many transactions. */
const STORE_EVERY = 1_000;

/**
 * The totals of one ledger kept current (`LedgerFold`): extended by every append of this process
 * from the transactions it has just written (`appended`, inside the appending transaction), and
 * by the rows appended since by anyone else when read (`current`). A read after this process's own
 * appends then reads no rows at all; after another process's, the rows it appended, a page at a
 * time. The fold is stored in `ledger_fold` (inside an appending transaction, so it commits with
 * the rows it covers) once it has grown by STORE_EVERY transactions: a new process starts from it.
 */
export class LedgerFoldKeeper {
  /**
   * The fold of the ledger as this process last read or wrote it. It may run ahead of what is
   * committed (an append whose transaction has not ended yet, and may roll back): a read uses it
   * only while the transaction it ends on is in the ledger with the hash it names.
   */
  private fold: LedgerFold | null = null;
  /** The last fold read from committed rows (or checked against them): what a read falls back to when `fold` turns out not to hold. */
  private confirmed: LedgerFold | null = null;
  private storedCount = -1;
  private readonly folding = new SerialQueue();
  private catchingUp = false;

  constructor(
    private readonly store: LedgerStore,
    private readonly sessionStartMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Inside an append's transaction `t` (holding the ledger lock), after `txs` were written: the
   * fold is extended by them when it ends on the transaction they chain to, and stored on `t` once
   * it has grown by STORE_EVERY. When it does not (another process appended since this one last
   * read, or it was never read), the rows are folded in the background once `t` has ended.
   */
  async appended(t: Db, txs: readonly LedgerTransaction[]): Promise<void> {
    const first = txs[0];
    if (!first) return;
    const base = this.endingAt(first) ?? (await this.caughtUp(t, first));
    if (!base) {
      this.catchUp();
      return;
    }
    this.fold = foldTransactions(base, txs);
    await this.storeIfGrown(this.fold, t);
  }

  /** The kept or the confirmed fold when it ends on the transaction `next` chains to. */
  private endingAt(next: LedgerTransaction): LedgerFold | null {
    return [this.fold, this.confirmed].find((f): f is LedgerFold => f !== null && endsOn(f, next)) ?? null;
  }

  /**
   * The confirmed fold extended, on `t`, by the rows between it and `next` when they are at most
   * CATCH_UP_IN_APPEND (appends of this process made while a read was folding, or a few of
   * another's); null when there are more (a background read folds them) or they do not lead to `next`.
   */
  private async caughtUp(t: Db, next: LedgerTransaction): Promise<LedgerFold | null> {
    const from = this.confirmed;
    const gap = next.sequence - 1 - (from?.lastSequence ?? 0);
    if (from === null || gap <= 0 || gap > CATCH_UP_IN_APPEND) return null;
    if (from.count > 0 && (await this.store.hashAt(from.lastSequence, t)) !== from.lastHash) return null;
    let fold = from;
    while (fold.lastSequence < next.sequence - 1) {
      const page = await this.store.after(fold.lastSequence, Math.min(FOLD_PAGE, next.sequence - 1 - fold.lastSequence), t);
      if (page.length === 0) return null;
      fold = foldTransactions(fold, page);
      await yieldToEventLoop();
    }
    return endsOn(fold, next) ? fold : null;
  }

  /** Folds the rows the fold lacks in the background (one catch-up queued at a time); a failure goes to `onError`. */
  catchUp(): void {
    if (this.catchingUp) return;
    this.catchingUp = true;
    this.current()
      .catch(this.onError)
      .finally(() => {
        this.catchingUp = false;
      });
  }

  /** Resolves once no read or catch-up is running. */
  idle(): Promise<void> {
    return this.folding.idle();
  }

  /**
   * The fold of the whole ledger as it stands: the kept fold — or the last confirmed one, or in a
   * new process the one stored in `ledger_fold` — extended by the transactions appended since, a
   * page at a time. When the ledger no longer continues any of them (rows cut back by recovery,
   * or the last folded row rewritten), it is folded again from the start. Edits made to older rows
   * behind the ledger's back show in `verify`, not here.
   */
  current(): Promise<LedgerFold> {
    return this.folding.run(async () => {
      let fold = await this.startingFold();
      for (;;) {
        const page = await this.store.after(fold.lastSequence, FOLD_PAGE);
        if (page.length === 0) break;
        fold = foldTransactions(fold, page);
        this.adopt(fold);
        await this.storeIfGrown(fold);
        if (page.length < FOLD_PAGE) break;
        await yieldToEventLoop();
        // Appends made meanwhile extended the kept fold past this one: go on from it while the ledger continues it.
        const kept = this.fold;
        if (kept && kept.lastSequence > fold.lastSequence && (await this.store.hashAt(kept.lastSequence)) === kept.lastHash) fold = kept;
      }
      this.adopt(fold);
      return fold;
    });
  }

  /** The first of the kept fold, the confirmed one and the stored one that the ledger continues (one head and one row read each), else the empty fold. */
  private async startingFold(): Promise<LedgerFold> {
    const head = await this.store.head();
    const candidates = [this.fold, this.confirmed];
    for (let i = 0; i <= candidates.length; i++) {
      const fold = i < candidates.length ? candidates[i] : foldFromStore(await this.store.storedFold(), this.sessionStartMs);
      if (!fold || head === null || head.count < fold.count) continue;
      if (fold.count === 0 || (await this.store.hashAt(fold.lastSequence)) === fold.lastHash) return fold;
    }
    return emptyFold(this.sessionStartMs);
  }

  /** `fold` was read from committed rows: it is confirmed, and kept unless the kept fold is already further on (appends made meanwhile). */
  private adopt(fold: LedgerFold): void {
    this.confirmed = fold;
    if (this.fold === null || this.fold.lastSequence <= fold.lastSequence) this.fold = fold;
  }

  private async storeIfGrown(fold: LedgerFold, db?: Db): Promise<void> {
    if (this.storedCount >= 0 && Math.abs(fold.count - this.storedCount) < STORE_EVERY) return;
    const stored = foldToStore(fold);
    if (stored === null) return;
    await this.store.storeFold(stored, db);
    this.storedCount = fold.count;
  }
}

/** Whether `fold` ends on the transaction `next` chains to. */
function endsOn(fold: LedgerFold, next: LedgerTransaction): boolean {
  return fold.lastSequence === next.sequence - 1 && (fold.lastHash ?? GENESIS_PREV_HASH) === next.prev_hash;
}
