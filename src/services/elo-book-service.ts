import { type IAgentRuntime, Service } from '@elizaos/core';
import { applyRankBoost, INITIAL_ELO_BY_TIER, updateElo } from '../domain/elo';
import { ELO_BOOK_SERVICE } from './service-names';
import { ELO_LOG_TABLE, type EloRow, EloStore, SEARCH_LOG_TABLE } from './elo-store';
import { dbOf } from './sql';

/** Pending changes written in one go once this many have gathered (or at the next flush tick). */
const FLUSH_AFTER_CHANGES = 500;
const FLUSH_INTERVAL_MS = 5_000;

/** An item a retrieval returned, at its rank (1 = first). */
export interface RetrievedItem {
  kind: string;
  id: string;
  rank: number;
  similarity?: number;
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/**
 * The ELO book (seed 002): a rating for every item the agent retrieves or reports (lessons, rules,
 * memories, files, symbols …). Retrievals give rank boosts (+16 first, +8 ranks 2–5, +4 ranks 6–10);
 * outcomes move the items that were in use when a reward (win) or penalty (loss) came back. Every
 * change is logged in the seed's ELO update format, every retrieval in the search-log format.
 * Changes are kept in memory and written in batches, in one database transaction each; a crash
 * loses at most the last unwritten batch and never leaves a half-written one.
 */
export class EloBookService extends Service {
  static override serviceType = ELO_BOOK_SERVICE;
  override capabilityDescription = 'ELO ratings of what the agent knows, from usage and outcomes';

  private store!: EloStore;
  private readonly items = new Map<string, EloRow>();
  private readonly dirty = new Set<string>();
  private updateLog: object[] = [];
  private searchLog: object[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;

  static override async start(runtime: IAgentRuntime): Promise<EloBookService> {
    const service = new EloBookService(runtime);
    service.store = new EloStore(dbOf(runtime), runtime.agentId);
    await service.store.ensureSchema();
    for (const row of await service.store.load()) service.items.set(keyOf(row.kind, row.id), row);
    service.timer = setInterval(() => void service.flush(), FLUSH_INTERVAL_MS);
    service.timer.unref?.();
    return service;
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /** An item's rating, or undefined for an item never seen. */
  rating(kind: string, id: string): EloRow | undefined {
    return this.items.get(keyOf(kind, id));
  }

  /** Changes not yet written to the database. */
  get pendingChanges(): number {
    return this.updateLog.length + this.searchLog.length;
  }

  /** Records a retrieval (seed 002 §1) and gives each returned item its rank boost. */
  recordRetrieval(retrieval: { tool: string; query: string; results: readonly RetrievedItem[]; sessionId?: string }, atMs = Date.now()): void {
    const timestamp = new Date(atMs).toISOString();
    this.searchLog.push({
      session_id: retrieval.sessionId ?? this.runtime.agentId,
      timestamp,
      tool: retrieval.tool,
      query: retrieval.query,
      results: retrieval.results.map((r) => ({ hash: r.id, entity_type: r.kind, rank: r.rank, ...(r.similarity === undefined ? {} : { similarity: r.similarity }) })),
    });
    for (const r of retrieval.results) {
      const item = this.itemFor(r.kind, r.id, atMs);
      const boosted = applyRankBoost(item.elo, r.rank);
      item.lastUsedMs = atMs;
      if (boosted.delta !== 0) this.change(item, boosted.elo, item.updates, `${retrieval.tool}_rank_${r.rank}`, timestamp);
      else this.dirty.add(keyOf(item.kind, item.id));
    }
    this.flushIfFull();
  }

  /**
   * An outcome came back while these items were in use: a reward is a win (1), a penalty a loss (0).
   * Each item moves by `K × (outcome − expected)`.
   */
  recordOutcome(items: readonly { kind: string; id: string }[], outcome: 0 | 1, reason: string, atMs = Date.now()): void {
    const timestamp = new Date(atMs).toISOString();
    for (const { kind, id } of items) {
      const item = this.itemFor(kind, id, atMs);
      const next = updateElo({ elo: item.elo, updates: item.updates }, outcome);
      this.change(item, next.elo, next.updates, reason, timestamp);
    }
    this.flushIfFull();
  }

  /** Writes every pending change now, in one database transaction. */
  flush(): Promise<void> {
    const items = [...this.dirty].map((k) => this.items.get(k) as EloRow).map((i) => ({ ...i }));
    const updates = this.updateLog;
    const searches = this.searchLog;
    this.dirty.clear();
    this.updateLog = [];
    this.searchLog = [];
    const write = this.writing.then(() => (items.length + updates.length + searches.length > 0 ? this.store.write(items, updates, searches) : undefined));
    this.writing = write.catch((error: unknown) => {
      this.runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'ELO batch not written');
    });
    return this.writing;
  }

  /** The newest ELO updates (seed 002 §3 format), newest first. */
  async updateLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    await this.flush();
    return this.store.log(ELO_LOG_TABLE, limit);
  }

  /** The newest retrievals (seed 002 §1 format), newest first. */
  async searchLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    await this.flush();
    return this.store.log(SEARCH_LOG_TABLE, limit);
  }

  private itemFor(kind: string, id: string, atMs: number): EloRow {
    const key = keyOf(kind, id);
    let item = this.items.get(key);
    if (!item) {
      item = { kind, id, elo: INITIAL_ELO_BY_TIER.MEDIUM, startElo: INITIAL_ELO_BY_TIER.MEDIUM, updates: 0, lastUsedMs: atMs };
      this.items.set(key, item);
      this.dirty.add(key);
    }
    return item;
  }

  private change(item: EloRow, elo: number, updates: number, reason: string, timestamp: string): void {
    this.updateLog.push({ timestamp, entity_type: item.kind, entity_id: item.id, elo_old: item.elo, elo_new: elo, delta: elo - item.elo, reason });
    item.elo = elo;
    item.updates = updates;
    this.dirty.add(keyOf(item.kind, item.id));
  }

  private flushIfFull(): void {
    if (this.pendingChanges >= FLUSH_AFTER_CHANGES) void this.flush();
  }
}

/** Waits until the runtime has started EloBookService and returns it. */
export async function eloBookOf(runtime: IAgentRuntime): Promise<EloBookService> {
  return (await runtime.getServiceLoadPromise(ELO_BOOK_SERVICE as never)) as unknown as EloBookService;
}
