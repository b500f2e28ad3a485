import { randomBytes } from 'node:crypto';
import { type IAgentRuntime, Service } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import type { EventDraft } from './model/event-draft';
import { parseRowsText } from '../shared/jsonl';
import { ruleLedgerEntry } from '../ledger/model/entries';
import { lexicalVector } from '../shared/lexical-vector';
import { decayRule, validateRule as validatedRule, recordViolation as violatedRule } from './model/confidence';
import { checkEventRows, type EventRejection, eventToWire } from './model/events';
import { exportRules, type RuleExport } from './model/export';
import { asCandidates, type ImportError, type ImportStep, planImport, verifyImport } from './model/import';
import { applyVerdict, type GuardMatch, judgeRuleOnOutcome, matchRulesForAction, type RuleVerdict } from './model/guard';
import { lessonVectorText, nextId, recordLessonApplied } from './model/rule-lessons';
import { type GuardEntry, guardLogEntry, type ParseErrorEntry, parseErrorEntry, withGuardOutcome } from './model/logs';
import { type RuleMetrics, weeklyRuleMetrics } from './model/metrics';
import { approveCandidate, ruleFromScanLesson, scanLessonPromotion } from './model/promotion';
import { type PreparedRule, prepareRule, type SelectedRule, selectRulesForPrompt } from './model/prompt';
import { checkSignature, type ImportTrust, type RuleSignature, signDocument, type UnsignedMark } from './model/signing';
import { type LearningEvent, RULE_TYPE_PRIORITY, type Rule, type RuleLesson, type RuleStatus, type Teacher } from './model/types';
import { ensureRuleDecayTask } from './surfaces/rule-decay-task';
import type { EloBookService } from '../elo/elo-book-service';
import { vectorizerFor, type Vectorizer } from '../scan/lesson-store';
import type { RewardLedgerService } from '../ledger/reward-ledger-service';
import { type RuleBookSettings, ruleBookSettings } from './rule-book-settings';
import { type IndexedLesson, planLearning, promoteDue, scanLessonStatsOf, storedLesson, withConflicts } from './rule-learning';
import type { Loaded } from './rule-rows';
import { GuardOutcomeConflict, type LearningBatch, RuleStore } from './rule-store';
import { scanOutcomeServiceOf } from '../scan/scan-outcome-service';
import { ELO_BOOK_SERVICE, REWARD_LEDGER_SERVICE, RULE_BOOK_SERVICE } from '../shared/service-names';
import { databaseReason, dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';
import { ruleTables } from './tables';

export { RULE_BOOK_SERVICE };

const LOG_SRC = 'plugin:self-improve:rules';
/** The ELO book's item kind for rules. */
export const RULE_KIND = 'rule';
/** Most guard entries `metrics` reads. */
const METRICS_GUARD_ENTRIES = 100_000;

export interface EventIngestResult {
  accepted: number;
  duplicate: number;
  rejected: EventRejection[];
  /** Index in the batch and id of each valid row, new (`accepted`) or already stored (`duplicate`). */
  events: { index: number; id: string; status: 'accepted' | 'duplicate' }[];
  lessonsCreated: number;
  lessonsUpdated: number;
  rulesPromoted: string[];
  /** Candidate rules made from lessons people taught (waiting for approval). */
  candidates: string[];
}

/** `ingestEventText`: rows are numbered by line (JSONL) or item (JSON array), 1-based, in `line`. */
export interface EventTextResult extends EventIngestResult {
  rows: number;
  /** Lines that were not JSON; each is also in the parse-error log. */
  parseErrors: { line: number; message: string }[];
  /** The line of each rejected row (same order as `rejected`). */
  rejectedLines: number[];
}

export interface RuleFilter {
  status?: RuleStatus;
  category?: string;
  /** Default true; false leaves out rules flagged for review. */
  includeFlagged?: boolean;
}

/** Why a rule was not changed: unknown id; retired; not in use (a candidate or rejected: approve it first); not a candidate (approve, reject). */
export type RuleChangeRefusal = 'not_found' | 'retired' | 'not_active' | 'not_candidate';
export type RuleChange = { ok: true; rule: Rule } | { ok: false; code: RuleChangeRefusal; message: string };
export type GuardSettlement =
  | { ok: true; entry: GuardEntry; verdicts: { ruleId: string; verdict: RuleVerdict }[] }
  | { ok: false; code: 'not_found' | 'already_set'; message: string };
/**
 * An import: the rules added and skipped, and how far the file was trusted: `trusted` (signed by a
 * trusted key: imported as they are), `unsigned` or `unknown_signer` (imported as candidates).
 */
export type ImportResult = { ok: true; steps: ImportStep[]; added: string[]; skipped: number; trust: ImportTrust; keyId?: string } | ImportError;

/**
 * The rules system of one agent (seed 003): events in, lessons, typed rules with decaying
 * confidence, candidates waiting for a trusted person's approval, the action audit (the seed's
 * guard log), signed export/import and metrics. The one stateful part: the evaluator, TOP_RULES,
 * the audit events, routes, CLI and chat actions all call it. Who may teach or change rules is
 * decided by the callers (`trustOf`); what reaches this service from a person carries it. Lessons
 * (with vectors) and rules are held in memory and written through `RuleStore`; every change is
 * committed in one transaction before the in-memory state takes it. Writes run one at a time.
 */
export class RuleBookService extends Service {
  static override serviceType = RULE_BOOK_SERVICE;
  override capabilityDescription = 'Learns typed rules from events, keeps their confidence, audits actions against them';

  settings!: RuleBookSettings;
  store!: RuleStore;
  vectorizer!: Vectorizer;
  private readonly lessonMap = new Map<string, IndexedLesson>();
  private readonly ruleMap = new Map<string, Rule>();
  private readonly prepared = new Map<string, PreparedRule>();
  private preparedList: PreparedRule[] | null = null;
  private eventTotal = 0;
  private writes: Promise<unknown> = Promise.resolve();

  static override async start(runtime: IAgentRuntime): Promise<RuleBookService> {
    const service = new RuleBookService(runtime);
    await service.open();
    return service;
  }

  private async open(): Promise<void> {
    this.settings = ruleBookSettings(loadConfig(this.runtime));
    const db = dbOf(this.runtime);
    await requireTables(db, Object.values(ruleTables));
    this.store = new RuleStore(db, this.runtime.agentId);
    this.vectorizer = vectorizerFor(this.runtime);
    this.eventTotal = await this.store.eventCount();
    await this.loadLessons();
    this.adoptRules(this.reported(await this.store.loadRules()));
    void this.registerAllWithElo();
    await ensureRuleDecayTask(this.runtime, this.settings.decayIntervalMs);
  }

  /**
   * Lessons with the vectors they are compared by. A stored vector is used when it comes from the
   * current vectorizer (and, for a model, has the model's dimension: one probe embedding tells);
   * otherwise the lesson is embedded again. Model vectors made so are stored (embedding is costly);
   * lexical ones are only computed (cheap), so a stored model vector survives a run without the model.
   */
  private async loadLessons(): Promise<void> {
    const lessons = this.reported(await this.store.loadLessons());
    const source = this.vectorizer.source;
    const dimension = source === 'model' && lessons.some((l) => l.vector?.source === 'model') ? (await this.vectorizer.embed('dimension probe')).length : null;
    const reembedded: IndexedLesson[] = [];
    for (const stored of lessons) {
      const usable = stored.vector && stored.vector.source === source && (dimension === null || stored.vector.values.length === dimension);
      const indexed = usable ? { lesson: stored.lesson, vector: stored.vector?.values as number[] } : { lesson: stored.lesson, vector: await this.vectorizer.embed(lessonVectorText(stored.lesson)) };
      if (!usable) reembedded.push(indexed);
      this.lessonMap.set(stored.lesson.id, indexed);
    }
    if (source === 'model' && reembedded.length > 0) await this.store.upsertLessons(reembedded.map((l) => storedLesson(l, source)));
  }

  override async stop(): Promise<void> {
    await this.writes.catch(() => undefined);
  }

  /** Runs `work` after every earlier write: concurrent callers never plan from the same state. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writes.catch(() => undefined).then(work);
    this.writes = next;
    return next;
  }

  // ---- events in ----

  /**
   * Validates rows (seed 003 event format), stores the new ones (an id already stored is a
   * duplicate and changes nothing), clusters each into a lesson, promotes lessons that meet the
   * promotion settings and marks MUST/NEVER conflicts, all in one transaction. When the database
   * refuses that transaction, each new event is stored in its own (with its lesson and rule
   * changes), so an event it refuses is reported (field `(row)`, code `refused_by_database`, the
   * database's reason) and the others are kept. When it refuses every new event, alone as well as
   * together, the database failed, not the rows: the call rejects with its error, nothing written.
   */
  ingestEvents(rows: readonly unknown[], source: string, options: { nowMs?: number; teacher?: Teacher } = {}): Promise<EventIngestResult> {
    return this.serial(() => this.ingestNow(rows, source, options.nowMs ?? Date.now(), [], options.teacher));
  }

  /**
   * JSONL (or a JSON array) of events. Lines that are not JSON go to the parse-error log (seed
   * format, `script` names the caller) in the same transaction as the good rows, and are reported.
   */
  ingestEventText(text: string, source: string, script: string, options: { nowMs?: number } = {}): Promise<EventTextResult> {
    return this.serial(async () => {
      const nowMs = options.nowMs ?? Date.now();
      const parsed = parseRowsText(text);
      const lines = text.split(/\r?\n/);
      const errors = parsed.errors.map((e) =>
        parseErrorEntry({ nowMs, error: e.message, line: parsed.values.length === 0 && text.trim().startsWith('[') ? text.trim() : (lines[e.line - 1] ?? ''), script }),
      );
      const result = await this.ingestNow(parsed.values.map((v) => v.value), source, nowMs, errors);
      return {
        ...result,
        rows: parsed.values.length + parsed.errors.length,
        parseErrors: parsed.errors.map((e) => ({ line: e.line, message: e.message })),
        rejectedLines: result.rejected.map((r) => parsed.values[r.index]?.line ?? r.index + 1),
      };
    });
  }

  /**
   * An evaluator's draft as an event; its polarity travels as a `positive`/`negative` tag (which
   * `feedbackPolarity` reads). `teacher`: the person who taught it, and whether they were trusted
   * (only trusted confirmations count toward promotion; a lesson a person taught is a candidate until then).
   */
  recordDraft(draft: EventDraft, source: string, options: { teacher?: Teacher } = {}): Promise<EventIngestResult> {
    const { polarity, ...event } = draft;
    const tags = polarity === 'neutral' || event.tags.includes(polarity) ? event.tags : [...event.tags, polarity];
    return this.ingestEvents([eventToWire({ id: '', ...event, tags })], source, { nowMs: draft.tsMs, ...(options.teacher ? { teacher: options.teacher } : {}) });
  }

  private async ingestNow(rows: readonly unknown[], source: string, nowMs: number, parseErrors: ParseErrorEntry[], teacher?: Teacher): Promise<EventIngestResult> {
    const checked = checkEventRows(rows, { nowMs, source });
    if (teacher) for (const v of checked.valid) v.event = { ...v.event, teacher };
    const known = await this.store.knownEventIds(checked.valid.map((v) => v.event.id));
    const fresh: { index: number; event: LearningEvent }[] = [];
    const seen: { index: number; id: string; isNew: boolean }[] = [];
    for (const { index, event } of checked.valid) {
      const isNew = !known.has(event.id);
      known.add(event.id);
      seen.push({ index, id: event.id, isNew });
      if (isNew) fresh.push({ index, event });
    }
    const totals = { lessonsCreated: 0, lessonsUpdated: 0, rulesPromoted: [] as string[], candidates: [] as string[] };
    const refused: EventRejection[] = [];
    const whole = await this.learn(fresh.map((f) => f.event), nowMs, parseErrors, totals);
    if (!whole.ok && fresh.length <= 1) throw whole.error;
    if (!whole.ok) {
      // One event the database will not store fails the whole commit: each event gets its own, so only those refused are left out.
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, events: fresh.length, reason: databaseReason(whole.error) }, 'the database refused an event batch; storing its events one by one');
      for (const { index, event } of fresh) {
        const one = await this.learn([event], nowMs, [], totals);
        if (!one.ok) refused.push({ index, field: '(row)', code: 'refused_by_database', message: `the database refused the row: ${databaseReason(one.error)}` });
      }
      // Not one event stored, alone or together: the database failed, not the content of some rows.
      if (refused.length === fresh.length) throw whole.error;
      // A later copy of a refused event (same id) was counted as its duplicate: it is refused with it.
      const refusedIds = new Map(refused.map((r) => [seen.find((e) => e.index === r.index)?.id, r.message]));
      for (const e of seen) if (!e.isNew && refusedIds.has(e.id)) refused.push({ index: e.index, field: '(row)', code: 'refused_by_database', message: refusedIds.get(e.id) as string });
      const logged = parseErrors.length === 0 ? ({ ok: true } as const) : await this.learn([], nowMs, parseErrors, totals);
      if (!logged.ok) this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, reason: databaseReason(logged.error) }, 'could not write the parse-error log entries of an event batch');
    }
    const refusedAt = new Set(refused.map((r) => r.index));
    const events = seen.filter((e) => !refusedAt.has(e.index)).map((e) => ({ index: e.index, id: e.id, status: e.isNew ? ('accepted' as const) : ('duplicate' as const) }));
    return {
      accepted: events.filter((e) => e.status === 'accepted').length,
      duplicate: events.filter((e) => e.status === 'duplicate').length,
      rejected: [...checked.rejected, ...refused].sort((a, b) => a.index - b.index),
      events,
      ...totals,
    };
  }

  /**
   * Plans what `events` teach, commits them with the plan and `parseErrors` in one transaction,
   * then takes the new state and adds to `totals`. A refused commit changes nothing and is
   * returned with its error; a failure while planning (the embedding model) is thrown.
   */
  private async learn(
    events: readonly LearningEvent[],
    nowMs: number,
    parseErrors: readonly ParseErrorEntry[],
    totals: { lessonsCreated: number; lessonsUpdated: number; rulesPromoted: string[]; candidates: string[] },
  ): Promise<{ ok: true } | { ok: false; error: unknown }> {
    const plan = await planLearning({
      events,
      lessons: this.lessonMap,
      rules: this.ruleMap,
      vectorizer: this.vectorizer,
      matchThreshold: this.settings.matchThreshold,
      criteria: this.settings.criteria,
      nowMs,
    });
    try {
      await this.store.commitLearning({ events, lessons: plan.lessons.map((l) => storedLesson(l, this.vectorizer.source)), rules: plan.rules, parseErrors });
    } catch (error) {
      return { ok: false, error };
    }
    this.eventTotal += events.length;
    for (const l of plan.lessons) this.lessonMap.set(l.lesson.id, l);
    this.adoptRules(plan.rules);
    totals.lessonsCreated += plan.lessonsCreated;
    totals.lessonsUpdated += plan.lessonsUpdated;
    totals.rulesPromoted.push(...plan.rulesPromoted);
    totals.candidates.push(...plan.candidates);
    return { ok: true };
  }

  // ---- reading ----

  /** Rules by type priority (NEVER, MUST, CHECK, PREFER), then id. */
  rules(filter: RuleFilter = {}): Rule[] {
    return [...this.ruleMap.values()]
      .filter((r) => (filter.status === undefined || r.status === filter.status) && (filter.category === undefined || r.category === filter.category) && (filter.includeFlagged !== false || !r.reviewFlagged))
      .sort((a, b) => RULE_TYPE_PRIORITY[a.type] - RULE_TYPE_PRIORITY[b.type] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  rule(id: string): Rule | undefined {
    return this.ruleMap.get(id);
  }

  /** Every lesson, by id. */
  lessons(): RuleLesson[] {
    return [...this.lessonMap.values()].map((l) => l.lesson).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Events stored for this agent. */
  eventCount(): number {
    return this.eventTotal;
  }

  /**
   * The TOP_RULES text for a message: injectable rules (active, unflagged, no conflict, confidence
   * ≥ 0.5 at `nowMs`) that apply to the text (lexical vector), tags or categories, NEVER and MUST
   * first, within `SELF_IMPROVE_RULE_TOKEN_BUDGET` (or a smaller `tokenBudget`). From memory, no I/O.
   */
  promptRules(context: { text: string; tags?: readonly string[]; categories?: readonly string[]; nowMs: number; tokenBudget?: number }): { text: string; selected: SelectedRule[] } {
    return selectRulesForPrompt(this.preparedRules(), {
      nowMs: context.nowMs,
      tokenBudget: Math.min(this.settings.tokenBudget, context.tokenBudget ?? Number.POSITIVE_INFINITY),
      policy: this.settings.policy,
      ...(context.text.trim() === '' ? {} : { contextVector: lexicalVector(context.text) }),
      contextTags: context.tags ?? [],
      contextCategories: context.categories ?? [],
    });
  }

  // ---- validation, retirement, violation, approval, decay ----

  /** A rule confirmed (confidence back to 0.9, one more validation); rewarded in the ledger and a win in the ELO book. Only active rules. */
  validateRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => validatedRule(r, nowMs), 'validated', 'validated by request');
  }

  /** A rule broken (one more violation); a penalty in the ledger and a loss in the ELO book. Only active rules. */
  recordViolation(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => violatedRule(r, nowMs), 'violated', 'violation reported');
  }

  /** An active rule taken out of use; conflicts are recomputed, so its partner is no longer held back by it. */
  retireRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => ({ ...r, status: 'retired', lastCheckedMs: nowMs }), null, 'retired');
  }

  private changeRule(id: string, nowMs: number, change: (rule: Rule) => Rule, verdict: 'validated' | 'violated' | null, context: string): Promise<RuleChange> {
    return this.serial(async (): Promise<RuleChange> => {
      const rule = this.ruleMap.get(id);
      if (!rule) return { ok: false, code: 'not_found', message: `no rule ${id}` };
      if (rule.status === 'retired') return { ok: false, code: 'retired', message: `rule ${id} is retired` };
      if (rule.status !== 'active') return { ok: false, code: 'not_active', message: `rule ${id} is ${rule.status === 'candidate' ? 'a candidate: approve it first' : 'rejected'}` };
      const changed = withConflicts(this.ruleMap, [change(rule)]);
      await this.store.upsertRules(changed);
      this.adoptRules(changed);
      if (verdict) await this.creditVerdicts([{ ruleId: id, verdict }], context, nowMs);
      return { ok: true, rule: this.ruleMap.get(id) as Rule };
    });
  }

  /**
   * A candidate approved by a trusted person (the caller checks who): it becomes active as it was
   * listed (`approveCandidate`), and the lesson it came from counts as promoted to it, in one
   * transaction. No ledger entry: approving is not a validation.
   */
  approveRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.decideCandidate(id, (r) => approveCandidate(r, nowMs));
  }

  /** A candidate turned down by a trusted person: status `rejected`, never in a prompt; its lesson keeps learning. */
  rejectRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.decideCandidate(id, (r) => ({ ...r, status: 'rejected', lastCheckedMs: nowMs }));
  }

  private decideCandidate(id: string, decide: (rule: Rule) => Rule): Promise<RuleChange> {
    return this.serial(async (): Promise<RuleChange> => {
      const rule = this.ruleMap.get(id);
      if (!rule) return { ok: false, code: 'not_found', message: `no rule ${id}` };
      if (rule.status !== 'candidate') return { ok: false, code: 'not_candidate', message: `rule ${id} is ${rule.status}, not a candidate` };
      const decided = decide(rule);
      const rules = withConflicts(this.ruleMap, [decided]);
      const source = [...this.lessonMap.values()].find((l) => l.lesson.candidateRule === id);
      const lessons = decided.status === 'active' && source && source.lesson.promotedToRule === undefined ? [{ ...source, lesson: { ...source.lesson, promotedToRule: id } }] : [];
      await this.store.commitLearning({ rules, lessons: lessons.map((l) => storedLesson(l, this.vectorizer.source)) });
      for (const l of lessons) this.lessonMap.set(l.lesson.id, l);
      this.adoptRules(rules);
      return { ok: true, rule: this.ruleMap.get(id) as Rule };
    });
  }

  /**
   * Recomputes every active rule's confidence at `nowMs` from its last validation
   * (`confidenceAt`), flags those below 0.5, and writes the ones that changed in one transaction.
   * A function of timestamps: a missed run loses nothing, a repeated one changes nothing.
   */
  applyDecay(nowMs: number): Promise<{ decayed: number; flagged: number }> {
    return this.serial(async () => {
      const changed: Rule[] = [];
      let flagged = 0;
      for (const rule of this.ruleMap.values()) {
        if (rule.status !== 'active') continue;
        const next = decayRule(rule, nowMs, this.settings.policy);
        if (next.confidenceScore === rule.confidenceScore && next.reviewFlagged === rule.reviewFlagged) continue;
        changed.push(next);
        if (next.reviewFlagged && !rule.reviewFlagged) flagged++;
      }
      await this.store.upsertRules(changed);
      this.adoptRules(changed);
      return { decayed: changed.length, flagged };
    });
  }

  /** Promotes lessons that meet the promotion settings now (e.g. once `SELF_IMPROVE_RULE_MIN_AGE_DAYS` have passed). */
  promoteLessons(nowMs: number): Promise<string[]> {
    return this.serial(async () => {
      const due = new Map([...this.lessonMap].filter(([, l]) => l.lesson.promotedToRule === undefined));
      const promotions = promoteDue(due, this.ruleMap, this.settings.criteria, nowMs);
      if (promotions.rules.length === 0 && promotions.lessonIds.length === 0) return [];
      const lessons = promotions.lessonIds.map((id) => due.get(id) as IndexedLesson);
      const rules = promotions.rules.length === 0 ? [] : withConflicts(this.ruleMap, promotions.rules);
      await this.store.commitLearning({ lessons: lessons.map((l) => storedLesson(l, this.vectorizer.source)), rules });
      for (const l of lessons) this.lessonMap.set(l.lesson.id, l);
      this.adoptRules(rules);
      return promotions.promoted;
    });
  }

  /**
   * Promotes `scan-model-lesson` memories (seed 001) with strong, lasting support
   * (`scanLessonPromotion` with the `SELF_IMPROVE_SCAN_RULE_*` settings), each once: a memory that
   * is the `sourceLesson` of any rule (even a retired one) is not promoted again. Off when
   * `SELF_IMPROVE_SCAN_RULE_PROMOTION=off`. Run by the decay task.
   */
  promoteScanLessons(nowMs: number): Promise<string[]> {
    if (!this.settings.scanPromotion) return Promise.resolve([]);
    return this.serial(async () => {
      const scan = await scanOutcomeServiceOf(this.runtime);
      const sources = new Set([...this.ruleMap.values()].map((r) => r.sourceLesson));
      const promoted: Rule[] = [];
      let nextRuleId = nextId('R', this.ruleMap.keys());
      for (const lesson of scan.listLessons()) {
        if (sources.has(lesson.id)) continue;
        const stats = scanLessonStatsOf(lesson);
        const decision = scanLessonPromotion(stats, this.settings.scanCriteria, nowMs);
        if (!decision.promote) continue;
        promoted.push(ruleFromScanLesson(stats, decision.type, nextRuleId, nowMs));
        nextRuleId = nextId('R', [nextRuleId]);
      }
      if (promoted.length === 0) return [];
      const rules = withConflicts(this.ruleMap, promoted);
      await this.store.upsertRules(rules);
      this.adoptRules(rules);
      return promoted.map((r) => r.id);
    });
  }

  /** The periodic task's work: decay, lessons due for promotion, scan lessons. */
  async maintain(nowMs: number): Promise<{ decayed: number; flagged: number; promoted: string[]; scanPromoted: string[] }> {
    const decay = await this.applyDecay(nowMs);
    const promoted = await this.promoteLessons(nowMs);
    const scanPromoted = await this.promoteScanLessons(nowMs);
    return { ...decay, promoted, scanPromoted };
  }

  // ---- the guard ----

  /**
   * Before an action: the rules that speak about it (`matchRulesForAction`: meaning by lexical
   * vector plus category and tags, `SELF_IMPROVE_GUARD_THRESHOLD`), logged as a pending guard entry.
   */
  guard(action: string, nowMs = Date.now()): Promise<{ entry: GuardEntry; matches: GuardMatch[] }> {
    return this.serial(async () => {
      const matches = matchRulesForAction(action, lexicalVector(action), this.preparedRules(), { nowMs, threshold: this.settings.guardThreshold, policy: this.settings.policy });
      for (;;) {
        const entry = guardLogEntry({ nowMs, action, matches, randomHex: randomBytes(3).toString('hex') });
        const [stored] = await this.store.appendGuardEntries([entry]);
        if (stored === entry.id) return { entry, matches };
      }
    });
  }

  /**
   * After the action: sets the guard entry's outcome (once) and judges each matched rule that is
   * still active (`judgeRuleOnOutcome`): validated or violated rules are written with the outcome
   * in one transaction, then credited in the ledger and the ELO book. A validated NEVER rule is a
   * save: its lesson counts it (`times_saved`) and the entry's `save_logged` is set. With
   * `credit: false` (an action run for someone who may not teach) the entry gets its outcome and
   * the verdicts are returned, but no rule, lesson, ledger or ELO entry changes.
   */
  settleGuard(guardId: string, outcome: { succeeded: boolean; actionText: string }, nowMs = Date.now(), options: { credit?: boolean } = {}): Promise<GuardSettlement> {
    const credit = options.credit ?? true;
    return this.serial(async (): Promise<GuardSettlement> => {
      const [entry] = this.reported(await this.store.guardEntry(guardId));
      if (!entry) return { ok: false, code: 'not_found', message: `no guard entry ${guardId}` };
      if (entry.outcome !== 'pending') return { ok: false, code: 'already_set', message: `guard entry ${guardId} already has the outcome ${entry.outcome}` };
      const verdicts: { ruleId: string; verdict: RuleVerdict }[] = [];
      const changed: Rule[] = [];
      const lessons: IndexedLesson[] = [];
      for (const ruleId of entry.matchedRules) {
        const rule = this.ruleMap.get(ruleId);
        if (!rule || rule.status !== 'active') continue;
        const verdict = judgeRuleOnOutcome(rule, outcome);
        verdicts.push({ ruleId, verdict });
        if (verdict === 'unchanged' || !credit) continue;
        changed.push(applyVerdict(rule, verdict, nowMs));
        const lesson = this.lessonMap.get(rule.sourceLesson);
        if (lesson && verdict === 'validated') lessons.push({ ...lesson, lesson: recordLessonApplied(lesson.lesson, rule.type === 'NEVER') });
      }
      const settled = withGuardOutcome(entry, outcome.succeeded ? 'success' : 'failure', credit && verdicts.some((v) => v.verdict === 'validated' && this.ruleMap.get(v.ruleId)?.type === 'NEVER'));
      const rules = changed.length === 0 ? [] : withConflicts(this.ruleMap, changed);
      const batch: LearningBatch = { rules, lessons: lessons.map((l) => storedLesson(l, this.vectorizer.source)), guardOutcomes: [{ id: guardId, outcome: settled.outcome as 'success' | 'failure', saveLogged: settled.saveLogged }] };
      try {
        await this.store.commitLearning(batch);
      } catch (error) {
        if (error instanceof GuardOutcomeConflict) return { ok: false, code: 'already_set', message: error.message };
        throw error;
      }
      for (const l of lessons) this.lessonMap.set(l.lesson.id, l);
      this.adoptRules(rules);
      if (credit) await this.creditVerdicts(verdicts.filter((v): v is { ruleId: string; verdict: 'validated' | 'violated' } => v.verdict !== 'unchanged'), `guard ${guardId}`, nowMs);
      return { ok: true, entry: settled, verdicts };
    });
  }

  /** The newest guard entries, newest first. */
  async guardLog(limit: number): Promise<GuardEntry[]> {
    return this.reported(await this.store.guardEntries({ limit }));
  }

  /** The newest parse errors, newest first. */
  async parseErrors(limit: number): Promise<ParseErrorEntry[]> {
    return this.reported(await this.store.parseErrors(limit));
  }

  // ---- export, import, metrics ----

  /**
   * Seed 003's export document of the stored rules (by id; all statuses), only `category` when
   * given, signed with SELF_IMPROVE_RULE_SIGNING_KEY (`signDocument`); without a key its
   * `signature` says it is unsigned.
   */
  exportRules(options: { category?: string; agentHandle: string; sourceWorkspace: string; nowMs?: number }): RuleExport & { signature: RuleSignature | UnsignedMark } {
    const rules = [...this.ruleMap.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    const doc = exportRules(rules, { agentHandle: options.agentHandle, sourceWorkspace: options.sourceWorkspace, nowMs: options.nowMs ?? Date.now(), ...(options.category === undefined ? {} : { category: options.category }) });
    return signDocument(doc, this.settings.signingKey);
  }

  /**
   * Verifies an export document (`verifyImport`: the first bad rule is named; then
   * `checkSignature`: a signature that does not verify refuses the file) and adds its rules
   * (`planImport`: new ids after the stored ones, duplicates of stored rules skipped), conflicts
   * recomputed, in one transaction. Signed by a trusted key (SELF_IMPROVE_RULE_TRUSTED_KEYS or the
   * agent's own signing key): the rules come in as they are. Unsigned or signed by another key:
   * active rules come in as candidates (`asCandidates`) for a trusted person to approve.
   */
  importRules(doc: unknown): Promise<ImportResult> {
    return this.serial(async (): Promise<ImportResult> => {
      const verified = verifyImport(doc);
      if (!verified.ok) return verified;
      const signature = checkSignature(doc, this.settings.trustedKeyIds);
      if (!signature.ok) return signature;
      const imported = signature.trust === 'trusted' ? verified.rules : asCandidates(verified.rules);
      const steps = planImport(imported, [...this.ruleMap.values()]);
      const added = steps.flatMap((s) => (s.action === 'add' ? [s.rule] : []));
      const rules = added.length === 0 ? [] : withConflicts(this.ruleMap, added);
      await this.store.upsertRules(rules);
      this.adoptRules(rules);
      return { ok: true, steps, added: added.map((r) => r.id), skipped: steps.length - added.length, trust: signature.trust, ...(signature.trust === 'unsigned' ? {} : { keyId: signature.keyId }) };
    });
  }

  /** Seed 003's weekly metrics from the first stored event, lesson or rule to `nowMs`. */
  async metrics(nowMs = Date.now()): Promise<RuleMetrics> {
    const events = this.reported(await this.store.loadEvents());
    const guardEntries = this.reported(await this.store.guardEntries({ limit: METRICS_GUARD_ENTRIES }));
    const lessons = this.lessons();
    const rules = [...this.ruleMap.values()];
    let startedMs = Math.min(nowMs, events[0]?.tsMs ?? nowMs);
    for (const t of [...lessons.map((l) => l.createdMs), ...rules.map((r) => r.createdMs)]) startedMs = Math.min(startedMs, t);
    return weeklyRuleMetrics({ events, lessons, rules, guardEntries, nowMs, startedMs });
  }

  // ---- in-memory state ----

  private preparedRules(): PreparedRule[] {
    this.preparedList ??= [...this.prepared.values()];
    return this.preparedList;
  }

  /** Takes rules that were just written (or loaded): the map, the prepared index (active rules only) and the ELO book's content. */
  private adoptRules(rules: readonly Rule[]): void {
    if (rules.length === 0) return;
    for (const rule of rules) {
      const before = this.ruleMap.get(rule.id);
      this.ruleMap.set(rule.id, rule);
      if (rule.status !== 'active') this.prepared.delete(rule.id);
      else {
        const prepared = this.prepared.get(rule.id);
        const sameText = before !== undefined && before.rule === rule.rule && before.category === rule.category && before.tags.join() === rule.tags.join();
        this.prepared.set(rule.id, prepared && sameText ? { ...prepared, rule } : prepareRule(rule));
      }
    }
    this.preparedList = null;
    const book = this.runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
    if (book) this.syncElo(book, rules);
  }

  /** Rules that may reach a prompt are HIGH_ELO_CONTEXT content (kind `rule`); retired, flagged and conflicting ones are not. */
  private syncElo(book: EloBookService, rules: Iterable<Rule>): void {
    for (const r of rules) {
      if (r.status === 'active' && !r.reviewFlagged && r.conflictsWith.length === 0) book.registerContent([{ kind: RULE_KIND, id: r.id, title: `${r.type} rule ${r.id} (${r.category})`, text: r.rule }]);
      else book.forgetContent(RULE_KIND, r.id);
    }
  }

  private async registerAllWithElo(): Promise<void> {
    try {
      const book = (await this.runtime.getServiceLoadPromise(ELO_BOOK_SERVICE as never)) as unknown as EloBookService;
      this.syncElo(book, this.ruleMap.values());
    } catch (error) {
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'rules are not ELO content');
    }
  }

  /** Ledger entries (`rule_validated` / `rule_violated`) and ELO outcomes (win / loss) for verdicts; a failure is logged, never thrown. */
  private async creditVerdicts(verdicts: readonly { ruleId: string; verdict: 'validated' | 'violated' }[], context: string, nowMs: number): Promise<void> {
    if (verdicts.length === 0) return;
    const book = this.runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
    for (const v of verdicts) book?.recordOutcome([{ kind: RULE_KIND, id: v.ruleId }], v.verdict === 'validated' ? 1 : 0, `rule_${v.verdict}`, nowMs);
    const ledger = this.runtime.getService<RewardLedgerService>(REWARD_LEDGER_SERVICE);
    if (!ledger) return;
    try {
      // Each verdict is its own source record: the rule's n-th validation (or violation), n as just stored.
      const occurrence = (v: (typeof verdicts)[number]) => (v.verdict === 'validated' ? this.ruleMap.get(v.ruleId)?.validationCount : this.ruleMap.get(v.ruleId)?.violations) ?? 0;
      const results = await ledger.appendMany(verdicts.map((v) => ruleLedgerEntry({ ...v, occurrence: occurrence(v), context })), new Date(nowMs).toISOString());
      const refused = results.filter((r) => !r.ok);
      if (refused.length > 0) this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, refused: refused.length, first: refused[0] }, 'ledger refused rule verdicts');
    } catch (error) {
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'could not record rule verdicts in the ledger');
    }
  }

  /** The rows a load returned; the ones it skipped are logged. */
  private reported<T>(loaded: Loaded<T>): T[] {
    for (const issue of loaded.skipped) {
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, table: issue.table, id: issue.id, issue: issue.message }, 'stored row is invalid; left out');
    }
    return loaded.items;
  }
}

/** Waits until the runtime has started RuleBookService and returns it. */
export async function ruleBookOf(runtime: IAgentRuntime): Promise<RuleBookService> {
  return (await runtime.getServiceLoadPromise(RULE_BOOK_SERVICE as never)) as unknown as RuleBookService;
}
