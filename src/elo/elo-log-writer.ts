import type { IAgentRuntime } from '@elizaos/core';
import type { Exposures } from './model/exposures';
import type { EloItemState, EloStore } from './elo-store';
import type { EloLogName } from './tables';
import { SerialQueue } from '../shared/serial-queue';
import { errorText } from '../shared/error-text';

/** Pending changes written in one go once this many have gathered (or at the next flush). */
const FLUSH_AFTER_CHANGES = 500;

const noLogs = (): Record<EloLogName, object[]> => ({ updates: [], searches: [], sessions: [] });

/**
 * What the ELO book has changed and not yet written: items marked dirty, log entries in the seed
 * formats, and the exposures changed since the last write. A flush writes all of it in one
 * database transaction, one flush at a time; a crash loses at most the last unwritten batch and
 * never leaves a half-written one.
 */
export class EloLogWriter {
  private readonly dirty = new Set<string>();
  /** Keys being written: kept in memory until the write ends (a failed one makes them dirty again). */
  private readonly writing = new Set<string>();
  private logs = noLogs();
  private entriesQueued = 0;
  private readonly writes = new SerialQueue();
  private flushScheduled = false;

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly store: EloStore,
    /** The book's items in memory by key: a dirty key is written as the item is at the flush. */
    private readonly items: { peek(key: string): EloItemState | undefined },
    private readonly exposures: Exposures,
    /** Changed items after which a write starts (the book's memory bound). */
    private readonly maxDirty = Number.POSITIVE_INFINITY,
    /** Called after each write, written or not (the book evicts what it may). */
    private readonly afterWrite: () => void = () => undefined,
  ) {}

  /** Whether the item has changes not yet written (or being written): it must stay in memory. */
  isPinned(key: string): boolean {
    return this.dirty.has(key) || this.writing.has(key);
  }

  /** Log entries queued since start: changes whenever the book does. */
  get version(): number {
    return this.entriesQueued;
  }

  /** Items changed and not yet written (nor being written). */
  get dirtyItems(): number {
    return this.dirty.size;
  }

  /** Changes not yet written to the database. */
  get pendingChanges(): number {
    return this.logs.updates.length + this.logs.searches.length + this.logs.sessions.length;
  }

  log(name: EloLogName, ...entries: object[]): void {
    this.logs[name].push(...entries);
    this.entriesQueued += entries.length;
  }

  markDirty(key: string): void {
    this.dirty.add(key);
  }

  /**
   * Writes every pending change now, in one database transaction. Never rejects: a failed write
   * is logged and its batch goes back to the front of the queue (items stay dirty, log entries
   * keep their order ahead of newer ones, exposures are marked changed), so the next flush writes
   * it; nothing is lost while the process lives.
   */
  flush(): Promise<void> {
    return this.writes.run(async () => {
      const keys = [...this.dirty];
      const items = keys.map((k) => ({ ...(this.items.peek(k) as EloItemState) }));
      const logs = this.logs;
      this.dirty.clear();
      this.logs = noLogs();
      const exposures = this.exposures.takeChanges();
      if (items.length === 0 && exposures.length === 0 && Object.values(logs).every((l) => l.length === 0)) return;
      for (const k of keys) this.writing.add(k);
      try {
        await this.store.write(items, logs, exposures);
      } catch (error) {
        for (const k of keys) this.dirty.add(k);
        for (const name of Object.keys(logs) as EloLogName[]) this.logs[name] = [...logs[name], ...this.logs[name]];
        this.exposures.requeue(exposures);
        this.runtime.logger.warn(
          { src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, items: items.length, error: errorText(error) },
          'ELO batch not written; kept for the next flush',
        );
      } finally {
        this.writing.clear();
        this.afterWrite();
      }
    });
  }

  /** A full batch (or as many changed items as the book may hold) is written on the next turn of the event loop, not inside the provider or call that filled it. */
  flushIfFull(): void {
    if ((this.pendingChanges < FLUSH_AFTER_CHANGES && this.dirty.size < this.maxDirty) || this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      void this.flush();
    }, 0);
  }

  /** The newest entries of a log, newest first, after writing what is pending. */
  async entries(name: EloLogName, limit: number): Promise<Record<string, unknown>[]> {
    await this.flush();
    return this.store.log(name, limit);
  }
}
