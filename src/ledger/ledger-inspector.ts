import type { LedgerTransaction } from './model/chain';
import { type CheckpointCheck, type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from './model/checkpoint';
import { type LedgerVerification, verifyLedger } from './model/integrity';
import { buildProgressJson } from './model/progress-json';
import { history, type HistoryQuery, type LedgerMetrics, ledgerMetrics, type LedgerTotals, ledgerTotals } from './model/totals';
import type { LedgerStore } from './ledger-store';
import type { CheckpointResult } from './ledger-types';
import type { SerialQueue } from '../shared/serial-queue';

/**
 * What can be read and proved about one ledger: verification of the whole chain, signed head
 * checkpoints and checks against them, totals, metrics, history and `progress.json`. Reads that
 * must see every append asked for so far wait for the append queue to be idle first.
 */
export class LedgerInspector {
  private summaryCache: { head: string; totals: LedgerTotals; metrics: LedgerMetrics } | null = null;

  constructor(
    private readonly store: LedgerStore,
    private readonly queue: SerialQueue,
    private readonly agentId: string,
    private readonly key: string | null,
    private readonly sessionStartMs: number,
  ) {}

  /** Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first bad transaction. */
  async verify(): Promise<LedgerVerification> {
    await this.queue.idle();
    return this.verifyRows(await this.store.all());
  }

  /**
   * A signed head checkpoint of the ledger as it stands (`makeCheckpoint`), after verifying it:
   * kept outside the database, it lets `verifyCheckpoint` detect a later rewrite of everything up
   * to it. Needs SELF_IMPROVE_LEDGER_SECRET.
   */
  async checkpoint(nowIso = new Date().toISOString()): Promise<CheckpointResult> {
    if (this.key === null) return { ok: false, code: 'no_secret', message: 'a signed checkpoint needs SELF_IMPROVE_LEDGER_SECRET; it is not set' };
    await this.queue.idle();
    const txs = await this.store.all();
    const verification = await this.verifyRows(txs);
    if (!verification.ok) return { ok: false, code: 'ledger_invalid', message: `the ledger does not verify, so it is not signed: ${verification.first.message}` };
    return { ok: true, checkpoint: makeCheckpoint(this.agentId, txs, nowIso, this.key) };
  }

  /** The whole ledger verified, and checked against a checkpoint made earlier (`verifyAgainstCheckpoint`). */
  async verifyCheckpoint(checkpoint: LedgerCheckpoint): Promise<{ verification: LedgerVerification; checkpoint: CheckpointCheck | { ok: false; code: 'no_secret'; message: string } }> {
    await this.queue.idle();
    const txs = await this.store.all();
    const verification = await this.verifyRows(txs);
    if (this.key === null) {
      return { verification, checkpoint: { ok: false, code: 'no_secret', message: 'SELF_IMPROVE_LEDGER_SECRET is not set: the checkpoint signature cannot be checked' } };
    }
    return { verification, checkpoint: verifyAgainstCheckpoint(txs, checkpoint, this.key, this.agentId) };
  }

  async totals(): Promise<LedgerTotals> {
    return (await this.summary()).totals;
  }

  async metrics(): Promise<LedgerMetrics> {
    return (await this.summary()).metrics;
  }

  async history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    return history(await this.store.all(), query);
  }

  /** The seed's `progress.json` document (newest 1,000 transactions), checksum validated now. */
  async progressJson(nowIso = new Date().toISOString()): Promise<Record<string, unknown>> {
    await this.queue.idle();
    return buildProgressJson(await this.store.all(), this.sessionStartMs, nowIso);
  }

  /** `verifyLedger` of these rows with the stored head and this process's key. */
  private async verifyRows(txs: readonly LedgerTransaction[]): Promise<LedgerVerification> {
    return verifyLedger(txs, await this.store.head(), this.key, this.agentId);
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
}
