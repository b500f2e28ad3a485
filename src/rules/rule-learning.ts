import { markConflicts } from './model/conflicts';
import { absorbEvent, chooseRuleLessonFor, eventVectorText, ruleLessonVectorText, newRuleLesson, nextId } from './model/rule-lessons';
import { candidateFromRuleLesson, promoteRuleLesson, type PromotionCriteria, promotionDecision, type ScanLessonStats, wantsCandidate } from './model/promotion';
import type { LearningEvent, Rule, RuleLesson } from './model/types';
import type { ScanLesson } from '../scan/scan-lesson-metadata';
import type { Vectorizer } from '../scan/scan-lesson-store';
import type { StoredRuleLesson } from './rule-rows';

/**
 * One learning step of the rules system, planned without touching the database or the caller's
 * state: new events are clustered into rule lessons, those that qualify are promoted to rules, and
 * MUST/NEVER conflicts are marked. The caller writes the plan in one transaction and only then
 * adopts it.
 */

/** A lesson with the vector it is compared by (`ruleLessonVectorText`, embedded once). */
export interface IndexedRuleLesson {
  lesson: RuleLesson;
  vector: number[];
}

export interface LearningPlan {
  /** The input events, each with the id of the lesson it joined or started (`lessonId`). */
  events: LearningEvent[];
  /** Lessons created or changed, with their vectors. */
  ruleLessons: IndexedRuleLesson[];
  /** Rules created or changed (promotions, conflict marks). */
  rules: Rule[];
  /** Ids of the rules promoted, in order. */
  rulesPromoted: string[];
  /** Ids of the candidate rules made from lessons people taught, in order. */
  candidates: string[];
}

export interface LearningInput {
  events: readonly LearningEvent[];
  ruleLessons: ReadonlyMap<string, IndexedRuleLesson>;
  rules: ReadonlyMap<string, Rule>;
  vectorizer: Vectorizer;
  matchThreshold: number;
  criteria: PromotionCriteria;
  nowMs: number;
}

/**
 * Each event joins the best lesson of its category (`chooseRuleLessonFor` on the event's vector,
 * `eventVectorText`) or starts a new one (`L-…` ids continue the series); every lesson touched is
 * then promoted or given a candidate rule (`promoteDue`; `R-…` ids continue the series).
 */
export async function planLearning(input: LearningInput): Promise<LearningPlan> {
  const working = new Map<string, IndexedRuleLesson>();
  const byCategory = new Map<string, string[]>();
  for (const [id, item] of input.ruleLessons) byCategory.set(item.lesson.category, [...(byCategory.get(item.lesson.category) ?? []), id]);
  const current = (id: string) => (working.get(id) ?? input.ruleLessons.get(id)) as IndexedRuleLesson;
  let nextRuleLessonId = nextId('L', input.ruleLessons.keys());
  const events: LearningEvent[] = [];
  for (const event of input.events) {
    const vector = await input.vectorizer.embed(eventVectorText(event));
    const candidates = (byCategory.get(event.category) ?? []).map(current);
    const choice = chooseRuleLessonFor(event, vector, candidates, input.matchThreshold);
    if (choice) {
      const item = current(choice.lessonId);
      working.set(item.lesson.id, { ...item, lesson: absorbEvent(item.lesson, event, input.nowMs) });
      events.push({ ...event, lessonId: item.lesson.id });
      continue;
    }
    const lesson = newRuleLesson(event, nextRuleLessonId, input.nowMs);
    working.set(lesson.id, { lesson, vector: await input.vectorizer.embed(ruleLessonVectorText(lesson)) });
    byCategory.set(lesson.category, [...(byCategory.get(lesson.category) ?? []), lesson.id]);
    events.push({ ...event, lessonId: lesson.id });
    nextRuleLessonId = nextId('L', [nextRuleLessonId]);
  }
  const due = promoteDue(working, input.rules, input.criteria, input.nowMs);
  return {
    events,
    ruleLessons: [...working.values()],
    rules: due.rules.length === 0 ? [] : withConflicts(input.rules, due.rules),
    rulesPromoted: due.promoted,
    candidates: due.candidates,
  };
}

export interface DuePromotions {
  /** Rules written: promoted ones and new or refreshed candidates. */
  rules: Rule[];
  /** Ids of the rules promoted, in order. */
  promoted: string[];
  /** Ids of the candidate rules made (not refreshed), in order. */
  candidates: string[];
  /** Ids of the lessons that changed (marked promoted, or given a candidate). */
  ruleLessonIds: string[];
}

/**
 * For each lesson of `lessons`, in order, replacing it in the map when it changes:
 * - `promotionDecision` accepts it: the lesson's rule becomes active, under the id of its
 *   candidate when it has one, else the next `R-…` id;
 * - otherwise, when `wantsCandidate` and it has no candidate yet: a new candidate rule (next id);
 * - otherwise, when its candidate is still a candidate and the lesson now reads differently
 *   (type, text, tags, reason): the candidate is refreshed under the same id, created time kept.
 */
export function promoteDue(lessons: Map<string, IndexedRuleLesson>, rules: ReadonlyMap<string, Rule>, criteria: PromotionCriteria, nowMs: number): DuePromotions {
  const due: DuePromotions = { rules: [], promoted: [], candidates: [], ruleLessonIds: [] };
  let nextRuleId = nextId('R', rules.keys());
  const takeId = () => {
    const id = nextRuleId;
    nextRuleId = nextId('R', [nextRuleId]);
    return id;
  };
  for (const [id, item] of lessons) {
    const lesson = item.lesson;
    const decision = promotionDecision(lesson, criteria, nowMs);
    if (decision.promote) {
      const result = promoteRuleLesson(lesson, decision.type, lesson.candidateRule ?? takeId(), nowMs);
      lessons.set(id, { ...item, lesson: result.lesson });
      due.rules.push(result.rule);
      due.promoted.push(result.rule.id);
      due.ruleLessonIds.push(id);
      continue;
    }
    if (!wantsCandidate(lesson)) continue;
    if (lesson.candidateRule === undefined) {
      const candidate = candidateFromRuleLesson(lesson, takeId(), nowMs);
      lessons.set(id, { ...item, lesson: { ...lesson, candidateRule: candidate.id } });
      due.rules.push(candidate);
      due.candidates.push(candidate.id);
      due.ruleLessonIds.push(id);
      continue;
    }
    const existing = rules.get(lesson.candidateRule);
    if (existing?.status !== 'candidate') continue;
    const refreshed = { ...candidateFromRuleLesson(lesson, existing.id, nowMs), createdMs: existing.createdMs };
    if (refreshed.type !== existing.type || refreshed.rule !== existing.rule || refreshed.reason !== existing.reason || refreshed.tags.join() !== existing.tags.join()) due.rules.push(refreshed);
  }
  return due;
}

/**
 * The rules that change when `changed` replace (or join) `rules`: the changed ones themselves,
 * and every other rule whose conflict marks `markConflicts` recomputes differently.
 */
export function withConflicts(rules: ReadonlyMap<string, Rule>, changed: readonly Rule[]): Rule[] {
  const all = new Map(rules);
  for (const r of changed) all.set(r.id, r);
  const changedIds = new Set(changed.map((r) => r.id));
  return markConflicts([...all.values()]).filter((r) => {
    if (changedIds.has(r.id)) return true;
    const before = rules.get(r.id) as Rule;
    return before.reviewFlagged !== r.reviewFlagged || before.conflictsWith.join() !== r.conflictsWith.join();
  });
}

/** A rule lesson as stored: with its vector and the vectorizer's source. */
export function storedRuleLesson(item: IndexedRuleLesson, source: Vectorizer['source']): StoredRuleLesson {
  return { lesson: item.lesson, vector: { values: item.vector, source } };
}

/** What scan lesson promotion (`scanLessonPromotion`) reads of a `scan-model-lesson` memory. */
export function scanLessonStatsOf(scanLesson: ScanLesson): ScanLessonStats {
  const m = scanLesson.metadata;
  return {
    memoryId: scanLesson.id,
    text: scanLesson.text,
    lessonCategory: m.category,
    findingCategory: m.finding_category,
    sampleSize: m.sample_size,
    scanLessonConfidence: m.confidence,
    reinforcements: m.reinforcements,
    firstSeenMs: Date.parse(m.first_learned_at),
    lastSeenMs: Date.parse(m.last_seen),
  };
}
