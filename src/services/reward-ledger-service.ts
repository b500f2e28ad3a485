import { type IAgentRuntime, Service, type UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { type ChainProblem, checkEntry, type LedgerEntryInput, type LedgerTransaction, nextTransaction, verifyChain } from '../domain/ledger-chain';
import { history, type HistoryQuery, type LedgerMetrics, ledgerMetrics, type LedgerTotals, ledgerTotals } from '../domain/ledger-totals';
import { LedgerStore } from './ledger-store';
import { OUTCOMES_TABLE } from './outcome-store';
import { REWARD_LEDGER_SERVICE } from './service-names';
import { dbOf, queryRows } from './sql';

/** Categories every ledger accepts (seed 000 step 1: categories come from a registry); more with `registerCategory`. */
export const DEFAULT_LEDGER_CATEGORIES = [
  'finding_fixed',
  'finding_accepted',
  'finding_ignored',
  'false_positive',
  'finding_reopened',
  'trajectory_accepted',
  'rule_validated',
  'rule_violated',
  'guard_decision',
] as const;

/** Whether the record an entry points at exists (seed 000 step 3). */
export type SourceCheck = (sourceRef: string) => Promise<boolean>;

export type AppendResult = { ok: true; transaction: LedgerTransaction } | { ok: false; code: string; field: string; message: string };

/** `verify()`: the chain, and the head kept apart from the rows (so deleted last rows show too). */
export type LedgerVerification = { ok: true; count: number; total: number } | { ok: false; first: ChainProblem | { sequence: number; id: string; code: 'head_mismatch'; message: string }; checked: number };

/**
 * The reward ledger (seed 000): the single writer of every reward and penalty. Appends are
 * serialised in this process and each is one database transaction (row + head), so concurrent
 * callers get consecutive `tx-<n>` ids, a correct running total and an unbroken hash chain.
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
  private readonly categories = new Set<string>(DEFAULT_LEDGER_CATEGORIES);
  private readonly sources = new Map<string, SourceCheck>();

  static override async start(runtime: IAgentRuntime): Promise<RewardLedgerService> {
    const service = new RewardLedgerService(runtime);
    service.store = new LedgerStore(dbOf(runtime), runtime.agentId);
    await service.store.ensureSchema();
    service.tip = await service.store.last();
    service.sum = (await service.store.all()).reduce((s, tx) => s + tx.points, 0);
    service.registerSource('scan_outcome', async (ref) => {
      const rows = await queryRows(dbOf(runtime), sql`SELECT 1 FROM ${sql.raw(OUTCOMES_TABLE)} WHERE id = ${ref}::uuid AND agent_id = ${runtime.agentId}::uuid`);
      return rows.length > 0;
    });
    service.registerSource('trajectory', async (ref) => (await runtime.getMemoryById(ref as UUID)) !== null);
    return service;
  }

  override async stop(): Promise<void> {
    await this.queue.catch(() => undefined);
  }

  registerCategory(category: string): void {
    this.categories.add(category);
  }

  /** Names a kind of source record and how to check that one exists. */
  registerSource(source: string, check: SourceCheck): void {
    this.sources.set(source, check);
  }

  /** Checks an entry (category, sign, texts, source record) and appends it; expected failures come back as values with a code. */
  append(input: unknown, timestamp?: string): Promise<AppendResult> {
    const work = this.queue.catch(() => undefined).then(() => this.appendNow(input, timestamp ?? new Date().toISOString()));
    this.queue = work;
    return work;
  }

  private async appendNow(input: unknown, timestamp: string): Promise<AppendResult> {
    const checked = checkEntry(input, this.categories);
    if (!checked.ok) return { ok: false, code: checked.code, field: checked.field, message: checked.message };
    const entry: LedgerEntryInput = checked.entry;
    const check = this.sources.get(entry.source);
    if (!check) return { ok: false, code: 'unknown_source', field: 'source', message: `source must be one of ${[...this.sources.keys()].join(', ')} (got ${JSON.stringify(entry.source)})` };
    if (!(await check(entry.source_ref).catch(() => false))) {
      return { ok: false, code: 'source_not_found', field: 'source_ref', message: `no ${entry.source} record with id ${JSON.stringify(entry.source_ref)}` };
    }
    const tx = nextTransaction(this.tip, entry, timestamp);
    await this.store.append(tx);
    this.tip = tx;
    this.sum += tx.points;
    if (this.sum !== tx.running_total) {
      this.runtime.logger.error({ src: 'plugin:self-improve:ledger', agentId: this.runtime.agentId, sum: this.sum, runningTotal: tx.running_total }, 'ledger checksum mismatch after append');
    }
    return { ok: true, transaction: tx };
  }

  /** Checks the whole chain (hashes, links, sequence, running totals) and the head; names the first bad transaction. */
  async verify(): Promise<LedgerVerification> {
    await this.queue.catch(() => undefined);
    const txs = await this.store.all();
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
    return ledgerTotals(await this.store.all(), this.sessionStartMs);
  }

  async metrics(): Promise<LedgerMetrics> {
    return ledgerMetrics(await this.store.all());
  }

  async history(query: HistoryQuery): Promise<LedgerTransaction[]> {
    return history(await this.store.all(), query);
  }
}

/** Waits until the runtime has started RewardLedgerService and returns it. */
export async function rewardLedgerOf(runtime: IAgentRuntime): Promise<RewardLedgerService> {
  return (await runtime.getServiceLoadPromise(REWARD_LEDGER_SERVICE as never)) as unknown as RewardLedgerService;
}
