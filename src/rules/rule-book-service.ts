import { type IAgentRuntime, Service } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import { ruleLessonVectorText } from './model/rule-lessons';
import type { ParseErrorEntry } from './model/logs';
import { type RuleMetrics, ruleMetricsOf } from './model/metrics';
import { tallyStoredEvents } from './rule-event-tally';
import { type SelectedRule, selectRulesForPrompt } from './model/prompt';
import { type LearningEvent, RULE_TYPE_PRIORITY, type Rule, type RuleLesson, type RuleStatus } from './model/types';
import { ensureRuleDecayTask } from './surfaces/rule-decay-task';
import { vectorizerFor, type Vectorizer } from '../scan/scan-lesson-store';
import { RuleBookState, RULES_LOG_SRC } from './rule-book-state';
import { type RuleBookSettings, ruleBookSettings } from './rule-book-settings';
import { RuleExchange } from './rule-exchange';
import { RuleGuard } from './rule-guard';
import { RuleIntake } from './rule-intake';
import type { IndexedRuleLesson } from './rule-learning';
import { RuleStore } from './rule-store';
import { RuleUpkeep } from './rule-upkeep';
import { eventsOf } from '../shared/events';
import { lexicalVector } from '../shared/lexical-vector';
import { serviceOf } from '../shared/service-of';
import { RULE_BOOK_SERVICE } from '../shared/service-names';
import { dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';
import { ruleTables } from './tables';
import { logRetentionOf } from '../shared/log-retention';
import { startTurn } from '../shared/event-loop';

export { RULE_BOOK_SERVICE };
export { RULE_KIND } from './model/rule-content';
export type { EventIngestResult, EventTextResult } from './rule-intake';
export type { GuardSettlement } from './rule-guard';
export type { ImportResult } from './rule-exchange';
export type { RuleChange, RuleChangeRefusal } from './rule-upkeep';

/** Most guard entries `metrics` reads. */
const METRICS_GUARD_ENTRIES = 100_000;

export interface RuleFilter {
  status?: RuleStatus;
  category?: string;
  /** Default true; false leaves out rules flagged for review. */
  includeFlagged?: boolean;
}

/**
 * The rules system of one agent (seed 003): events in, rule lessons, typed rules with decaying
 * confidence, candidates waiting for a trusted person's approval, the action audit (the seed's
 * guard log), signed export/import and metrics. The one stateful part: the evaluator, TOP_RULES,
 * the audit events, routes, CLI and chat actions all call it. Who may teach or change rules is
 * decided by the callers (`trustOf`); what reaches this service from a person carries it. Lessons
 * (with vectors) and rules are held in memory (`RuleBookState`) and written through `RuleStore`;
 * every change is committed in one transaction before the in-memory state takes it. Writes run
 * one at a time. Its parts: `RuleIntake` (events in), `RuleUpkeep` (validation, approval, decay,
 * promotion), `RuleGuard` (the action audit), `RuleExchange` (export, import). Rules are
 * announced as they change (`rulesChanged`), verdicts as they are stored (`rulesJudged`); scan
 * lessons come in as the scan system announces them (`scanLessonsStored`).
 */
export class RuleBookService extends Service {
  static override serviceType = RULE_BOOK_SERVICE;
  override capabilityDescription = 'Learns typed rules from events, keeps their confidence, audits actions against them';

  settings!: RuleBookSettings;
  store!: RuleStore;
  vectorizer!: Vectorizer;
  private state!: RuleBookState;
  private intake!: RuleIntake;
  private upkeep!: RuleUpkeep;
  private audit!: RuleGuard;
  private exchange!: RuleExchange;
  private readonly subscriptions: (() => void)[] = [];

  static override async start(runtime: IAgentRuntime): Promise<RuleBookService> {
    const service = new RuleBookService(runtime);
    await service.open();
    return service;
  }

  private async open(): Promise<void> {
    this.settings = ruleBookSettings(loadConfig(this.runtime));
    const db = dbOf(this.runtime);
    await startTurn();
    await requireTables(db, Object.values(ruleTables));
    this.store = new RuleStore(db, this.runtime.agentId, logRetentionOf(this.runtime, loadConfig(this.runtime).SELF_IMPROVE_LOG_MAX_ROWS, RULES_LOG_SRC));
    this.vectorizer = vectorizerFor(this.runtime);
    const state = new RuleBookState(this.runtime, this.settings, this.store, this.vectorizer);
    [this.state, this.intake, this.upkeep, this.audit, this.exchange] = [state, new RuleIntake(state), new RuleUpkeep(state), new RuleGuard(state), new RuleExchange(state)];
    const events = eventsOf(this.runtime);
    this.subscriptions.push(
      events.announce('rulesChanged', () => ({ rules: [...state.rules.values()] })),
      events.on('scanLessonsStored', ({ scanLessons }) => {
        for (const lesson of scanLessons) state.scanLessons.set(lesson.id, lesson);
      }),
      events.on('scanLessonsLetGo', ({ ids }) => {
        for (const id of ids) state.scanLessons.delete(id);
      }),
    );
    await startTurn();
    state.eventTotal = await this.store.eventCount();
    await startTurn();
    // A lesson it cannot read is reported once, by the load below.
    const adopted = (await this.store.adoptLegacyLessons()).items;
    if (adopted.length > 0) this.runtime.logger.info({ src: RULES_LOG_SRC, agentId: this.runtime.agentId, lessons: adopted.length }, 'rule lessons of an earlier version: each event now names its lesson, and the lessons keep their newest event ids');
    await startTurn();
    await this.loadRuleLessons();
    await startTurn();
    state.adoptRules(state.reported(await this.store.loadRules()));
    await startTurn();
    await ensureRuleDecayTask(this.runtime, this.settings.decayIntervalMs);
  }

  /**
   * Lessons with the vectors they are compared by. A stored vector is used when it comes from the
   * current vectorizer (and, for a model, has the model's dimension: one probe embedding tells);
   * otherwise the lesson is embedded again. Model vectors made so are stored (embedding is costly);
   * lexical ones are only computed (cheap), so a stored model vector survives a run without the model.
   */
  private async loadRuleLessons(): Promise<void> {
    const lessons = this.state.reported(await this.store.loadRuleLessons());
    const source = this.vectorizer.source;
    const dimension = source === 'model' && lessons.some((l) => l.vector?.source === 'model') ? (await this.vectorizer.embed('dimension probe')).length : null;
    const reembedded: IndexedRuleLesson[] = [];
    for (const stored of lessons) {
      const usable = stored.vector && stored.vector.source === source && (dimension === null || stored.vector.values.length === dimension);
      const indexed = usable ? { lesson: stored.lesson, vector: stored.vector?.values as number[] } : { lesson: stored.lesson, vector: await this.vectorizer.embed(ruleLessonVectorText(stored.lesson)) };
      if (!usable) reembedded.push(indexed);
      this.state.ruleLessons.set(stored.lesson.id, indexed);
    }
    if (source === 'model' && reembedded.length > 0) await this.store.upsertRuleLessons(this.state.storedRuleLessons(reembedded));
  }

  override async stop(): Promise<void> {
    for (const undo of this.subscriptions.splice(0)) undo();
    await this.state?.writes.idle();
  }

  // ---- writes (each part's doc says what it does) ----

  ingestEvents(...args: Parameters<RuleIntake['ingestEvents']>) {
    return this.intake.ingestEvents(...args);
  }

  ingestEventText(...args: Parameters<RuleIntake['ingestEventText']>) {
    return this.intake.ingestEventText(...args);
  }

  ingestEventChunks(...args: Parameters<RuleIntake['ingestEventChunks']>) {
    return this.intake.ingestEventChunks(...args);
  }

  recordDraft(...args: Parameters<RuleIntake['recordDraft']>) {
    return this.intake.recordDraft(...args);
  }

  validateRule(...args: Parameters<RuleUpkeep['validateRule']>) {
    return this.upkeep.validateRule(...args);
  }

  recordViolation(...args: Parameters<RuleUpkeep['recordViolation']>) {
    return this.upkeep.recordViolation(...args);
  }

  retireRule(...args: Parameters<RuleUpkeep['retireRule']>) {
    return this.upkeep.retireRule(...args);
  }

  approveRule(...args: Parameters<RuleUpkeep['approveRule']>) {
    return this.upkeep.approveRule(...args);
  }

  rejectRule(...args: Parameters<RuleUpkeep['rejectRule']>) {
    return this.upkeep.rejectRule(...args);
  }

  applyDecay(nowMs: number) {
    return this.upkeep.applyDecay(nowMs);
  }

  promoteRuleLessons(nowMs: number) {
    return this.upkeep.promoteRuleLessons(nowMs);
  }

  promoteScanLessons(nowMs: number) {
    return this.upkeep.promoteScanLessons(nowMs);
  }

  /** The periodic task's work: decay, lessons due for promotion, scan lessons. */
  async maintain(nowMs: number): Promise<{ decayed: number; flagged: number; promoted: string[]; scanPromoted: string[] }> {
    const decay = await this.applyDecay(nowMs);
    const promoted = await this.promoteRuleLessons(nowMs);
    const scanPromoted = await this.promoteScanLessons(nowMs);
    return { ...decay, promoted, scanPromoted };
  }

  guard(...args: Parameters<RuleGuard['guard']>) {
    return this.audit.guard(...args);
  }

  settleGuard(...args: Parameters<RuleGuard['settleGuard']>) {
    return this.audit.settleGuard(...args);
  }

  exportRules(...args: Parameters<RuleExchange['exportRules']>) {
    return this.exchange.exportRules(...args);
  }

  importRules(doc: unknown) {
    return this.exchange.importRules(doc);
  }

  // ---- reading ----

  /** Rules by type priority (NEVER, MUST, CHECK, PREFER), then id. */
  rules(filter: RuleFilter = {}): Rule[] {
    return [...this.state.rules.values()]
      .filter((r) => (filter.status === undefined || r.status === filter.status) && (filter.category === undefined || r.category === filter.category) && (filter.includeFlagged !== false || !r.reviewFlagged))
      .sort((a, b) => RULE_TYPE_PRIORITY[a.type] - RULE_TYPE_PRIORITY[b.type] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  rule(id: string): Rule | undefined {
    return this.state.rules.get(id);
  }

  /** Every rule lesson, by id. */
  ruleLessons(): RuleLesson[] {
    return [...this.state.ruleLessons.values()].map((l) => l.lesson).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * The events behind a rule lesson, oldest first (the newest `limit` when given): its whole
   * provenance, kept with each event (a lesson's own document keeps its newest ids only).
   */
  async ruleLessonEvents(lessonId: string, limit?: number): Promise<LearningEvent[]> {
    return this.state.reported(await this.store.loadEvents({ lessonId, ...(limit === undefined ? {} : { limit }) }));
  }

  /** Events stored for this agent. */
  eventCount(): number {
    return this.state.eventTotal;
  }

  /**
   * The TOP_RULES text for a message: injectable rules (active, unflagged, no conflict, confidence
   * ≥ 0.5 at `nowMs`) that apply to the text (lexical vector), tags or categories, NEVER and MUST
   * first, within `SELF_IMPROVE_RULE_TOKEN_BUDGET` (or a smaller `tokenBudget`). From memory, no I/O.
   */
  promptRules(context: { text: string; tags?: readonly string[]; categories?: readonly string[]; nowMs: number; tokenBudget?: number }): { text: string; selected: SelectedRule[] } {
    return selectRulesForPrompt(this.state.preparedRules(), {
      nowMs: context.nowMs,
      tokenBudget: Math.min(this.settings.tokenBudget, context.tokenBudget ?? Number.POSITIVE_INFINITY),
      policy: this.settings.policy,
      ...(context.text.trim() === '' ? {} : { contextVector: lexicalVector(context.text) }),
      contextTags: context.tags ?? [],
      contextCategories: context.categories ?? [],
    });
  }

  /** The newest guard entries, newest first. */
  guardLog(limit: number) {
    return this.audit.guardLog(limit);
  }

  /** The newest parse errors, newest first. */
  async parseErrors(limit: number): Promise<ParseErrorEntry[]> {
    return this.state.reported(await this.store.parseErrors(limit));
  }

  /**
   * Seed 003's weekly metrics from the first stored event, lesson or rule to `nowMs`. The events are
   * tallied by the database (`tallyStoredEvents`); the guard entries are the newest
   * METRICS_GUARD_ENTRIES (a pruned log).
   */
  async metrics(nowMs = Date.now()): Promise<RuleMetrics> {
    const rules = [...this.state.rules.values()];
    const { tally, firstTsMs } = await tallyStoredEvents(dbOf(this.runtime), this.runtime.agentId, rules);
    const guardEntries = this.state.reported(await this.store.guardEntries({ limit: METRICS_GUARD_ENTRIES }));
    const lessons = this.ruleLessons();
    let startedMs = Math.min(nowMs, firstTsMs ?? nowMs);
    for (const t of [...lessons.map((l) => l.createdMs), ...rules.map((r) => r.createdMs)]) startedMs = Math.min(startedMs, t);
    return ruleMetricsOf({ tally, lessons, rules, guardEntries, nowMs, startedMs });
  }
}

/** Waits until the runtime has started RuleBookService and returns it. */
export const ruleBookOf = (runtime: IAgentRuntime): Promise<RuleBookService> => serviceOf(runtime, RuleBookService);
