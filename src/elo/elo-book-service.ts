import { type IAgentRuntime, Service } from '@elizaos/core';
import { ContentRelevance } from '../shared/scan-lesson-relevance';
import { type ContextItem, ContextIndex, type ContextMatch } from './model/context-index';
import { applyRankBoost } from './model/elo';
import { EXPOSURE_HORIZON_MS, Exposures, type ItemRef } from './model/exposures';
import { SessionAudits } from './model/sessions';
import { type EloBookSettings, eloBookSettings } from './elo-book-settings';
import { HeldMoves, subscribeEloBook } from './elo-listeners';
import type { AccessOptions, Retrieval } from './elo-book-types';
import { ADVANCE_BATCH, EloItems } from './elo-items';
import { ratingKey } from './elo-hot-set';
import { refreshDefaultReport } from './elo-report';
import type { EloLogWriter } from './elo-log-writer';
import type { EloRatings } from './elo-ratings';
import { type EloItemState, EloStore } from './elo-store';
import type { ItemFigures } from './model/stats';
import { type EloLogName, eloTables } from './tables';
import { requireTables } from '../shared/plugin-schema';
import { eventsOf } from '../shared/events';
import { serviceOf } from '../shared/service-of';
import { ELO_BOOK_SERVICE } from '../shared/service-names';
import { pluginStarted } from '../shared/plugin-start';
import { dbOf } from '../shared/sql';
import { logRetentionOf } from '../shared/log-retention';
import { loadConfig } from '../shared/config';
import { errorText } from '../shared/error-text';
import { inTurns, startTurn } from '../shared/event-loop';

export { type EloBookSettings, eloBookSettings } from './elo-book-settings';
export { SCAN_LESSON_KIND } from './elo-listeners';
export type { AccessOptions, Retrieval, RetrievedItem } from './elo-book-types';

const FLUSH_INTERVAL_MS = 5_000;
/** Items taken as never stored are read again at a tick when that answer expires within this time (two ticks and a margin). */
const AT_HAND_AHEAD_MS = 3 * FLUSH_INTERVAL_MS;
/** Content kept per integrator item, so HIGH items can be shown in full within reason. */
const MAX_BODY_CHARS = 4_000;
const MAX_TITLE_CHARS = 200;
/** Retrievals remembered to record each provider's retrieval once per message (providers run several times per message). */
const RECENT_RETRIEVALS = 1_000;

/**
 * The ELO book (seed 002): a rating for every item the agent retrieves or reports (lessons, rules,
 * memories, files, symbols …).
 * - Use: retrievals give rank boosts (+16 first, +8 ranks 2–5, +4 ranks 6–10); an integrator's
 *   `recordAccess` is a use (outcome 1).
 * - Outcomes: items shown under a context (`exposeUnder`: a message, a finding) move when that
 *   context's outcome comes back through `settle`: a reward is a win, a penalty a loss.
 * - Disuse: a rating drifts back toward its start (`EloRatings`), computed from timestamps, so no
 *   periodic run is needed and none can be missed.
 * Every change is logged in the seed's ELO update format, every retrieval in the search-log
 * format, every finished session in the session-audit format, and written in batches
 * (`EloLogWriter`). Which items were shown under which context is stored with the batches too, so
 * an outcome that comes back after a restart still finds them. The book learns what happens in
 * the agent from its events (`subscribeEloBook`).
 */
export class EloBookService extends Service {
  static override serviceType = ELO_BOOK_SERVICE;
  override capabilityDescription = 'ELO ratings of what the agent knows, from usage and outcomes';

  settings!: EloBookSettings;
  /** Content that can be put into prompts, found by meaning. */
  readonly content = new ContextIndex();
  /** The relevance floor of `content` (HIGH_ELO_CONTEXT's calibration), first computed in the background after start. */
  readonly relevance = new ContentRelevance();
  private items!: EloItems;
  private readonly exposures = new Exposures();
  private readonly recentRetrievals = new Set<string>();
  private sessions!: SessionAudits;
  private timer: ReturnType<typeof setInterval> | undefined;
  private versionAtLastTick = -1;
  private stopping = false;
  /** Once the start-up reads are done (or failed) and the first floor computed, each tick brings the floor up to date and the content's ratings at hand. */
  private warmedUp = false;
  /** Content registered since the last tick, whose ratings the tick looks up ahead (`EloItems.keepAtHand`). */
  private readonly registered = new Map<string, ItemRef>();
  /**
   * Every piece of content registered and not forgotten (the lessons held, the rules), by
   * `ratingKey`: their ratings stay in memory once read, beside SELF_IMPROVE_ELO_HOT_ITEMS, so
   * the items other work uses never push out what a prompt ranks.
   */
  private readonly kept = new Set<string>();
  /** The look-ahead under way (one at a time). */
  private keeping: Promise<void> | null = null;
  /** The default report being computed ahead of reads (`refreshDefaultReport`). */
  private reporting: Promise<void> = Promise.resolve();
  /** The background read of the book into memory after start (`EloItems.warmUp`). */
  warming: Promise<void> = Promise.resolve();
  private markStopped: () => void = () => undefined;
  /** Resolves when `stop` begins. */
  private readonly stopped = new Promise<void>((resolve) => {
    this.markStopped = resolve;
  });
  private unsubscribe: (() => void) | undefined;

  static override async start(runtime: IAgentRuntime): Promise<EloBookService> {
    const service = new EloBookService(runtime);
    service.settings = eloBookSettings(runtime);
    service.sessions = new SessionAudits(runtime.agentId);
    // Subscribed before anything is read: what happens meanwhile is kept and made once the book is open.
    const held = new HeldMoves();
    service.unsubscribe = subscribeEloBook(held, eventsOf(runtime));
    let recount: boolean;
    try {
      const db = dbOf(runtime);
      await startTurn();
      await requireTables(db, Object.values(eloTables));
      const store = new EloStore(db, runtime.agentId, service.settings.driftPerDay, logRetentionOf(runtime, loadConfig(runtime).SELF_IMPROVE_LOG_MAX_ROWS, 'plugin:self-improve:elo'));
      await startTurn();
      recount = await store.buckets.ensureBasis();
      await startTurn();
      service.items = await EloItems.open(runtime, service.settings, store, service.exposures, service.content, service.kept);
      await startTurn();
      const nowMs = Date.now();
      for (const stored of await store.loadExposures(nowMs - EXPOSURE_HORIZON_MS)) service.exposures.restore(stored.context, stored.atMs, stored.items, nowMs);
    } catch (error) {
      service.unsubscribe();
      throw error;
    }
    held.deliverTo(service);
    if (held.dropped > 0) {
      runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: runtime.agentId, dropped: held.dropped }, 'ELO moves made while the book started were more than it keeps; the oldest were dropped');
    }
    // Items of a database from before the counts, or counted at another drift rate, are counted in the background.
    if (recount) inTurns(() => service.advanceBuckets(Date.now(), Number.POSITIVE_INFINITY));
    // A book larger than what start-up reads comes into memory in the background, once every
    // service of the plugin has started or failed (so it never delays another's start; at most
    // SELF_IMPROVE_SERVICE_START_WAIT_MS), unless stopped first.
    service.warming = inTurns(() =>
      Promise.race([pluginStarted(runtime), service.stopped])
        .then(() => service.items.warmUp())
        .then(() => service.items.warmLogSamples())
        .then(() => service.relevance.floor(service.content))
        .then(
          () => undefined,
          (error: unknown) =>
            runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: runtime.agentId, error: errorText(error) }, 'ELO items or log samples not read into memory; they are read when needed'),
        )
        .finally(() => {
          service.warmedUp = true;
        })
        // The ratings of the content registered meanwhile (the lessons held), before the first prompt rather than at the first tick.
        .then(() => service.keepRatingsAtHand(Date.now())),
    );
    service.timer = setInterval(() => service.tick(Date.now()), FLUSH_INTERVAL_MS);
    service.timer.unref?.();
    return service;
  }

  /** Whether `stop` has begun: background work started after start (`warmUpContextInBackground`) ends then. */
  get isStopping(): boolean {
    return this.stopping;
  }

  override async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.stopping = true;
    this.markStopped();
    await this.reporting;
    await this.items.stopAdvancing();
    await this.keeping;
    await this.warming;
    await this.items.settled();
    this.writer.log('sessions', ...this.sessions.endIdle(Date.now(), true));
    await this.flush();
  }

  /**
   * An item's state in memory (rating as of its last change), or undefined for an item never seen
   * — or, in a book with more items than SELF_IMPROVE_ELO_HOT_ITEMS, not in memory: `ratingOf`
   * answers for any item.
   */
  rating(kind: string, id: string): EloItemState | undefined {
    return this.items.rating(kind, id);
  }

  /** An item's state after every update made so far, read from the database when not in memory; undefined for an item never seen. */
  ratingOf(kind: string, id: string): Promise<EloItemState | undefined> {
    return this.items.ratingOf(kind, id);
  }

  /**
   * An item's rating at `nowMs`: its stored rating drifted for the days since last use, or its
   * starting rating when unseen. From memory: in a book larger than SELF_IMPROVE_ELO_HOT_ITEMS,
   * `currentElos` answers for items not in memory too.
   */
  currentElo(kind: string, id: string, nowMs = Date.now()): number {
    return this.rated.current(kind, id, nowMs);
  }

  /** The ratings of these items at `nowMs` (as `currentElo`) after every update made so far, those not in memory read in one query. */
  currentElos(refs: readonly ItemRef[], nowMs = Date.now()): Promise<(kind: string, id: string) => number> {
    return this.items.currentElos(refs, nowMs);
  }

  /**
   * Every rated item with its rating at `nowMs`, after writing what is pending: read from the
   * database a page at a time, items in memory as they are there (newer when a write failed).
   */
  ratings(nowMs = Date.now()): Promise<EloItemState[]> {
    return this.items.ratings(nowMs);
  }

  /**
   * The report's figures over every item at `nowMs` without reading every item (`countedFigures`),
   * after writing what is pending; undefined when they must come from `ratings` instead.
   */
  countedFigures(nowMs: number, k: number, bucketWidth: number, refs: readonly ItemRef[]): Promise<ItemFigures | undefined> {
    return this.items.countedFigures(nowMs, k, bucketWidth, refs);
  }

  /**
   * Moves the counted buckets that no longer hold at `nowMs` to where the ratings are then, at most
   * `batches` batches of ADVANCE_BATCH (until none is due; 500 items a tick by default), in the
   * background after what is queued; the report reads such items one by one until they are moved.
   * Resolves when done; never rejects (a failure is logged, and the next tick tries again).
   */
  advanceBuckets(nowMs: number, batches = 500 / ADVANCE_BATCH): Promise<void> {
    return this.items.advanceBuckets(nowMs, batches);
  }

  /** Items held in memory now: at most SELF_IMPROVE_ELO_HOT_ITEMS, plus those changed since the last write while that write is due. */
  get hotCount(): number {
    return this.items.hotCount;
  }

  /** Log entries queued since start: changes whenever the book does, so reports can be cached by it. */
  get version(): number {
    return this.writer.version;
  }

  /** Changes not yet written to the database. */
  get pendingChanges(): number {
    return this.writer.pendingChanges;
  }

  /** Records a retrieval (seed 002 §1) and gives each returned item its rank boost. */
  recordRetrieval(retrieval: Retrieval, atMs = Date.now()): void {
    if (retrieval.onceKey !== undefined) {
      if (this.recentRetrievals.has(retrieval.onceKey)) return;
      this.recentRetrievals.add(retrieval.onceKey);
      if (this.recentRetrievals.size > RECENT_RETRIEVALS) this.recentRetrievals.delete(this.recentRetrievals.values().next().value as string);
    }
    const timestamp = new Date(atMs).toISOString();
    const sessionId = retrieval.sessionId ?? this.runtime.agentId;
    this.writer.log('searches', {
      session_id: sessionId,
      timestamp,
      tool: retrieval.tool,
      query: retrieval.query,
      results: retrieval.results.map((r) => ({ hash: r.id, entity_type: r.kind, rank: r.rank, ...(r.similarity === undefined ? {} : { similarity: r.similarity }) })),
      ...retrieval.logExtras,
    });
    this.items.update(retrieval.results, () => {
      for (const r of retrieval.results) {
        const item = this.rated.touch(r.kind, r.id, atMs, timestamp);
        const boosted = applyRankBoost(item.elo, r.rank);
        if (boosted.delta !== 0) this.rated.change(item, boosted.elo, item.updates, `${retrieval.tool}_rank_${r.rank}`, timestamp);
      }
    });
    this.sessions.search(sessionId, retrieval.searchType ?? 'semantic', retrieval.results, atMs);
    // A boost does not depend on the rating (`applyRankBoost`): the exposure is noted now, whether the update waits or not.
    if (retrieval.exposeUnder) this.exposures.add(retrieval.exposeUnder, retrieval.results.map((r) => ({ kind: r.kind, id: r.id, boost: applyRankBoost(0, r.rank).delta })), atMs);
  }

  /**
   * An integrator reports that the agent used an item (read a file, expanded a symbol, opened a
   * record): a use, `ELO += K × (1 − expected)`. A new item starts in the tier the
   * `SELF_IMPROVE_ELO_INITIAL_TIERS` map gives its kind and path. Content given with it is kept
   * and makes it a candidate for HIGH_ELO_CONTEXT. Returns the item's state after the access; when
   * the item had to be read from the database first (a book larger than SELF_IMPROVE_ELO_HOT_ITEMS),
   * the access applies once it is read, and the state returned is `pending` with unknown (NaN)
   * ratings: `ratingOf` gives it then.
   */
  recordAccess(kind: string, id: string, options: AccessOptions = {}, atMs = Date.now()): EloItemState & { pending?: true } {
    const timestamp = new Date(atMs).toISOString();
    const title = options.title?.slice(0, MAX_TITLE_CHARS);
    const body = options.text?.slice(0, MAX_BODY_CHARS);
    let after: EloItemState | undefined;
    this.items.update([{ kind, id }], () => {
      const item = this.rated.touch(kind, id, atMs, timestamp, options.path);
      if (title !== undefined) item.title = title;
      if (body !== undefined) {
        item.body = body;
        this.content.put({ kind, id, title: item.title ?? id, text: body });
      }
      this.rated.score(item, 1, options.reason ?? `${kind}_access`, timestamp);
      after = { ...item };
    });
    this.sessions.access(options.sessionId ?? this.runtime.agentId, { kind, id }, atMs);
    if (options.exposeUnder) this.exposures.add(options.exposeUnder, [{ kind, id }], atMs);
    return after ?? { kind, id, elo: Number.NaN, startElo: Number.NaN, updates: Number.NaN, lastUsedMs: atMs, pending: true };
  }

  /**
   * An outcome came back while these items were in use: a win (1) for a reward, a loss (0) for a
   * penalty, partial credit between. Each item moves by `K × (outcome − expected)`.
   */
  recordOutcome(items: readonly ItemRef[], outcome: number, reason: string, atMs = Date.now()): void {
    const timestamp = new Date(atMs).toISOString();
    this.items.update(items, () => {
      for (const { kind, id } of items) this.rated.score(this.rated.touch(kind, id, atMs, timestamp), outcome, reason, timestamp);
    });
  }

  /**
   * The outcome of `context` came back: the items shown under it within the last 7 days win
   * (`reward > 0`) or lose (`reward < 0`); a zero reward moves nothing. A penalty also takes back
   * the rank boosts the items got for being shown there: a retrieval's boost is provisional
   * credit, kept when the outcome is good and revoked when it is bad, so an item that keeps being
   * shown and keeps failing falls instead of being carried up by its own retrievals. `forget`
   * drops the context afterwards (a message's run ends once); a finding keeps its items for later
   * labels. Returns the items moved.
   */
  settle(context: string, reward: number, reason: string, options: { forget?: boolean; atMs?: number } = {}): ItemRef[] {
    const atMs = options.atMs ?? Date.now();
    if (reward === 0) {
      if (options.forget) this.exposures.claim(context, atMs, true);
      return [];
    }
    const items = this.exposures.claim(context, atMs, options.forget ?? false);
    if (reward < 0) {
      const timestamp = new Date(atMs).toISOString();
      const boosted = items.filter((exposed) => exposed.boost !== 0);
      this.items.update(boosted, () => {
        for (const exposed of boosted) {
          const item = this.rated.touch(exposed.kind, exposed.id, atMs, timestamp);
          this.rated.change(item, item.elo - exposed.boost, item.updates, `${reason}_boost_revoked`, timestamp);
        }
      });
    }
    this.recordOutcome(items, reward > 0 ? 1 : 0, reason, atMs);
    return items.map(({ kind, id }) => ({ kind, id }));
  }

  /** Notes that items were in the prompt for these contexts, without a retrieval of their own. */
  expose(contexts: readonly string[], items: readonly ItemRef[], atMs = Date.now()): void {
    this.exposures.add(contexts, items, atMs);
  }

  /** Makes content a candidate for HIGH_ELO_CONTEXT (lessons, rules); not stored by the book. */
  registerContent(items: Iterable<ContextItem>): void {
    for (const item of items) {
      this.content.put(item);
      const key = ratingKey(item.kind, item.id);
      this.registered.set(key, { kind: item.kind, id: item.id });
      this.kept.add(key);
    }
  }

  forgetContent(kind: string, id: string): void {
    this.content.remove(kind, id);
    const key = ratingKey(kind, id);
    this.registered.delete(key);
    this.kept.delete(key);
  }

  /** Content most similar to `query`. */
  searchContent(query: string, limit: number): ContextMatch[] {
    return this.content.search(query, limit);
  }

  /** Ends a session and queues its audit entry (seed 002 §2). */
  endSession(sessionId: string, atMs = Date.now()): void {
    const entry = this.sessions.end(sessionId, atMs);
    if (entry) this.writer.log('sessions', entry);
  }

  /** Applies the updates waiting for items to be read, then writes every pending change in one database transaction; never rejects (`EloLogWriter.flush`). */
  flush(): Promise<void> {
    return this.items.flush();
  }

  /** The newest ELO updates (seed 002 §3 format), newest first. */
  updateLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.items.logEntries('updates', limit);
  }

  /** The newest retrievals (seed 002 §1 format), newest first. */
  searchLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.items.logEntries('searches', limit);
  }

  /** The newest finished sessions (seed 002 §2 format), newest first. */
  sessionLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.items.logEntries('sessions', limit);
  }

  /**
   * The newest REPORT_LOG_SAMPLE entries of a log as the report reads them, kept between reports:
   * the session log's with the items the Success Metrics do not read left out (`sessionsForMetrics`).
   */
  reportLogSample(table: EloLogName): Promise<Record<string, unknown>[]> {
    return this.items.reportSample(table);
  }

  private get writer(): EloLogWriter {
    return this.items.writer;
  }

  private get rated(): EloRatings {
    return this.items.rated;
  }

  private warnReport(error: unknown): void {
    this.runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, error: errorText(error) }, 'the ELO report could not be computed ahead; the next read computes it');
  }

  /**
   * Resolves once the ratings of the content registered so far are read ahead, as each tick does
   * (after the start-up warm-up): a look-ahead under way is waited for, then one is run at once.
   */
  async ratingsReadAhead(): Promise<void> {
    await this.warming;
    await this.keeping;
    await this.keepRatingsAtHand(Date.now());
  }

  /**
   * The ratings a ranking will ask for, read ahead in the background: those of the content
   * registered since the last tick (the lessons and rules the providers rank), and again those of
   * items taken as never stored before that answer expires. A prompt then ranks from memory,
   * without a statement of its own, in a book larger than SELF_IMPROVE_ELO_HOT_ITEMS too. A failure
   * is logged here; the next tick tries again.
   */
  private keepRatingsAtHand(nowMs: number): Promise<void> {
    if (this.keeping || this.stopping) return this.keeping ?? Promise.resolve();
    const refs = [...this.registered.values()];
    this.registered.clear();
    this.keeping = this.items
      .keepAtHand(refs, nowMs, AT_HAND_AHEAD_MS)
      .catch((error: unknown) => this.runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, error: errorText(error) }, 'ratings not read ahead; rankings read them when needed'))
      .finally(() => {
        this.keeping = null;
      });
    return this.keeping;
  }

  /**
   * Sessions idle too long end, what is pending is written, counted buckets that are due move, and
   * the content's ratings are read ahead (`keepRatingsAtHand`); then, when the book was quiet since
   * the tick before, the default report is made ready (`refreshDefaultReport`).
   */
  private tick(nowMs: number): void {
    this.writer.log('sessions', ...this.sessions.endIdle(nowMs));
    // Content registered since the last tick: its relevance floor is brought up to date here rather
    // than by the next prompt (nothing to do when the content did not change), its ratings read ahead.
    if (this.warmedUp && !this.stopping) {
      this.relevance.floor(this.content).catch(() => undefined);
      this.keepRatingsAtHand(nowMs).catch(() => undefined);
    }
    // A book unchanged since the last tick is quiet: the default report is made ready for the next read.
    const quiet = this.writer.version === this.versionAtLastTick;
    this.versionAtLastTick = this.writer.version;
    this.flush()
      .then(() => this.advanceBuckets(nowMs))
      .then(() => {
        if (quiet && !this.stopping) {
          this.reporting = refreshDefaultReport(this, 2 * FLUSH_INTERVAL_MS).then(
            () => undefined,
            (error: unknown) => this.warnReport(error),
          );
        }
        return this.reporting;
      })
      .catch((error: unknown) => this.runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, error: errorText(error) }, 'moving counted ELO buckets failed; the next tick tries again'));
  }
}

/** Waits until the runtime has started EloBookService and returns it. */
export const eloBookOf = (runtime: IAgentRuntime): Promise<EloBookService> => serviceOf(runtime, EloBookService);
