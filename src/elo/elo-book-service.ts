import { type IAgentRuntime, Service } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import { type ContextItem, ContextIndex, type ContextMatch } from './model/context-index';
import { DRIFT_REASON } from './model/convergence';
import { applyRankBoost, type BlendWeights, driftTowardStart, INITIAL_ELO_BY_TIER, updateElo } from './model/elo';
import { EXPOSURE_HORIZON_MS, Exposures, type ItemRef } from './model/exposures';
import { SessionAudits } from './model/sessions';
import { initialTierFor, parseTierMap, type TierRule } from './model/tier-map';
import { type EloRow, EloStore } from './elo-store';
import { eloTables, type EloLogName } from './tables';
import type { Lesson } from '../scan/lesson-metadata';
import { scanOutcomeServiceOf } from '../scan/scan-outcome-service';
import { ELO_BOOK_SERVICE } from '../shared/service-names';
import { dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';

/** Pending changes written in one go once this many have gathered (or at the next flush tick). */
const FLUSH_AFTER_CHANGES = 500;
const FLUSH_INTERVAL_MS = 5_000;
const DAY_MS = 86_400_000;
/** Content kept per integrator item, so HIGH items can be shown in full within reason. */
const MAX_BODY_CHARS = 4_000;
const MAX_TITLE_CHARS = 200;

/** Log entries waiting to be written, per log: none. */
function noLogEntries(): Record<EloLogName, object[]> {
  return { updates: [], searches: [], sessions: [] };
}

/** An item a retrieval returned, at its rank (1 = first). */
export interface RetrievedItem extends ItemRef {
  rank: number;
  similarity?: number;
}

export interface Retrieval {
  tool: string;
  query: string;
  results: readonly RetrievedItem[];
  /** The session (run, conversation) it belongs to; default the agent's own session. */
  sessionId?: string;
  searchType?: 'semantic' | 'keyword';
  /** Contexts whose outcome these items should answer for (see `settle`). */
  exposeUnder?: readonly string[];
  /** Extra fields for the search-log entry (e.g. token counts). */
  logExtras?: Record<string, unknown>;
  /** A retrieval with a key already recorded (e.g. the same provider for the same message) is not recorded again. */
  onceKey?: string;
}

export interface AccessOptions {
  /** The path the starting tier is chosen by (default: the id). */
  path?: string;
  title?: string;
  /** Content to keep with the item: it makes the item a candidate for HIGH_ELO_CONTEXT. */
  text?: string;
  /** Reason in the ELO update log; default `<kind>_access`. */
  reason?: string;
  sessionId?: string;
  exposeUnder?: readonly string[];
}

export interface EloBookSettings {
  establishedAfterUpdates: number;
  driftPerDay: number;
  tierRules: TierRule[];
  blend: BlendWeights;
  contextTokenBudget: number;
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/** The item kind of `scan-model-lesson` memories in the book. */
export const LESSON_KIND = 'lesson';
/** Retrievals remembered to record each provider's retrieval once per message (providers run several times per message). */
const RECENT_RETRIEVALS = 1_000;

/** The book's settings from the plugin's settings. */
export function eloBookSettings(runtime: Pick<IAgentRuntime, 'getSetting'>): EloBookSettings {
  const config = loadConfig(runtime);
  const tiers = parseTierMap(config.SELF_IMPROVE_ELO_INITIAL_TIERS);
  return {
    establishedAfterUpdates: config.SELF_IMPROVE_ELO_ESTABLISHED_AFTER,
    driftPerDay: config.SELF_IMPROVE_ELO_DRIFT_PER_DAY,
    tierRules: tiers.ok ? tiers.rules : [],
    blend: { similarity: config.SELF_IMPROVE_ELO_SIMILARITY_WEIGHT, elo: config.SELF_IMPROVE_ELO_WEIGHT, eloFullMarks: 2000 },
    contextTokenBudget: config.SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET,
  };
}

/**
 * The ELO book (seed 002): a rating for every item the agent retrieves or reports (lessons, rules,
 * memories, files, symbols …).
 * - Use: retrievals give rank boosts (+16 first, +8 ranks 2–5, +4 ranks 6–10); an integrator's
 *   `recordAccess` is a use (outcome 1).
 * - Outcomes: items shown under a context (`exposeUnder`: a message, a finding) move when that
 *   context's outcome comes back through `settle`: a reward is a win, a penalty a loss.
 * - Disuse: a rating drifts back toward its start by `driftPerDay` of the gap per day since last
 *   use. Drift is computed from timestamps when the item is next read or touched, so no periodic
 *   run is needed and none can be missed.
 * Every change is logged in the seed's ELO update format, every retrieval in the search-log
 * format, every finished session in the session-audit format. Changes are kept in memory and
 * written in batches, one database transaction each; a crash loses at most the last unwritten
 * batch and never leaves a half-written one. Which items were shown under which context is stored
 * with the batches too, so an outcome that comes back after a restart still finds them.
 */
export class EloBookService extends Service {
  static override serviceType = ELO_BOOK_SERVICE;
  override capabilityDescription = 'ELO ratings of what the agent knows, from usage and outcomes';

  settings!: EloBookSettings;
  /** Content that can be put into prompts, found by meaning. */
  readonly content = new ContextIndex();
  private store!: EloStore;
  private readonly items = new Map<string, EloRow>();
  private readonly dirty = new Set<string>();
  private logs: Record<EloLogName, object[]> = noLogEntries();
  private readonly exposures = new Exposures();
  private readonly recentRetrievals = new Set<string>();
  private sessions!: SessionAudits;
  private writing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushScheduled = false;
  private entriesQueued = 0;

  static override async start(runtime: IAgentRuntime): Promise<EloBookService> {
    const service = new EloBookService(runtime);
    service.settings = eloBookSettings(runtime);
    service.sessions = new SessionAudits(runtime.agentId);
    const db = dbOf(runtime);
    await requireTables(db, Object.values(eloTables));
    service.store = new EloStore(db, runtime.agentId);
    const nowMs = Date.now();
    for (const stored of await service.store.loadExposures(nowMs - EXPOSURE_HORIZON_MS)) service.exposures.restore(stored.context, stored.atMs, stored.items, nowMs);
    for (const row of await service.store.load()) {
      service.items.set(keyOf(row.kind, row.id), row);
      if (row.body !== undefined) service.content.put({ kind: row.kind, id: row.id, title: row.title ?? row.id, text: row.body });
    }
    service.followLessons();
    service.timer = setInterval(() => service.tick(Date.now()), FLUSH_INTERVAL_MS);
    service.timer.unref?.();
    return service;
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.queue('sessions', ...this.sessions.endIdle(Date.now(), true));
    await this.flush();
  }

  /** An item's stored state (rating as of its last change), or undefined for an item never seen. */
  rating(kind: string, id: string): EloRow | undefined {
    return this.items.get(keyOf(kind, id));
  }

  /** An item's rating at `nowMs`: its stored rating drifted for the days since last use, or its starting rating when unseen. */
  currentElo(kind: string, id: string, nowMs = Date.now()): number {
    const item = this.items.get(keyOf(kind, id));
    return item ? this.drifted(item, nowMs) : this.startEloFor(kind, id);
  }

  /** Every rated item with its rating at `nowMs`. */
  ratings(nowMs = Date.now()): EloRow[] {
    return [...this.items.values()].map((item) => ({ ...item, elo: this.drifted(item, nowMs) }));
  }

  /** Log entries queued since start: changes whenever the book does, so reports can be cached by it. */
  get version(): number {
    return this.entriesQueued;
  }

  /** Changes not yet written to the database. */
  get pendingChanges(): number {
    return this.logs.updates.length + this.logs.searches.length + this.logs.sessions.length;
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
    this.queue('searches', {
      session_id: sessionId,
      timestamp,
      tool: retrieval.tool,
      query: retrieval.query,
      results: retrieval.results.map((r) => ({ hash: r.id, entity_type: r.kind, rank: r.rank, ...(r.similarity === undefined ? {} : { similarity: r.similarity }) })),
      ...retrieval.logExtras,
    });
    const boosts = retrieval.results.map((r) => {
      const item = this.touch(r.kind, r.id, atMs, timestamp);
      const boosted = applyRankBoost(item.elo, r.rank);
      if (boosted.delta !== 0) this.change(item, boosted.elo, item.updates, `${retrieval.tool}_rank_${r.rank}`, timestamp);
      return { kind: r.kind, id: r.id, boost: boosted.delta };
    });
    this.sessions.search(sessionId, retrieval.searchType ?? 'semantic', retrieval.results, atMs);
    if (retrieval.exposeUnder) this.exposures.add(retrieval.exposeUnder, boosts, atMs);
    this.flushIfFull();
  }

  /**
   * An integrator reports that the agent used an item (read a file, expanded a symbol, opened a
   * record): a use, `ELO += K × (1 − expected)`. A new item starts in the tier the
   * `SELF_IMPROVE_ELO_INITIAL_TIERS` map gives its kind and path. Content given with it is kept
   * and makes it a candidate for HIGH_ELO_CONTEXT.
   */
  recordAccess(kind: string, id: string, options: AccessOptions = {}, atMs = Date.now()): EloRow {
    const timestamp = new Date(atMs).toISOString();
    const item = this.touch(kind, id, atMs, timestamp, options.path);
    if (options.title !== undefined) item.title = options.title.slice(0, MAX_TITLE_CHARS);
    if (options.text !== undefined) {
      item.body = options.text.slice(0, MAX_BODY_CHARS);
      this.content.put({ kind, id, title: item.title ?? id, text: item.body });
    }
    const next = updateElo(item, 1, { establishedAfterUpdates: this.settings.establishedAfterUpdates });
    this.change(item, next.elo, next.updates, options.reason ?? `${kind}_access`, timestamp);
    this.sessions.access(options.sessionId ?? this.runtime.agentId, item, atMs);
    if (options.exposeUnder) this.exposures.add(options.exposeUnder, [item], atMs);
    this.flushIfFull();
    return { ...item };
  }

  /**
   * An outcome came back while these items were in use: a win (1) for a reward, a loss (0) for a
   * penalty, partial credit between. Each item moves by `K × (outcome − expected)`.
   */
  recordOutcome(items: readonly ItemRef[], outcome: number, reason: string, atMs = Date.now()): void {
    const timestamp = new Date(atMs).toISOString();
    for (const { kind, id } of items) {
      const item = this.touch(kind, id, atMs, timestamp);
      const next = updateElo(item, outcome, { establishedAfterUpdates: this.settings.establishedAfterUpdates });
      this.change(item, next.elo, next.updates, reason, timestamp);
    }
    this.flushIfFull();
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
      for (const exposed of items) {
        if (exposed.boost === 0) continue;
        const item = this.touch(exposed.kind, exposed.id, atMs, timestamp);
        this.change(item, item.elo - exposed.boost, item.updates, `${reason}_boost_revoked`, timestamp);
      }
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
    for (const item of items) this.content.put(item);
  }

  forgetContent(kind: string, id: string): void {
    this.content.remove(kind, id);
  }

  /** Content most similar to `query`. */
  searchContent(query: string, limit: number): ContextMatch[] {
    return this.content.search(query, limit);
  }

  /** Ends a session and queues its audit entry (seed 002 §2). */
  endSession(sessionId: string, atMs = Date.now()): void {
    const entry = this.sessions.end(sessionId, atMs);
    if (entry) this.queue('sessions', entry);
  }

  /**
   * Writes every pending change now, in one database transaction. Never rejects: a failed write
   * is logged and its batch goes back to the front of the queue (items stay dirty, log entries
   * keep their order ahead of newer ones, exposures are marked changed), so the next flush writes
   * it; nothing is lost while the process lives.
   */
  flush(): Promise<void> {
    const write = this.writing.then(async () => {
      const keys = [...this.dirty];
      const items = keys.map((k) => ({ ...(this.items.get(k) as EloRow) }));
      const logs = this.logs;
      this.dirty.clear();
      this.logs = noLogEntries();
      const exposures = this.exposures.takeChanges();
      if (items.length === 0 && exposures.length === 0 && Object.values(logs).every((l) => l.length === 0)) return;
      try {
        await this.store.write(items, logs, exposures);
      } catch (error) {
        for (const k of keys) this.dirty.add(k);
        for (const name of Object.keys(logs) as EloLogName[]) this.logs[name] = [...logs[name], ...this.logs[name]];
        this.exposures.requeue(exposures);
        this.runtime.logger.warn(
          { src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, items: items.length, error: error instanceof Error ? error.message : String(error) },
          'ELO batch not written; kept for the next flush',
        );
      }
    });
    this.writing = write;
    return write;
  }

  /** The newest ELO updates (seed 002 §3 format), newest first. */
  async updateLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.logEntries('updates', limit);
  }

  /** The newest retrievals (seed 002 §1 format), newest first. */
  async searchLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.logEntries('searches', limit);
  }

  /** The newest finished sessions (seed 002 §2 format), newest first. */
  async sessionLogEntries(limit = 50): Promise<Record<string, unknown>[]> {
    return this.logEntries('sessions', limit);
  }

  private async logEntries(name: EloLogName, limit: number): Promise<Record<string, unknown>[]> {
    await this.flush();
    return this.store.log(name, limit);
  }

  /** Scan lessons become content candidates as they are learned (the lesson store keeps their text). */
  private followLessons(): void {
    const lessonItem = (l: Lesson): ContextItem => ({ kind: LESSON_KIND, id: l.id, title: `${l.metadata.category} lesson`, text: l.text });
    void scanOutcomeServiceOf(this.runtime).then(
      (scan) => {
        this.registerContent(scan.lessons.index.all().map(lessonItem));
        scan.lessons.index.onPut((l) => this.content.put(lessonItem(l)));
      },
      (error: unknown) => this.runtime.logger.warn({ src: 'plugin:self-improve:elo', agentId: this.runtime.agentId, error: String(error) }, 'scan lessons are not ELO content'),
    );
  }

  private tick(nowMs: number): void {
    this.queue('sessions', ...this.sessions.endIdle(nowMs));
    void this.flush();
  }

  private startEloFor(kind: string, path: string): number {
    return INITIAL_ELO_BY_TIER[initialTierFor(this.settings.tierRules, kind, path)];
  }

  private drifted(item: EloRow, nowMs: number): number {
    const days = Math.max(0, nowMs - item.lastUsedMs) / DAY_MS;
    return days === 0 || this.settings.driftPerDay === 0 ? item.elo : driftTowardStart(item.elo, item.startElo, days, this.settings.driftPerDay);
  }

  /** The item, created at its starting rating or with the drift since its last use applied (and logged), now marked used. */
  private touch(kind: string, id: string, atMs: number, timestamp: string, path?: string): EloRow {
    const key = keyOf(kind, id);
    let item = this.items.get(key);
    if (!item) {
      const start = this.startEloFor(kind, path ?? id);
      item = { kind, id, elo: start, startElo: start, updates: 0, lastUsedMs: atMs };
      this.items.set(key, item);
    } else {
      const drifted = this.drifted(item, atMs);
      if (Math.abs(drifted - item.elo) >= 0.01) this.change(item, drifted, item.updates, DRIFT_REASON, timestamp);
    }
    item.lastUsedMs = Math.max(item.lastUsedMs, atMs);
    this.dirty.add(key);
    return item;
  }

  private queue(name: EloLogName, ...entries: object[]): void {
    this.logs[name].push(...entries);
    this.entriesQueued += entries.length;
  }

  private change(item: EloRow, elo: number, updates: number, reason: string, timestamp: string): void {
    this.queue('updates', { timestamp, entity_type: item.kind, entity_id: item.id, elo_old: item.elo, elo_new: elo, delta: elo - item.elo, reason });
    item.elo = elo;
    item.updates = updates;
    this.dirty.add(keyOf(item.kind, item.id));
  }

  /** A full batch is written on the next turn of the event loop, not inside the provider or call that filled it. */
  private flushIfFull(): void {
    if (this.pendingChanges < FLUSH_AFTER_CHANGES || this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      void this.flush();
    }, 0);
  }
}

/** Waits until the runtime has started EloBookService and returns it. */
export async function eloBookOf(runtime: IAgentRuntime): Promise<EloBookService> {
  return (await runtime.getServiceLoadPromise(ELO_BOOK_SERVICE as never)) as unknown as EloBookService;
}
