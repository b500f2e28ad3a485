import { type IAgentRuntime, type Memory, Service, type UUID } from '@elizaos/core';
import { loadConfig, type SelfImproveConfig } from '../shared/config';
import { groupId, groupKeyOf } from './model/grouping';
import { findingKeyIn } from './model/label-request';
import { checkFindingRow, checkOutcomeRows, type FindingRow, type RowRejection } from './model/outcome';
import type { ScanMetricsReport } from './model/metrics';
import { estimateFromCounts, globalFalsePositiveRateOf, type TriageEstimate } from './model/triage-prior';
import type { WeeklyTriageReport } from './model/weekly-triage';
import { FindingStore, type KnownFinding } from './finding-store';
import { type ScanLesson, newestEvidenceFirst } from './scan-lesson-metadata';
import { ScanLessonStore, vectorizerFor } from './scan-lesson-store';
import { OutcomeStore, type StoredOutcome, toStoredOutcome } from './outcome-store';
import { findingContext } from '../elo/model/exposures';
import { type LearnProgress, type LearnReport, ScanLearner } from './scan-learner';
import { eventsOf, type RecordedOutcome } from '../shared/events';
import { serviceOf } from '../shared/service-of';
import { SCAN_OUTCOME_SERVICE } from '../shared/service-names';
import { dbOf } from '../shared/sql';
import { ensureLearnTask } from './surfaces/learn-pending-task';
import { yieldToEventLoop, startTurn } from '../shared/event-loop';
import { requireTables } from '../shared/plugin-schema';
import { scanTables } from './tables';
import { LearningPasses } from './learning-passes';
import { DEFAULT_METRIC_SLICES, type RollupLag, ScanMetrics } from './scan-metrics';
import { errorText } from '../shared/error-text';

export { SCAN_OUTCOME_SERVICE };

/** Rows validated between two turns of the event loop. */
const VALIDATE_SLICE = 250;

/** The answer to `ingest`: what was new, what was already known, and every refused row with its field and reason. */
export interface OutcomeIngestResult {
  accepted: number;
  duplicate: number;
  rejected: RowRejection[];
  /** Index in the batch and id of each stored (new or already known) outcome. */
  outcomes: { index: number; id: UUID; status: 'accepted' | 'duplicate' }[];
}

/** Lessons named behind one prediction. */
const MAX_SCAN_LESSONS_PER_PREDICTION = 5;
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
  scanLessons!: ScanLessonStore;
  private pendingHint = false;
  private ingestGeneration = 0;
  private passes!: LearningPasses;
  private readonly findingByMessage = new Map<string, FindingRow | null>();
  private withdrawScanLessons: (() => void) | undefined;
  private scanMetrics!: ScanMetrics;

  static override async start(runtime: IAgentRuntime): Promise<ScanOutcomeService> {
    const service = new ScanOutcomeService(runtime);
    await service.open();
    return service;
  }

  private async open(): Promise<void> {
    this.settings = loadConfig(this.runtime);
    const db = dbOf(this.runtime);
    await startTurn();
    await requireTables(db, Object.values(scanTables));
    this.scanMetrics = new ScanMetrics(this.runtime, db, {
      otherWork: () => this.passes?.busy === true,
      warmOptions: () => ({ k: this.settings.SELF_IMPROVE_METRICS_K, slices: DEFAULT_METRIC_SLICES }),
    });
    this.outcomes = new OutcomeStore(db, this.runtime.agentId, this.scanMetrics);
    this.findings = new FindingStore(db, this.runtime.agentId, this.scanMetrics);
    this.scanMetrics.start();
    await startTurn();
    await this.outcomes.ensureLabelCounts();
    this.scanLessons = new ScanLessonStore(this.runtime, vectorizerFor(this.runtime));
    await startTurn();
    this.pendingHint = await this.outcomes.anyPending();
    this.announceScanLessons();
    // Lessons are read (and re-embedded when the vector source changed) after the service is up:
    // start-up never waits for an embedding model; learning passes wait for them.
    this.passes = new LearningPasses(this.runtime, db, new ScanLearner(this.runtime, this.settings, this.outcomes, this.scanLessons), this.scanLessons);
    await startTurn();
    await ensureLearnTask(this.runtime, this.settings.SELF_IMPROVE_POLL_INTERVAL_MS);
  }

  /** Resolves once the metrics rollup has caught up with the stored outcomes (or its follower stopped): `ScanMetrics`. */
  metricsCaughtUp(): Promise<void> {
    return this.scanMetrics.caughtUp();
  }

  override async stop(): Promise<void> {
    await this.scanMetrics?.stop();
    this.withdrawScanLessons?.();
    await this.passes?.idle();
  }

  /** Lessons are news for the rest of the agent (`scanLessonsStored`): all of them to whoever subscribes, then each as it is stored, and each as it is let go (`scanLessonsLetGo`). */
  private announceScanLessons(): void {
    const events = eventsOf(this.runtime);
    let announced = true;
    // The hub logs a failing handler itself; a failure of the delivery is logged here.
    const failed = (error: unknown) =>
      this.runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: this.runtime.agentId, error: errorText(error) }, 'scan lesson news not delivered');
    this.scanLessons.index.onPut((lesson) => {
      if (announced) events.emit('scanLessonsStored', { scanLessons: [lesson] }).catch(failed);
    });
    this.scanLessons.index.onRemove((id) => {
      if (announced) events.emit('scanLessonsLetGo', { ids: [id] }).catch(failed);
    });
    const withdraw = events.announce('scanLessonsStored', () => ({ scanLessons: this.scanLessons.index.all() }));
    this.withdrawScanLessons = () => {
      announced = false;
      withdraw();
    };
  }

  /**
   * Validates and stores a batch of outcome rows in one transaction. Bad rows are reported (index,
   * field, message) and never stop the good ones: a row the database still refuses after
   * validation is reported with field `(row)` and the database's reason, and only it is left out.
   * A row whose (finding_key, label) is already stored is a duplicate and changes nothing. The new
   * outcomes are announced inside that transaction (`outcomesRecorded`: the ledger's entries for
   * them commit with them, and a ledger failure never fails the ingest), then, once committed, as
   * the judgement of the findings they label (`workJudged`).
   */
  async ingest(rows: readonly unknown[]): Promise<OutcomeIngestResult> {
    // Validated and given their ids a slice at a time, the event loop free between slices (zod over 2,000 rows is a 50–150 ms block).
    const rejected: RowRejection[] = [];
    const stored: { index: number; outcome: StoredOutcome }[] = [];
    for (let at = 0; at < rows.length; at += VALIDATE_SLICE) {
      const part = checkOutcomeRows(rows.slice(at, at + VALIDATE_SLICE), at);
      for (const { index, row } of part.valid) stored.push({ index, outcome: toStoredOutcome(this.runtime.agentId, row) });
      rejected.push(...part.rejected);
      if (at + VALIDATE_SLICE < rows.length) await yieldToEventLoop();
    }
    const { inserted, refused } = await this.outcomes.insert(
      stored.map((s) => s.outcome),
      (tx, fresh) => eventsOf(this.runtime).emit('outcomesRecorded', { tx, outcomes: stored.filter((s) => fresh.has(s.outcome.id)).map((s) => recordedOutcome(s.outcome)) }),
    );
    const refusedRows = refused.map((r) => ({ index: stored[r.position]?.index ?? -1, field: '(row)', message: `the database refused the row: ${r.reason}` }));
    if (refusedRows.length > 0) {
      this.runtime.logger.warn({ src: 'plugin:self-improve:outcomes', agentId: this.runtime.agentId, refused: refusedRows.length, first: refusedRows[0] }, 'the database refused outcome rows that passed validation; the others were stored');
    }
    const result: OutcomeIngestResult = { accepted: 0, duplicate: 0, rejected: [...rejected, ...refusedRows].sort((a, b) => a.index - b.index), outcomes: [] };
    const fresh: StoredOutcome[] = [];
    const refusedAt = new Set(refused.map((r) => r.position));
    for (const [position, { index, outcome }] of stored.entries()) {
      if (refusedAt.has(position)) continue;
      const isNew = inserted.delete(outcome.id);
      result.outcomes.push({ index, id: outcome.id, status: isNew ? 'accepted' : 'duplicate' });
      if (isNew) {
        result.accepted++;
        fresh.push(outcome);
      } else result.duplicate++;
    }
    if (result.accepted > 0) {
      this.pendingHint = true;
      this.ingestGeneration++;
      // Each new outcome judges the finding it is about: what was in the prompt when the agent talked about it answers for it.
      await eventsOf(this.runtime).emit('workJudged', { judgements: fresh.map((o) => ({ context: findingContext(o.row.finding_key), reward: o.reward, reason: `finding_${o.row.label}` })) });
    }
    return result;
  }

  /** Whether a learning pass may have work: answered from memory, so the evaluator's validate costs nothing. */
  hasPendingWork(): boolean {
    return this.pendingHint;
  }

  /**
   * Learns from every outcome pending as of `asOf` (default: now). Passes run one at a time, in
   * this process and across processes (the learning lease), so concurrent callers never learn from
   * the same outcome twice. When another process has learned since this one last did, its lessons
   * are read first, so they are reinforced rather than written again.
   */
  learnPending(options: { asOf?: Date | number; onProgress?: LearnProgress } = {}): Promise<LearnReport> {
    const asOfMs = options.asOf === undefined ? Date.now() : Number(options.asOf instanceof Date ? options.asOf.getTime() : options.asOf);
    const generation = this.ingestGeneration;
    // Outcomes another process stored are rolled up for the metrics from here too (this process's follower is woken only by its own writes).
    return this.passes.run(
      asOfMs,
      options.onProgress,
      () => {
        if (generation === this.ingestGeneration) this.pendingHint = false;
      },
    ).finally(() => this.scanMetrics.wake());
  }

  /**
   * Starts a learning pass without waiting for it (the evaluator's way: a reply never waits for
   * learning). A pass already waiting to start covers this request too. A failure is logged and
   * the outcomes stay pending for the next pass.
   */
  learnInBackground(): void {
    this.passes.inBackground(() => this.learnPending());
  }

  /**
   * Resolves once every stored scan lesson is in the index. The service starts without waiting for
   * them (so an agent starts without waiting for an embedding model); until then SCAN_LESSONS,
   * GET /lessons and predictions see the lessons read so far. Throws when they cannot be read.
   */
  scanLessonsReady(): Promise<void> {
    return this.passes.lessonsLoaded();
  }

  /** Resolves once no learning pass is running or waiting (and the stored scan lessons are loaded). */
  learningIdle(): Promise<void> {
    return this.passes.idle();
  }

  /**
   * The learned triage prior for a finding (an outcome row without its label): the probability it
   * will be rejected as a false positive, its expected reward, and the evidence and lessons behind
   * both. The counts are read from the database (at most 20 rows, whatever the history), so they
   * include every process's outcomes.
   */
  async predict(finding: unknown): Promise<PredictResult> {
    const checked = checkFindingRow(finding, 0);
    if (!checked.ok) return checked;
    return { ok: true, prediction: await this.predictValid(checked.row) };
  }

  /** `predict` for a row already validated. */
  async predictValid(row: FindingRow): Promise<TriagePrediction> {
    const key = groupKeyOf(row);
    const group = groupId(key);
    return {
      finding_key: row.finding_key,
      group_id: group,
      ...estimateFromCounts(key, await this.outcomes.triageCounts(key), this.settings.SELF_IMPROVE_PRIOR_STRENGTH, row.confidence),
      lesson_ids: this.scanLessons.index.lessonsBehind(group, MAX_SCAN_LESSONS_PER_PREDICTION).map((l) => l.id),
    };
  }

  /** The false-positive rate over every outcome, shrunk like the prior's root level: the baseline a replay compares with. */
  async globalFalsePositiveRate(): Promise<number> {
    return globalFalsePositiveRateOf(await this.outcomes.globalTriageCounts(), this.settings.SELF_IMPROVE_PRIOR_STRENGTH);
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

  /** The quality metrics of the agent's findings as of a time (default now), from the metrics rollup (`ScanMetrics`); see the README. */
  metrics(options: { asOfMs?: number; k?: number; slices?: number } = {}): Promise<ScanMetricsReport & RollupLag> {
    return this.scanMetrics.report({ asOfMs: options.asOfMs ?? Date.now(), k: options.k ?? this.settings.SELF_IMPROVE_METRICS_K, slices: options.slices ?? DEFAULT_METRIC_SLICES });
  }

  /** Triage quality week by week (`weeklyTriage`): the `weeks` UTC weeks ending with the one holding `asOfMs` (default now). */
  weeklyTriage(options: { weeks: number; asOfMs?: number; k?: number }): Promise<WeeklyTriageReport & RollupLag> {
    return this.scanMetrics.weekly({ weeks: options.weeks, asOfMs: options.asOfMs ?? Date.now(), k: options.k ?? this.settings.SELF_IMPROVE_METRICS_K });
  }

  /** The lessons held in memory (every lesson up to SELF_IMPROVE_LESSONS_IN_MEMORY), newest evidence first. */
  listScanLessons(): ScanLesson[] {
    return this.scanLessons.all().sort(newestEvidenceFirst);
  }

  async counts(): Promise<{ outcomes: number; pending: number; lessons: number; awaiting_labels: number }> {
    return {
      outcomes: await this.outcomes.count(),
      pending: await this.outcomes.countPending(),
      lessons: this.scanLessons.count(),
      awaiting_labels: await this.findings.countAwaiting(),
    };
  }
}

const recordedOutcome = (o: StoredOutcome): RecordedOutcome => ({ id: o.id, findingKey: o.row.finding_key, label: o.row.label, reward: o.reward });

/** Waits until the runtime has started ScanOutcomeService and returns it. */
export const scanOutcomeServiceOf = (runtime: IAgentRuntime): Promise<ScanOutcomeService> => serviceOf(runtime, ScanOutcomeService);
