import { type IAgentRuntime, type Memory, Service, type UUID } from '@elizaos/core';
import { loadConfig, type SelfImproveConfig } from '../shared/config';
import { groupId, groupKeyOf, parseGroupId } from './model/grouping';
import { findingKeyIn } from './model/label-request';
import { outcomeLedgerEntry } from '../ledger/model/entries';
import { checkFindingRow, checkOutcomeRows, type FindingRow, type RowRejection } from './model/outcome';
import { computeScanMetrics, type ScanMetricsReport } from './model/metrics';
import { type TriageEstimate, TriagePrior } from './model/triage-prior';
import { weeklyTriage, type WeeklyTriageReport } from './model/weekly-triage';
import { FindingStore, type KnownFinding } from './finding-store';
import type { Lesson } from './lesson-metadata';
import { LessonStore, vectorizerFor } from './lesson-store';
import { OutcomeStore, type StoredOutcome, toStoredOutcome } from './outcome-store';
import { findingContext } from '../elo/model/exposures';
import type { EloBookService } from '../elo/elo-book-service';
import type { RewardLedgerService } from '../ledger/reward-ledger-service';
import { type LearnProgress, type LearnReport, ScanLearner } from './scan-learner';
import { ELO_BOOK_SERVICE, REWARD_LEDGER_SERVICE, SCAN_OUTCOME_SERVICE } from '../shared/service-names';
import { type Db, dbOf } from '../shared/sql';
import { requireTables } from '../shared/plugin-schema';
import { scanTables } from './tables';
import { ensureLearnTask } from './surfaces/learn-pending-task';

export { SCAN_OUTCOME_SERVICE };

/** The answer to `ingest`: what was new, what was already known, and every refused row with its field and reason. */
export interface IngestResult {
  accepted: number;
  duplicate: number;
  rejected: RowRejection[];
  /** Index in the batch and id of each stored (new or already known) outcome. */
  outcomes: { index: number; id: UUID; status: 'accepted' | 'duplicate' }[];
}

/** Lessons named behind one prediction. */
const MAX_LESSONS_PER_PREDICTION = 5;
/** Messages whose named finding is remembered: providers run several times per message. */
const FINDING_CACHE_MESSAGES = 256;

/** A triage prior for one finding, with the lessons and groups it stands on. Snake_case: printed as JSON. */
export interface TriagePrediction extends TriageEstimate {
  finding_key: string;
  group_id: string;
  lesson_ids: UUID[];
}

export type PredictResult = { ok: true; prediction: TriagePrediction } | { ok: false; rejections: RowRejection[] };

/**
 * Scan outcomes in, lessons out. Stores outcome rows durably in the runtime's database, tells the
 * evaluator cheaply whether there is anything to learn, and runs learning passes one at a time.
 */
export class ScanOutcomeService extends Service {
  static override serviceType = SCAN_OUTCOME_SERVICE;
  override capabilityDescription = 'Stores labelled scan outcomes and distils them into scan-model-lesson memories';

  settings!: SelfImproveConfig;
  outcomes!: OutcomeStore;
  findings!: FindingStore;
  lessons!: LessonStore;
  /** Outcome counts by group and parent level, kept current by `ingest`: predictions never touch the database. */
  prior!: TriagePrior;
  private learner!: ScanLearner;
  private pendingHint = false;
  private ingestGeneration = 0;
  private passes: Promise<unknown> = Promise.resolve();
  private readonly findingByMessage = new Map<string, FindingRow | null>();

  static override async start(runtime: IAgentRuntime): Promise<ScanOutcomeService> {
    const service = new ScanOutcomeService(runtime);
    await service.open();
    return service;
  }

  private async open(): Promise<void> {
    this.settings = loadConfig(this.runtime);
    const db = dbOf(this.runtime);
    await requireTables(db, Object.values(scanTables));
    this.outcomes = new OutcomeStore(db, this.runtime.agentId);
    this.findings = new FindingStore(db, this.runtime.agentId);
    this.prior = new TriagePrior(this.settings.SELF_IMPROVE_PRIOR_STRENGTH);
    for (const c of await this.outcomes.labelCountsByGroup()) this.prior.add(parseGroupId(c.groupId), c.label, c.n);
    this.lessons = new LessonStore(this.runtime, vectorizerFor(this.runtime));
    await this.lessons.load();
    this.learner = new ScanLearner(this.runtime, this.settings, this.outcomes, this.lessons);
    this.pendingHint = (await this.outcomes.countPending()) > 0;
    await ensureLearnTask(this.runtime, this.settings.SELF_IMPROVE_POLL_INTERVAL_MS);
  }

  override async stop(): Promise<void> {
    await this.passes.catch(() => undefined);
  }

  /**
   * Validates and stores a batch of outcome rows in one transaction. Bad rows are reported (index,
   * field, message) and never stop the good ones: a row the database still refuses after
   * validation is reported with field `(row)` and the database's reason, and only it is left out.
   * A row whose (finding_key, label) is already stored is a duplicate and changes nothing.
   */
  async ingest(rows: readonly unknown[]): Promise<IngestResult> {
    const checked = checkOutcomeRows(rows);
    const stored = checked.valid.map(({ index, row }) => ({ index, outcome: toStoredOutcome(this.runtime.agentId, row) }));
    const { inserted, refused } = await this.outcomes.insert(
      stored.map((s) => s.outcome),
      (tx, fresh) => this.recordRewards(tx, stored.map((s) => s.outcome).filter((o) => fresh.has(o.id))),
    );
    const refusedRows = refused.map((r) => ({ index: stored[r.position]?.index ?? -1, field: '(row)', message: `the database refused the row: ${r.reason}` }));
    if (refusedRows.length > 0) {
      this.runtime.logger.warn({ src: 'plugin:self-improve:outcomes', agentId: this.runtime.agentId, refused: refusedRows.length, first: refusedRows[0] }, 'the database refused outcome rows that passed validation; the others were stored');
    }
    const result: IngestResult = { accepted: 0, duplicate: 0, rejected: [...checked.rejected, ...refusedRows].sort((a, b) => a.index - b.index), outcomes: [] };
    const fresh: StoredOutcome[] = [];
    const refusedAt = new Set(refused.map((r) => r.position));
    for (const [position, { index, outcome }] of stored.entries()) {
      if (refusedAt.has(position)) continue;
      const isNew = inserted.delete(outcome.id);
      result.outcomes.push({ index, id: outcome.id, status: isNew ? 'accepted' : 'duplicate' });
      if (isNew) {
        result.accepted++;
        fresh.push(outcome);
        this.prior.add(groupKeyOf(outcome.row), outcome.row.label);
      } else result.duplicate++;
    }
    if (result.accepted > 0) {
      this.pendingHint = true;
      this.ingestGeneration++;
      this.creditItemsInUse(fresh);
    }
    return result;
  }

  /**
   * Each new outcome settles the finding it is about in the ELO book: the items that were in the
   * prompt when the agent talked about that finding win on a reward and lose on a penalty.
   */
  private creditItemsInUse(outcomes: readonly StoredOutcome[]): void {
    const book = this.runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
    if (!book) return;
    for (const o of outcomes) book.settle(findingContext(o.row.finding_key), o.reward, `finding_${o.row.label}`);
  }

  /**
   * Records the reward or penalty of each new outcome in the reward ledger, when it runs, inside
   * the ingest's transaction `tx`: the outcomes and their entries commit together, so no
   * reconciliation ever sees one without the other. A ledger failure never fails the ingest: its
   * savepoint is rolled back, the outcomes are stored, the failure is logged, and reconciliation
   * appends the missing entries later.
   */
  private async recordRewards(tx: Db, outcomes: readonly StoredOutcome[]): Promise<void> {
    const ledger = this.runtime.getService<RewardLedgerService>(REWARD_LEDGER_SERVICE);
    if (!ledger) return;
    const entries = outcomes
      .map((o) => outcomeLedgerEntry({ id: o.id, label: o.row.label, reward: o.reward, findingKey: o.row.finding_key }))
      .filter((e): e is NonNullable<typeof e> => e !== null);
    if (entries.length === 0) return;
    try {
      const results = await ledger.appendWithin(tx, entries);
      const refused = results.filter((r) => !r.ok);
      if (refused.length > 0) this.runtime.logger.warn({ src: 'plugin:self-improve:outcomes', agentId: this.runtime.agentId, refused: refused.length, first: refused[0] }, 'ledger refused outcome rewards');
    } catch (error) {
      this.runtime.logger.warn({ src: 'plugin:self-improve:outcomes', agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'could not record outcome rewards in the ledger');
    }
  }

  /** Whether a learning pass may have work: answered from memory, so the evaluator's validate costs nothing. */
  hasPendingWork(): boolean {
    return this.pendingHint;
  }

  /**
   * Learns from every outcome pending as of `asOf` (default: now). Passes run one at a time, so
   * concurrent callers never learn from the same outcome twice.
   */
  learnPending(options: { asOf?: Date | number; onProgress?: LearnProgress } = {}): Promise<LearnReport> {
    const asOfMs = options.asOf === undefined ? Date.now() : Number(options.asOf instanceof Date ? options.asOf.getTime() : options.asOf);
    const pass = this.passes.catch(() => undefined).then(async () => {
      const generation = this.ingestGeneration;
      const report = await this.learner.learnPending(asOfMs, options.onProgress);
      if (generation === this.ingestGeneration) this.pendingHint = false;
      return report;
    });
    this.passes = pass;
    return pass;
  }

  /**
   * The learned triage prior for a finding (an outcome row without its label): the probability it
   * will be rejected as a false positive, its expected reward, and the evidence and lessons behind
   * both. Answered from memory.
   */
  predict(finding: unknown): PredictResult {
    const checked = checkFindingRow(finding, 0);
    if (!checked.ok) return checked;
    return { ok: true, prediction: this.predictValid(checked.row) };
  }

  /** `predict` for a row already validated. */
  predictValid(row: FindingRow): TriagePrediction {
    const key = groupKeyOf(row);
    const group = groupId(key);
    return {
      finding_key: row.finding_key,
      group_id: group,
      ...this.prior.estimate(key, row.confidence),
      lesson_ids: this.lessons.index.lessonsBehind(group, MAX_LESSONS_PER_PREDICTION).map((l) => l.id),
    };
  }

  /**
   * Validates and records findings that have no label yet (e.g. untriaged SARIF results); a finding
   * the database refuses after validation is reported like a bad row (field `(row)`, its reason).
   */
  async recordFindings(rows: readonly unknown[]): Promise<{ recorded: number; known: number; rejected: RowRejection[] }> {
    const valid: { index: number; row: FindingRow }[] = [];
    const rejected: RowRejection[] = [];
    rows.forEach((raw, index) => {
      const checked = checkFindingRow(raw, index);
      if (checked.ok) valid.push({ index, row: checked.row });
      else rejected.push(...checked.rejections);
    });
    const { inserted, refused } = await this.findings.record(valid.map((v) => v.row));
    for (const r of refused) rejected.push({ index: valid[r.position]?.index ?? -1, field: '(row)', message: `the database refused the row: ${r.reason}` });
    return { recorded: inserted, known: valid.length - inserted - refused.length, rejected: rejected.sort((a, b) => a.index - b.index) };
  }

  /**
   * The known finding a message is about: `finding_key` on its content or metadata, else a key
   * its text names ("finding X ...", a quoted key). No database lookup when nothing names one;
   * one per message otherwise (remembered for the message's later provider calls).
   */
  async findingNamedBy(message: Memory): Promise<FindingRow | null> {
    const sources = [message.content as Record<string, unknown>, (message.metadata ?? {}) as Record<string, unknown>];
    const explicit = sources.map((s) => s.finding_key).find((v): v is string => typeof v === 'string' && v !== '');
    const key = explicit ?? findingKeyIn(message.content.text ?? '');
    if (!key) return null;
    const lookup = async () => (await this.findings.lookup([key])).get(key)?.row ?? null;
    if (!message.id) return lookup();
    const cacheKey = `${message.id}\u0000${key}`;
    const cached = this.findingByMessage.get(cacheKey);
    if (cached !== undefined) return cached;
    const finding = await lookup();
    this.findingByMessage.set(cacheKey, finding);
    if (this.findingByMessage.size > FINDING_CACHE_MESSAGES) this.findingByMessage.delete(this.findingByMessage.keys().next().value as string);
    return finding;
  }

  /** What the agent knows of these findings: their fields and labels so far. */
  lookupFindings(keys: readonly string[]): Promise<Map<string, KnownFinding>> {
    return this.findings.lookup(keys);
  }

  /** The quality metrics of the agent's findings as of a time (default now); see the README for definitions. */
  async metrics(options: { asOfMs?: number; k?: number } = {}): Promise<ScanMetricsReport> {
    const [outcomes, firstSeen] = await Promise.all([this.outcomes.forMetrics(), this.findings.firstSeen()]);
    return computeScanMetrics(outcomes, firstSeen, { asOfMs: options.asOfMs ?? Date.now(), k: options.k ?? this.settings.SELF_IMPROVE_METRICS_K });
  }

  /** Triage quality week by week (`weeklyTriage`): the `weeks` UTC weeks ending with the one holding `asOfMs` (default now). */
  async weeklyTriage(options: { weeks: number; asOfMs?: number; k?: number }): Promise<WeeklyTriageReport> {
    return weeklyTriage(await this.outcomes.forMetrics(), { weeks: options.weeks, asOfMs: options.asOfMs ?? Date.now(), k: options.k ?? this.settings.SELF_IMPROVE_METRICS_K });
  }

  /** Every lesson of the agent, newest evidence first. */
  listLessons(): Lesson[] {
    return this.lessons.all().sort((a, b) => b.metadata.last_seen.localeCompare(a.metadata.last_seen) || a.id.localeCompare(b.id));
  }

  async counts(): Promise<{ outcomes: number; pending: number; lessons: number; awaiting_labels: number }> {
    return {
      outcomes: await this.outcomes.count(),
      pending: await this.outcomes.countPending(),
      lessons: this.lessons.index.size,
      awaiting_labels: await this.findings.countAwaiting(),
    };
  }
}

/** Waits until the runtime has started ScanOutcomeService and returns it. */
export async function scanOutcomeServiceOf(runtime: IAgentRuntime): Promise<ScanOutcomeService> {
  return (await runtime.getServiceLoadPromise(SCAN_OUTCOME_SERVICE as never)) as unknown as ScanOutcomeService;
}
