import type { EventDraft } from './model/event-draft';
import { checkEventRows, type EventRejection, eventToWire } from './model/events';
import { type ParseErrorEntry, parseErrorEntry } from './model/logs';
import type { LearningEvent, Teacher } from './model/types';
import { RULES_LOG_SRC, type RuleBookState } from './rule-book-state';
import { planLearning } from './rule-learning';
import { forEachRowBatch, type IngestProgress, type RowBatch, type TextChunks } from '../shared/ingest-text';
import { databaseReason } from '../shared/sql';

export interface EventIngestResult {
  accepted: number;
  duplicate: number;
  rejected: EventRejection[];
  /** Index in the batch and id of each valid row, new (`accepted`) or already stored (`duplicate`). */
  events: { index: number; id: string; status: 'accepted' | 'duplicate' }[];
  ruleLessonsCreated: number;
  ruleLessonsUpdated: number;
  rulesPromoted: string[];
  /** Candidate rules made from lessons people taught (waiting for approval). */
  candidates: string[];
}

/** A refused event row of a text, by its 1-based line (JSONL) or item (JSON array). */
export type EventTextRejection = Omit<EventRejection, 'index'> & { line: number };

/** `ingestEventText` / `ingestEventChunks`: rows are numbered by line (JSONL) or item (JSON array), 1-based, in `line`. */
export interface EventTextResult extends Omit<EventIngestResult, 'events' | 'rejected'> {
  rows: number;
  /** Rows that failed validation or that the database refused, by line. */
  rejected: EventTextRejection[];
  /** Lines that were not JSON; each is also in the parse-error log. */
  parseErrors: { line: number; message: string }[];
}

/** Event rows per transaction of `ingestEventChunks`; progress is reported between them. */
export const EVENT_BATCH_ROWS = 500;

/**
 * What the learning of one call taught, over all its transactions: each lesson counted once,
 * however many batches touched it, as created (by this call) or updated (it was there before).
 */
interface LearningTotals {
  created: Set<string>;
  updated: Set<string>;
  rulesPromoted: string[];
  candidates: string[];
}

const noLearning = (): LearningTotals => ({ created: new Set(), updated: new Set(), rulesPromoted: [], candidates: [] });

/** The counts of `totals` as a result reports them. */
const learned = (totals: LearningTotals) => ({
  ruleLessonsCreated: totals.created.size,
  ruleLessonsUpdated: totals.updated.size,
  rulesPromoted: [...totals.rulesPromoted],
  candidates: [...totals.candidates],
});

/**
 * Events in (seed 003): validated, stored once each, clustered into lessons, lessons promoted to
 * rules, and MUST/NEVER conflicts marked, in one transaction per batch.
 */
export class RuleIntake {
  constructor(private readonly state: RuleBookState) {}

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
    return this.state.writes.run(() => this.ingestNow(rows, source, options.nowMs ?? Date.now(), [], options.teacher));
  }

  /**
   * JSONL (or a JSON array) of events, as `ingestEventChunks` reads it, from one string (an HTTP
   * body).
   */
  ingestEventText(text: string, source: string, script: string, options: { nowMs?: number; onProgress?: IngestProgress } = {}): Promise<EventTextResult> {
    return this.ingestEventChunks(() => [text], source, script, options);
  }

  /**
   * JSONL (or a JSON array) of events given in pieces (a file read a megabyte at a time), read as
   * `forEachRowBatch` reads outcome rows: EVENT_BATCH_ROWS rows at a time, each batch as
   * `ingestEvents` stores rows, in a transaction of its own. Lines that are not JSON go to the
   * parse-error log (seed format, `script` names the caller) in the same transaction as the good
   * rows of their batch, and are reported. Rows without a `ts` are stamped with one time for the
   * whole text. A database failure rejects the call with the batches before it kept: reading the
   * text again stores the rest, the rows already stored being duplicates.
   */
  async ingestEventChunks(chunks: TextChunks, source: string, script: string, options: { nowMs?: number; onProgress?: IngestProgress } = {}): Promise<EventTextResult> {
    const nowMs = options.nowMs ?? Date.now();
    const counts = { accepted: 0, duplicate: 0, rejected: [] as EventTextRejection[], parseErrors: [] as EventTextResult['parseErrors'] };
    const totals = noLearning();
    const take = ({ rows, broken }: RowBatch) =>
      this.state.writes.run(async () => {
        const errors = broken.map((e) => parseErrorEntry({ nowMs, error: e.message, line: e.text, script }));
        const batch = await this.ingestNow(rows.map((v) => v.value), source, nowMs, errors, undefined, totals);
        counts.accepted += batch.accepted;
        counts.duplicate += batch.duplicate;
        for (const { index, ...r } of batch.rejected) counts.rejected.push({ ...r, line: rows[index]?.line ?? 0 });
        for (const e of broken) counts.parseErrors.push({ line: e.line, message: e.message });
      });
    const rows = await forEachRowBatch(chunks, EVENT_BATCH_ROWS, take, options.onProgress);
    return { rows, ...counts, ...learned(totals) };
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

  /** The work of `ingestEvents`, run in the write queue by its caller; what it learns is added to `totals` (the call's own unless given). */
  private async ingestNow(rows: readonly unknown[], source: string, nowMs: number, parseErrors: ParseErrorEntry[], teacher?: Teacher, totals = noLearning()): Promise<EventIngestResult> {
    const { runtime, store } = this.state;
    const checked = checkEventRows(rows, { nowMs, source });
    if (teacher) for (const v of checked.valid) v.event = { ...v.event, teacher };
    const known = await store.knownEventIds(checked.valid.map((v) => v.event.id));
    const fresh: { index: number; event: LearningEvent }[] = [];
    const seen: { index: number; id: string; isNew: boolean }[] = [];
    for (const { index, event } of checked.valid) {
      const isNew = !known.has(event.id);
      known.add(event.id);
      seen.push({ index, id: event.id, isNew });
      if (isNew) fresh.push({ index, event });
    }
    const refused: EventRejection[] = [];
    const whole = await this.learn(fresh.map((f) => f.event), nowMs, parseErrors, totals);
    if (!whole.ok && fresh.length <= 1) throw whole.error;
    if (!whole.ok) {
      // One event the database will not store fails the whole commit: each event gets its own, so only those refused are left out.
      runtime.logger.warn({ src: RULES_LOG_SRC, agentId: runtime.agentId, events: fresh.length, reason: databaseReason(whole.error) }, 'the database refused an event batch; storing its events one by one');
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
      if (!logged.ok) runtime.logger.warn({ src: RULES_LOG_SRC, agentId: runtime.agentId, reason: databaseReason(logged.error) }, 'could not write the parse-error log entries of an event batch');
    }
    const refusedAt = new Set(refused.map((r) => r.index));
    const events = seen.filter((e) => !refusedAt.has(e.index)).map((e) => ({ index: e.index, id: e.id, status: e.isNew ? ('accepted' as const) : ('duplicate' as const) }));
    return {
      accepted: events.filter((e) => e.status === 'accepted').length,
      duplicate: events.filter((e) => e.status === 'duplicate').length,
      rejected: [...checked.rejected, ...refused].sort((a, b) => a.index - b.index),
      events,
      ...learned(totals),
    };
  }

  /**
   * Plans what `events` teach, commits them with the plan and `parseErrors` in one transaction,
   * then takes the new state and adds to `totals`. A refused commit changes nothing and is
   * returned with its error; a failure while planning (the embedding model) is thrown.
   */
  private async learn(events: readonly LearningEvent[], nowMs: number, parseErrors: readonly ParseErrorEntry[], totals: LearningTotals): Promise<{ ok: true } | { ok: false; error: unknown }> {
    const state = this.state;
    const plan = await planLearning({
      events,
      ruleLessons: state.ruleLessons,
      rules: state.rules,
      vectorizer: state.vectorizer,
      matchThreshold: state.settings.matchThreshold,
      criteria: state.settings.criteria,
      nowMs,
    });
    try {
      await state.store.commitLearning({ events: plan.events, ruleLessons: state.storedRuleLessons(plan.ruleLessons), rules: plan.rules, parseErrors });
    } catch (error) {
      return { ok: false, error };
    }
    state.eventTotal += events.length;
    for (const { lesson } of plan.ruleLessons) {
      if (!state.ruleLessons.has(lesson.id)) totals.created.add(lesson.id);
      else if (!totals.created.has(lesson.id)) totals.updated.add(lesson.id);
    }
    state.adoptRuleLessons(plan.ruleLessons);
    state.adoptRules(plan.rules);
    totals.rulesPromoted.push(...plan.rulesPromoted);
    totals.candidates.push(...plan.candidates);
    return { ok: true };
  }
}
