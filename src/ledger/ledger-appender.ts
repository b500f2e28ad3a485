import type { IAgentRuntime } from '@elizaos/core';
import { checkEntry, type EntryCheck, type LedgerTransaction, nextTransaction } from './model/chain';
import { headMac } from './model/checkpoint';
import { claimKeyOf } from './model/claims';
import { keyProblemOf, type SignedHead } from './model/integrity';
import type { LedgerFoldKeeper } from './ledger-fold';
import type { HeadSigner, LedgerStore } from './ledger-store';
import type { AppendResult, SourceCheck } from './ledger-types';
import type { Db } from '../shared/sql';

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

export const LEDGER_LOG_SRC = 'plugin:self-improve:ledger';

/** An entry asked for, with the time it is stamped with. */
export interface AppendItem {
  input: unknown;
  timestamp: string;
}

/** Entries checked and their source records looked up, ready to append. */
export interface CheckedItems {
  items: readonly AppendItem[];
  checks: readonly EntryCheck[];
  existing: Map<string, Set<string>>;
}

/** What one locked append did, for the bookkeeping after it. */
export interface LockedAppend {
  results: AppendResult[];
  appended: number;
  checksumOk: boolean;
}

/**
 * The one way entries get into the ledger: checked against the category registry and their
 * source records, then chained onto the tip read under the ledger's lock inside the caller's
 * database transaction, so appends from any process are serialised by the database. Keeps the
 * sum of points as of the tip it wrote, so the checksum after an append needs no full read, and
 * extends the ledger's totals (`LedgerFoldKeeper`) by what it wrote.
 */
export class LedgerAppender {
  readonly categories = new Set<string>(DEFAULT_LEDGER_CATEGORIES);
  readonly sources = new Map<string, SourceCheck>();
  /**
   * Sum of the points in the database up to the transaction with this sequence and hash, read by
   * this process (`warmChecksum`) and carried along by its appends: the next append's checksum
   * starts from it while that transaction is still in the ledger.
   */
  checksum: { tipSequence: number; tipHash: string | null; sum: number } | null = null;
  /** Signs the head with the secret (null without one). */
  readonly signHead: HeadSigner = (count, lastHash) => (this.key === null ? null : headMac(this.runtime.agentId, count, lastHash, this.key));

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly store: LedgerStore,
    readonly key: string | null,
    private readonly folds: LedgerFoldKeeper,
  ) {}

  /**
   * Reads the sum of every transaction's points up to the tip (a range at a time, outside any
   * lock), so that the first append of this process does not (`sumBefore`). Run at start.
   */
  async warmChecksum(): Promise<void> {
    const tip = await this.store.last();
    const sum = await this.store.pointsSum(0, tip?.sequence ?? 0);
    this.checksum ??= { tipSequence: tip?.sequence ?? 0, tipHash: tip?.hash ?? null, sum };
  }

  /**
   * The sum of points in the database up to `tip`, read on `t` (which holds the lock): the kept
   * sum when it is of `tip`, plus the points of the rows after it when its transaction is still in
   * the ledger, else every row's (in ranges, with turns for the event loop between them).
   */
  private async sumBefore(t: Db, tip: LedgerTransaction | null): Promise<number> {
    if (tip === null) return 0;
    const known = this.checksum;
    if (known && known.tipHash === tip.hash) return known.sum;
    if (known && known.tipSequence < tip.sequence && (known.tipSequence === 0 || (await this.store.hashAt(known.tipSequence, t)) === known.tipHash)) {
      return known.sum + (await this.store.pointsSum(known.tipSequence, tip.sequence, t));
    }
    return this.store.pointsSum(0, tip.sequence, t);
  }

  /** Why appends (and recovery) are refused now, or null (`keyProblemOf` with this process's key). */
  keyProblem(tip: LedgerTransaction | null, head: SignedHead | null): string | null {
    return keyProblemOf(tip, head, this.key, this.runtime.agentId);
  }

  /** Checks `items` (category, sign, texts) and looks up their source records on `db`: one batched check per source. */
  async check(items: readonly AppendItem[], db: Db): Promise<CheckedItems> {
    const checks = items.map(({ input }) => checkEntry(input, this.categories));
    return { items, checks, existing: await this.existingSources(checks, db) };
  }

  /**
   * Appends the good entries of `checked` inside `t`: takes the ledger lock, reads the tip there
   * (never a cached one: another process may have appended), looks up which claims are already
   * held, and writes the new transactions and the head. Results in input order.
   */
  async append(t: Db, checked: CheckedItems): Promise<LockedAppend> {
    const { items, checks, existing } = checked;
    await this.store.lock(t);
    let tip = await this.store.last(t);
    const keyProblem = this.keyProblem(tip, await this.store.head(t));
    if (keyProblem) {
      this.runtime.logger.error({ src: LEDGER_LOG_SRC, agentId: this.runtime.agentId }, `${keyProblem}; append refused`);
      return { results: checks.map(() => ({ ok: false, code: 'key_mismatch', field: '(ledger)', message: keyProblem })), appended: 0, checksumOk: true };
    }
    const claimable = checks.flatMap((c) => (c.ok && existing.get(c.entry.source)?.has(c.entry.source_ref) ? [c.entry] : []));
    const claimed = await this.store.claimed(t, claimable);
    const sumBefore = await this.sumBefore(t, tip);
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
      tip = nextTransaction(tip, entry, (items[i] as AppendItem).timestamp, this.key);
      claimed.set(claim, tip);
      txs.push(tip);
      return { ok: true, status: 'appended', transaction: tip };
    });
    await this.store.append(t, txs, this.signHead);
    await this.folds.appended(t, txs);
    const sum = txs.reduce((s, tx) => s + tx.points, sumBefore);
    this.checksum = { tipSequence: tip?.sequence ?? 0, tipHash: tip?.hash ?? null, sum };
    return { results, appended: txs.length, checksumOk: tip === null || sum === tip.running_total };
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
}
