import { type IAgentRuntime, ModelType, type UUID } from '@elizaos/core';
import type { SelfImproveConfig } from '../shared/config';
import { coveringWindowEnds, DAY_MS, type GroupKey, parseGroupId } from './model/grouping';
import { stableId } from '../shared/ids';
import { draftStatisticalScanLessons, type ScanLessonDraft, type ScanLessonSpan, scanLessonConfidence, renderStatisticalScanLesson } from './model/scan-lesson';
import { bindTextFigures, renderTextParts, type TextPart } from './model/scan-lesson-figures';
import { buildScanLessonPrompt, parseScanLessonOutput, sampleFindings } from './model/scan-lesson-prompt';
import { type GroupStats, summarizeOutcomes } from '../shared/stats';
import { type ScanLesson, type ScanLessonFacts, type ScanLessonMetadata, scanLessonMetadataFor } from './scan-lesson-metadata';
import type { ScanLessonStore } from './scan-lesson-store';
import type { EvidenceOutcome, OutcomeStore, WindowOutcome } from './outcome-store';
import { yieldToEventLoop } from '../shared/event-loop';
import { sortedInTurns } from '../shared/sort-in-turns';
import { errorText } from '../shared/error-text';

/** What one learning pass did. Field names are snake_case because they are printed as JSON. */
export interface LearnReport {
  as_of: string;
  pending_outcomes: number;
  groups: number;
  windows: number;
  lessons_created: number;
  lessons_reinforced: number;
  skipped_low_sample: number;
  skipped_low_confidence: number;
  malformed_model_outputs: number;
  model_errors: number;
  /** Groups whose learning failed in this pass (logged); their outcomes stay pending for the next pass. */
  failed_groups: string[];
  lesson_ids: UUID[];
}

export type LearnProgress = (groupsDone: number, groupsTotal: number) => void;

const LOG_SRC = 'plugin:self-improve:learner';

function emptyReport(asOfMs: number): LearnReport {
  return {
    as_of: new Date(asOfMs).toISOString(),
    pending_outcomes: 0,
    groups: 0,
    windows: 0,
    lessons_created: 0,
    lessons_reinforced: 0,
    skipped_low_sample: 0,
    skipped_low_confidence: 0,
    malformed_model_outputs: 0,
    model_errors: 0,
    failed_groups: [],
    lesson_ids: [],
  };
}

const scored = (outcomes: readonly EvidenceOutcome[]) => outcomes.map((o) => ({ label: o.label, reward: o.reward, tsMs: o.tsMs }));

/**
 * One learning pass over the outcomes not yet learned from (seed 001 §7): per group and window,
 * statistics in code, lessons from the model or from the statistics, the confidence and sample
 * guardrails, then dedupe against the group's lessons: reinforce a near duplicate, insert the rest.
 * A group's pending outcomes are marked learned only after its lessons are stored; re-running a
 * group (after a crash) only re-links the same evidence, so each outcome counts once and a lesson
 * is reinforced only when its evidence grew. A group that
 * fails (whatever the cause) is logged with its id and named in `failed_groups`; the pass goes on.
 */
/**
 * Pending outcomes read per query while learning (whole groups; a larger group is read alone). At
 * 2,000 a page, one read took 48 ms on the 1M bench database, in a stall of 130 ms with the first
 * group's work after it (the twenty-fourth whole run).
 */
export const PENDING_PAGE = 1_000;

/** The groups from `groups[at]` on whose pending outcomes add up to about PENDING_PAGE (at least one group). */
export function pageOfGroups(groups: readonly { groupId: string; count: number }[], at: number): string[] {
  const page: string[] = [];
  let rows = 0;
  for (let i = at; i < groups.length; i++) {
    const { groupId, count } = groups[i] as { groupId: string; count: number };
    if (page.length > 0 && rows + count > PENDING_PAGE) break;
    page.push(groupId);
    rows += count;
  }
  return page;
}

export class ScanLearner {
  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly config: SelfImproveConfig,
    private readonly outcomes: OutcomeStore,
    private readonly scanLessons: ScanLessonStore,
  ) {}

  async learnPending(asOfMs: number, onProgress?: LearnProgress): Promise<LearnReport> {
    const report = emptyReport(asOfMs);
    // Pending outcomes are counted per group, then read about PENDING_PAGE at a time, whole groups
    // together: memory and the longest step follow that page (or the largest group), not everything pending.
    // In the order of their ids, as always: consecutive groups read neighbouring pages of the group
    // indexes. Nothing here maps or sorts every pending group at once: at 1M outcomes there were
    // 150,000, and two maps of them and a sort of their ids were one 332 ms stall.
    const pending = await this.outcomes.pendingGroups(asOfMs);
    const { maxSeq, laterSeq, seenThrough } = pending;
    const groups = await sortedInTurns(pending.groups, (g) => g.groupId);
    // Before anything is marked learned: outcomes above maxSeq stay known as never looked at.
    await this.outcomes.recordSeen(maxSeq);
    report.pending_outcomes = groups.reduce((n, g) => n + g.count, 0);
    report.groups = groups.length;
    let page = new Map<string, number[]>();
    const windowMs = this.config.SELF_IMPROVE_WINDOW_DAYS * DAY_MS;
    const failedFirstSeqs: number[] = [];
    const lessonIds = new Set<UUID>();
    for (const [at, { groupId: group, firstSeq }] of groups.entries()) {
      try {
        if (!page.has(group)) {
          page = await this.outcomes.pendingTimes(pageOfGroups(groups, at), asOfMs, maxSeq, seenThrough);
          // The page's read and the first group's work are a turn each.
          await yieldToEventLoop();
        }
        await this.learnGroup(group, page.get(group) ?? [], { asOfMs, maxSeq, seenThrough, windowMs }, report, lessonIds);
      } catch (error) {
        report.failed_groups.push(group);
        failedFirstSeqs.push(firstSeq);
        this.runtime.logger.warn(
          { src: LOG_SRC, agentId: this.runtime.agentId, group, error: errorText(error) },
          'learning failed for one group; its outcomes stay pending and the pass goes on with the other groups',
        );
      }
      onProgress?.(at + 1, groups.length);
      await yieldToEventLoop();
    }
    // Every outcome up to maxSeq is learned now except those dated later and the failed groups': the next pass starts after what is done.
    const stillPending = laterSeq === null ? failedFirstSeqs : [laterSeq, ...failedFirstSeqs];
    await this.outcomes.setLearnedThrough(stillPending.length === 0 ? maxSeq : stillPending.reduce((a, b) => Math.min(a, b)) - 1);
    // Each lesson once, in the order first written.
    report.lesson_ids = [...lessonIds];
    return report;
  }

  /**
   * Learns one group's windows, then marks its pending outcomes learned. Throws on any failure
   * before the mark, so a failed group's outcomes stay pending (a retry re-links the same evidence).
   */
  private async learnGroup(group: string, pendingTimes: readonly number[], pass: { asOfMs: number; maxSeq: number; seenThrough: number | null; windowMs: number }, report: LearnReport, lessonIds: Set<UUID>): Promise<void> {
    const { asOfMs, maxSeq, seenThrough, windowMs } = pass;
    if (pendingTimes.length === 0) return;
    const ends = coveringWindowEnds(pendingTimes, windowMs).reverse();
    const first = ends[0] as number;
    const rows = await this.outcomes.inGroup(group, first - windowMs, ends[ends.length - 1] as number, maxSeq);
    for (const end of ends) {
      const windowRows = rows.filter((r) => r.tsMs > end - windowMs && r.tsMs <= end);
      report.windows++;
      await this.learnWindow({ key: parseGroupId(group), group, rows: windowRows, startMs: end - windowMs, endMs: end, asOfMs, maxSeq }, report, lessonIds);
      await yieldToEventLoop();
    }
    await this.outcomes.markGroupLearned(group, asOfMs, maxSeq, seenThrough);
  }

  private async learnWindow(w: LearningWindow, report: LearnReport, lessonIds: Set<UUID>): Promise<void> {
    if (w.rows.length < this.config.SELF_IMPROVE_MIN_SAMPLE) {
      report.skipped_low_sample++;
      return;
    }
    const stats = summarizeOutcomes(scored(w.rows));
    for (const draft of await this.draft(w.key, stats, w.rows, { startMs: w.startMs, endMs: w.endMs }, report)) {
      if (scanLessonConfidence(draft, stats) < this.config.SELF_IMPROVE_MIN_CONFIDENCE) {
        report.skipped_low_confidence++;
        continue;
      }
      const id = await this.store(draft, w, stats, report);
      lessonIds.add(id);
      // Storing a lesson is several statements (evidence, the memory, its index); awaiting them never turns the event loop.
      await yieldToEventLoop();
    }
  }

  /** Lessons from TEXT_SMALL when it is registered and allowed; from statistics otherwise or when its answer is unusable. */
  private async draft(key: GroupKey, stats: GroupStats, rows: WindowOutcome[], span: ScanLessonSpan, report: LearnReport): Promise<ScanLessonDraft[]> {
    if (this.config.SELF_IMPROVE_LESSON_MODEL === 'off' || !this.runtime.getModel(ModelType.TEXT_SMALL)) {
      return draftStatisticalScanLessons(key, stats, span);
    }
    const samples = sampleFindings(
      rows.map((r) => ({ finding_key: r.findingKey, label: r.label, summary: r.summary, tsMs: r.tsMs })),
      this.config.SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT,
    );
    const prompt = buildScanLessonPrompt(key, stats, samples, this.config.SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT);
    let answer: string;
    try {
      answer = String(await this.runtime.useModel(ModelType.TEXT_SMALL, { prompt, temperature: 0.2 }));
    } catch (error) {
      report.model_errors++;
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, error: errorText(error) }, 'TEXT_SMALL failed; lessons written from statistics');
      return draftStatisticalScanLessons(key, stats, span);
    }
    const parsed = parseScanLessonOutput(answer);
    report.malformed_model_outputs += parsed.malformed;
    if (parsed.error) {
      this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, code: parsed.error.code, detail: parsed.error.message }, 'model answer unusable; lessons written from statistics');
      return draftStatisticalScanLessons(key, stats, span);
    }
    return this.withBoundFigures(parsed.lessons, stats, report);
  }

  /**
   * A model's lessons with their figures bound to the statistics the model was given
   * (`bindTextFigures`), so reinforcement can re-render them. A lesson quoting a count, share or
   * interval that none of the statistics has is an invented figure: counted as malformed, never stored.
   */
  private withBoundFigures(lessons: readonly ScanLessonDraft[], stats: GroupStats, report: LearnReport): ScanLessonDraft[] {
    const bound: ScanLessonDraft[] = [];
    for (const lesson of lessons) {
      const { parts, unbound } = bindTextFigures(lesson.text, lesson.category, stats);
      if (unbound.length > 0) {
        report.malformed_model_outputs++;
        this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, category: lesson.category, figures: unbound }, 'model lesson quotes figures the statistics do not have; not stored');
        continue;
      }
      bound.push({ ...lesson, text: renderTextParts(parts, stats), textParts: parts });
    }
    return bound;
  }

  private async store(draft: ScanLessonDraft, w: LearningWindow, stats: GroupStats, report: LearnReport): Promise<UUID> {
    const vector = await this.scanLessons.vectorizer.embed(draft.text);
    await this.scanLessons.holdGroup(w.group);
    const duplicate = this.scanLessons.nearestInGroup(w.group, vector);
    const base = { groupId: w.group, key: w.key, windowStartMs: w.startMs, windowEndMs: w.endMs, asOfMs: w.asOfMs, embeddingSource: this.scanLessons.vectorizer.source } as const;
    const existing = duplicate && duplicate.similarity >= this.config.SELF_IMPROVE_DEDUPE_THRESHOLD ? this.scanLessons.index.get(duplicate.item) : undefined;
    if (existing) {
      await this.outcomes.linkEvidence(existing.id, w.group, w.startMs, w.endMs, w.maxSeq);
      const evidence = await this.outcomes.evidence(existing.id);
      // A reinforcement is new evidence: more linked outcomes than the lesson was last written with. A
      // re-run after a crash re-links the same rows and changes nothing; a crash between linking and
      // writing the lesson is made good by the next run, once.
      if (evidence.length <= existing.metadata.evidence_count) return existing.id;
      const evidenceStats = summarizeOutcomes(scored(evidence));
      const category = existing.metadata.category;
      const statedConfidence = Math.max(existing.metadata.stated_confidence, draft.statedConfidence);
      const textParts = existing.metadata.origin === 'model' ? boundParts(existing) : undefined;
      const facts: ScanLessonFacts = {
        ...base,
        category,
        origin: existing.metadata.origin,
        statedConfidence,
        scanLessonConfidence: scanLessonConfidence({ category, statedConfidence }, evidenceStats),
        evidence,
        stats: evidenceStats,
        previous: existing.metadata,
        ...(textParts ? { textParts } : {}),
      };
      const metadata = scanLessonMetadataFor(facts);
      await this.scanLessons.update(existing, reRendered(existing, w.key, evidenceStats, metadata), metadata);
      report.lessons_reinforced++;
      return existing.id;
    }
    // A new lesson's evidence is exactly its window (a retried pass links the same rows again).
    const id = stableId('lesson', this.runtime.agentId, w.group, draft.category, draft.text);
    await this.outcomes.linkEvidence(id, w.group, w.startMs, w.endMs, w.maxSeq);
    const facts: ScanLessonFacts = {
      ...base,
      category: draft.category,
      origin: draft.origin,
      statedConfidence: draft.statedConfidence,
      scanLessonConfidence: scanLessonConfidence(draft, stats),
      evidence: w.rows,
      stats,
      ...(draft.textParts ? { textParts: draft.textParts } : {}),
    };
    await this.scanLessons.create(id, draft.text, scanLessonMetadataFor(facts), vector, w.asOfMs);
    report.lessons_created++;
    return id;
  }
}

/** One group's outcomes in one window of a pass, with the pass's snapshot bound. */
interface LearningWindow {
  key: GroupKey;
  group: string;
  rows: WindowOutcome[];
  startMs: number;
  endMs: number;
  asOfMs: number;
  maxSeq: number;
}

/** A model lesson's bound figures: as stored, or (a lesson stored before figures were bound) bound now against the statistics its metadata was written with. */
function boundParts(lesson: ScanLesson): TextPart[] {
  const m = lesson.metadata;
  return m.text_parts ?? bindTextFigures(lesson.text, m.category, { n: m.sample_size, labelCounts: m.label_counts }).parts;
}

/**
 * A reinforced lesson's text, every figure from its new metadata's statistics: a statistics
 * lesson's sentence rendered again from the whole evidence and the widened window; a model
 * lesson's words with its bound figures rendered from the evidence.
 */
function reRendered(lesson: ScanLesson, key: GroupKey, stats: GroupStats, metadata: ScanLessonMetadata): string {
  if (metadata.text_parts) return renderTextParts(metadata.text_parts, stats);
  if (metadata.origin === 'model') return lesson.text;
  const span = { startMs: Date.parse(metadata.window_start), endMs: Date.parse(metadata.window_end) };
  return renderStatisticalScanLesson(metadata.category, key, stats, span) ?? lesson.text;
}
