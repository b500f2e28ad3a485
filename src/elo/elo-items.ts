import type { IAgentRuntime } from '@elizaos/core';
import type { ContextIndex } from './model/context-index';
import type { Exposures, ItemRef } from './model/exposures';
import type { EloBookSettings } from './elo-book-settings';
import { EloHotSet, ratingKey } from './elo-hot-set';
import { EloLogWriter } from './elo-log-writer';
import { EloRatings } from './elo-ratings';
import type { EloItemState, EloStore } from './elo-store';
import { countable, countedFigures } from './elo-counted-report';
import type { ItemFigures } from './model/stats';
import { ELO_LOGS, type EloLogName } from './tables';
import { EloLogSamples, REPORT_LOG_SAMPLE } from './elo-log-samples';
import { checkLogEntries } from './model/log-entries';
import { sessionsForMetrics } from './model/success-metrics';
import { chunks } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { errorText } from '../shared/error-text';

/**
 * Counted buckets moved per transaction, with a turn of the event loop between transactions. On the
 * 1M bench database an UPDATE of 500 items' buckets took 98 ms (items spread over the table, cold).
 */
export const ADVANCE_BATCH = 100;
/**
 * Items start-up reads at once (the most recently used); a larger book is read into memory in the
 * background (`warmUp`). 5,000 were one statement of about 125 ms on the 1M bench database.
 */
const START_ITEMS = 1_000;
/** Keys per read of the warm-up's key list (5,000 took 55–101 ms a read on the 1M bench database). */
const WARM_KEYS_PAGE = 1_000;
/**
 * Items per step of the warm-up: one read of their states (`EloStore.loadItems` reads 500 a
 * statement) and their admission, with a turn of the event loop after each step. 5,000 a step were
 * ten statements and the indexing of 5,000 bodies between two turns: stalls of about 200 ms on the
 * 1M bench database; 500 a step still held the event loop 55–90 ms a step there (the admission,
 * after a 10 ms read), while the start-up's other background reads ran beside it.
 */
const WARM_PAGE = 100;
/**
 * Log entries checked against their schema between two turns of the event loop while the report's
 * samples are warmed. A session entry names up to 500 items, each checked: 250 entries a slice
 * were a stall of 168 ms after start on the 1M bench database (bench/stall-trace.ts under
 * --cpu-prof: the check and `sessionItems`).
 */
const CHECK_SLICE = 25;

/**
 * The report's samples as they are kept: the session log's as the Success Metrics read it
 * (`sessionsForMetrics`), checked CHECK_SLICE entries at a time with a turn of the event loop
 * between slices; the other logs' whole.
 */
async function slimSample(name: EloLogName, entries: readonly Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  if (name !== 'sessions') return [...entries];
  const out: Record<string, unknown>[] = [];
  let named = 0;
  for (const slice of chunks(entries, CHECK_SLICE)) {
    const slimmed = sessionsForMetrics(slice, named);
    out.push(...slimmed.entries);
    named = slimmed.named;
    if (out.length < entries.length) await yieldToEventLoop();
  }
  return out;
}

/**
 * The ELO book's items: at most SELF_IMPROVE_ELO_HOT_ITEMS in memory (`EloHotSet`), the rest in
 * the database, read when an update or a reader needs them; the ratings (`EloRatings`) and the
 * batched writes (`EloLogWriter`) over them. Start-up reads the 5,000 most recently used items;
 * the others, up to the bound, are read in the background (`warmUp`), and until then an item not
 * in memory is read when needed, as in any book larger than the bound.
 */
export class EloItems {
  private constructor(
    private readonly store: EloStore,
    private readonly hot: EloHotSet,
    readonly writer: EloLogWriter,
    readonly rated: EloRatings,
    private readonly driftPerDay: number,
    private readonly warn: (error: unknown, message: string) => void,
  ) {
    this.samples = new EloLogSamples(store, REPORT_LOG_SAMPLE, slimSample);
  }

  /** The newest entries of each log, kept for the report. */
  private readonly samples: EloLogSamples;

  /** The background moves of counted buckets (`advanceBuckets`), one after another. */
  private advancing: Promise<void> = Promise.resolve();
  private stopping = false;

  /**
   * `content` holds the content of the items in memory: put as they come in, removed as they leave.
   * The items `kept` names stay in memory once read, beside the bound (`EloHotSet`).
   */
  static async open(runtime: IAgentRuntime, settings: EloBookSettings, store: EloStore, exposures: Exposures, content: ContextIndex, kept: ReadonlySet<string>): Promise<EloItems> {
    const warn = (error: unknown, message: string) =>
      runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: runtime.agentId, error: errorText(error) }, message);
    const bound = settings.hotItems;
    const first = Math.min(bound, START_ITEMS);
    const recent = await store.loadRecent(first);
    let writer: EloLogWriter | undefined;
    const hot = new EloHotSet(
      bound,
      store,
      (key) => writer?.isPinned(key) ?? false,
      recent.length < first,
      (error) => warn(error, 'ELO items not read; the update that needed them is dropped'),
      {
        admitted: (item) => {
          if (item.body !== undefined) content.put({ kind: item.kind, id: item.id, title: item.title ?? item.id, text: item.body });
        },
        evicted: (item) => {
          if (item.body !== undefined) content.remove(item.kind, item.id);
        },
      },
      kept,
    );
    for (const row of recent.reverse()) hot.set(ratingKey(row.kind, row.id), row);
    writer = new EloLogWriter(runtime, store, hot, exposures, bound, () => hot.evict());
    return new EloItems(store, hot, writer, new EloRatings(hot, settings, writer), settings.driftPerDay, warn);
  }

  /**
   * Reads the most recently used items, up to the bound, into memory in the background: their
   * keys a page at a time, then their states oldest first, each page in turn with the book's
   * operations. A book found whole (fewer items than the bound, none evicted meanwhile) then runs
   * its operations without reading. Stops early when the book stops.
   */
  async warmUp(): Promise<void> {
    if (this.hot.allInMemory || this.stopping) return;
    const evictions = this.hot.evictions;
    const keys: ItemRef[] = [];
    for await (const page of this.store.recentKeys(this.hot.bound, WARM_KEYS_PAGE)) {
      if (this.stopping) return;
      keys.push(...page);
    }
    // Oldest first: the pages from the end of the newest-first keys, each in reverse.
    await this.inPages(keys.reverse(), (page) => this.hot.warm(page));
    if (!this.stopping && keys.length < this.hot.bound && this.hot.evictions === evictions) this.hot.markComplete();
  }

  /**
   * Looks these items up ahead of the readers that will ask for them (`EloHotSet.lookup`, WARM_PAGE
   * a statement, a turn of the event loop between), so a ranking finds their states in memory or
   * knows them never stored; then reads again, in the same way, the items taken as never stored
   * whose answer expires within `aheadMs` (`EloHotSet.readAgain`). Stops early when the book stops.
   */
  async keepAtHand(refs: readonly ItemRef[], nowMs: number, aheadMs: number): Promise<void> {
    if (!(await this.inPages(refs, (page) => this.hot.lookup(page, nowMs)))) return;
    await this.inPages(this.hot.absentDue(nowMs + aheadMs), (page) => this.hot.readAgain(page, nowMs));
  }

  /** Runs `work` on `items` WARM_PAGE at a time, in order, a turn of the event loop after each page; false when the book stopped before the end. */
  private async inPages<T>(items: readonly T[], work: (page: T[]) => Promise<unknown>): Promise<boolean> {
    for (const page of chunks(items, WARM_PAGE)) {
      if (this.stopping) return false;
      await work(page);
      await yieldToEventLoop();
    }
    return !this.stopping;
  }

  /** Items held in memory now. */
  get hotCount(): number {
    return this.hot.size;
  }

  /** Changes ratings once `items` are in memory (at once when they are), in the order updates were made. */
  update(items: readonly ItemRef[], change: () => void): void {
    this.hot.run(items, change);
    this.writer.flushIfFull();
  }

  /** Resolves once every update made so far has applied. */
  settled(): Promise<void> {
    return this.hot.settled();
  }

  /** See `EloBookService.rating`. */
  rating(kind: string, id: string): EloItemState | undefined {
    const item = this.rated.stored(kind, id);
    return item && { ...item };
  }

  async ratingOf(kind: string, id: string): Promise<EloItemState | undefined> {
    const item = (await this.hot.lookup([{ kind, id }]))(kind, id);
    return item && { ...item };
  }

  async currentElos(refs: readonly ItemRef[], nowMs: number): Promise<(kind: string, id: string) => number> {
    const stateOf = await this.hot.lookup(refs);
    return (kind, id) => {
      const item = stateOf(kind, id);
      return item ? this.rated.eloAt(item, nowMs) : this.rated.current(kind, id, nowMs);
    };
  }

  async ratings(nowMs: number): Promise<EloItemState[]> {
    await this.flush();
    const all = new Map<string, EloItemState>();
    await this.store.eachItem((item) => all.set(ratingKey(item.kind, item.id), item));
    for (const item of this.hot.values()) all.set(ratingKey(item.kind, item.id), item);
    return [...all.values()].map((item) => this.rated.at(item, nowMs));
  }

  /**
   * The report's figures over every item at `nowMs` from the counted buckets (`countedFigures`),
   * after writing what is pending; undefined when they cannot give them: a histogram width that
   * is not a multiple of the counted one, or changes a failed write left only in memory (the
   * caller reads `ratings` then).
   */
  async countedFigures(nowMs: number, k: number, bucketWidth: number, refs: readonly ItemRef[]): Promise<ItemFigures | undefined> {
    if (!countable(bucketWidth)) return undefined;
    await this.flush();
    if (this.writer.dirtyItems > 0) return undefined;
    const unique = [...new Map(refs.map((r) => [ratingKey(r.kind, r.id), r])).values()];
    return countedFigures({ buckets: this.store.buckets, states: (wanted) => this.writtenStates(wanted), driftPerDay: this.driftPerDay }, nowMs, k, bucketWidth, unique);
  }

  /**
   * The written states of these items, with nothing pending: those in memory as they are there (the
   * same as written), the others read from the database. The items the logs name were used
   * recently, so most are in memory.
   */
  private async writtenStates(refs: readonly ItemRef[]): Promise<EloItemState[]> {
    const found: EloItemState[] = [];
    const cold: ItemRef[] = [];
    for (const r of refs) {
      const state = this.hot.peek(ratingKey(r.kind, r.id));
      if (state) found.push(state);
      else cold.push(r);
    }
    return cold.length === 0 ? found : [...found, ...(await this.store.buckets.states(cold))];
  }

  /** See `EloBookService.advanceBuckets`. */
  advanceBuckets(nowMs: number, batches: number): Promise<void> {
    this.advancing = this.advancing.then(async () => {
      try {
        for (let i = 0; i < batches && !this.stopping; i++) {
          if ((await this.store.buckets.advance(nowMs, ADVANCE_BATCH)) < ADVANCE_BATCH) return;
          await yieldToEventLoop();
        }
      } catch (error) {
        this.warn(error, 'ELO report buckets not moved; the next tick tries again');
      }
    });
    return this.advancing;
  }

  /** Stops the moves of buckets and the warm-up, and waits for the move under way. */
  async stopAdvancing(): Promise<void> {
    this.stopping = true;
    await this.advancing;
  }

  /** Applies the updates waiting for items to be read, then writes every pending change (`EloLogWriter.flush`; never rejects). */
  async flush(): Promise<void> {
    await this.hot.settled();
    await this.writer.flush();
  }

  /** The newest `limit` entries of a log as stored, after every change made so far is written. */
  async logEntries(table: EloLogName, limit: number): Promise<Record<string, unknown>[]> {
    await this.hot.settled();
    return this.writer.entries(table, limit);
  }

  /**
   * The report's sample of a log: its newest REPORT_LOG_SAMPLE entries as `slimSample` keeps them,
   * after every change made so far is written, kept between calls (only what is new is read: `EloLogSamples`).
   */
  async reportSample(table: EloLogName): Promise<Record<string, unknown>[]> {
    await this.hot.settled();
    await this.writer.flush();
    return this.samples.newest(table);
  }

  /** Reads the report's log samples in the background (a page at a time), so the first report reads only what is new. Stops early when the book stops. */
  async warmLogSamples(): Promise<void> {
    for (const table of Object.keys(ELO_LOGS) as EloLogName[]) {
      if (this.stopping) return;
      await checkLogEntriesInTurns(table, await this.samples.newest(table));
    }
  }
}

/**
 * Checks entries against their log's schema CHECK_SLICE at a time, with a turn of the event loop
 * after each slice. Each entry object is checked once (`checkLogEntries` remembers it), so a report
 * reading the same objects afterwards (`parseEloLogs`) finds them checked.
 */
export async function checkLogEntriesInTurns(table: EloLogName, entries: readonly Record<string, unknown>[]): Promise<void> {
  for (const slice of chunks(entries, CHECK_SLICE)) {
    checkLogEntries(table, slice);
    await yieldToEventLoop();
  }
}
