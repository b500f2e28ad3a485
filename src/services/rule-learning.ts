import { markConflicts } from '../domain/rule-conflicts';
import { absorbEvent, chooseLessonFor, eventVectorText, lessonVectorText, newLesson, nextId } from '../domain/rule-lessons';
import { promoteLesson, type PromotionCriteria, promotionDecision, type ScanLessonStats } from '../domain/rule-promotion';
import type { LearningEvent, Rule, RuleLesson } from '../domain/rule-types';
import type { Lesson } from './lesson-metadata';
import type { Vectorizer } from './lesson-store';
import type { StoredLesson } from './rule-rows';

/**
 * One learning step of the rules system, planned without touching the database or the caller's
 * state: new events are clustered into lessons, lessons that qualify are promoted to rules, and
 * MUST/NEVER conflicts are marked. The caller writes the plan in one transaction and only then
 * adopts it.
 */

/** A lesson with the vector it is compared by (`lessonVectorText`, embedded once). */
export interface IndexedLesson {
  lesson: RuleLesson;
  vector: number[];
}

export interface LearningPlan {
  /** Lessons created or changed, with their vectors. */
  lessons: IndexedLesson[];
  /** Rules created or changed (promotions, conflict marks). */
  rules: Rule[];
  lessonsCreated: number;
  lessonsUpdated: number;
  /** Ids of the rules promoted, in order. */
  rulesPromoted: string[];
}

export interface LearningInput {
  events: readonly LearningEvent[];
  lessons: ReadonlyMap<string, IndexedLesson>;
  rules: ReadonlyMap<string, Rule>;
  vectorizer: Vectorizer;
  matchThreshold: number;
  criteria: PromotionCriteria;
  nowMs: number;
}

/**
 * Each event joins the best lesson of its category (`chooseLessonFor` on the event's vector,
 * `eventVectorText`) or starts a new one (`L-…` ids continue the series); every lesson touched is
 * then checked with `promotionDecision` and promoted (`R-…` ids continue the series).
 */
export async function planLearning(input: LearningInput): Promise<LearningPlan> {
  const working = new Map<string, IndexedLesson>();
  const byCategory = new Map<string, string[]>();
  for (const [id, item] of input.lessons) byCategory.set(item.lesson.category, [...(byCategory.get(item.lesson.category) ?? []), id]);
  const current = (id: string) => (working.get(id) ?? input.lessons.get(id)) as IndexedLesson;
  let nextLessonId = nextId('L', input.lessons.keys());
  const created = new Set<string>();
  for (const event of input.events) {
    const vector = await input.vectorizer.embed(eventVectorText(event));
    const candidates = (byCategory.get(event.category) ?? []).map(current);
    const choice = chooseLessonFor(event, vector, candidates, input.matchThreshold);
    if (choice) {
      const item = current(choice.lessonId);
      working.set(item.lesson.id, { ...item, lesson: absorbEvent(item.lesson, event, input.nowMs) });
      continue;
    }
    const lesson = newLesson(event, nextLessonId, input.nowMs);
    working.set(lesson.id, { lesson, vector: await input.vectorizer.embed(lessonVectorText(lesson)) });
    byCategory.set(lesson.category, [...(byCategory.get(lesson.category) ?? []), lesson.id]);
    created.add(lesson.id);
    nextLessonId = nextId('L', [nextLessonId]);
  }
  const promoted = promoteDue(working, input.rules, input.criteria, input.nowMs);
  return {
    lessons: [...working.values()],
    rules: promoted.length === 0 ? [] : withConflicts(input.rules, promoted),
    lessonsCreated: created.size,
    lessonsUpdated: working.size - created.size,
    rulesPromoted: promoted.map((r) => r.id),
  };
}

/** Promotes the lessons of `lessons` that `promotionDecision` accepts, replacing them in the map; returns the new rules. */
export function promoteDue(lessons: Map<string, IndexedLesson>, rules: ReadonlyMap<string, Rule>, criteria: PromotionCriteria, nowMs: number): Rule[] {
  const promoted: Rule[] = [];
  let nextRuleId = nextId('R', rules.keys());
  for (const [id, item] of lessons) {
    const decision = promotionDecision(item.lesson, criteria, nowMs);
    if (!decision.promote) continue;
    const result = promoteLesson(item.lesson, decision.type, nextRuleId, nowMs);
    lessons.set(id, { ...item, lesson: result.lesson });
    promoted.push(result.rule);
    nextRuleId = nextId('R', [nextRuleId]);
  }
  return promoted;
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

/** A lesson as stored: with its vector and the vectorizer's source. */
export function storedLesson(item: IndexedLesson, source: Vectorizer['source']): StoredLesson {
  return { lesson: item.lesson, vector: { values: item.vector, source } };
}

/** What scan lesson promotion (`scanLessonPromotion`) reads of a `scan-model-lesson` memory. */
export function scanLessonStatsOf(lesson: Lesson): ScanLessonStats {
  const m = lesson.metadata;
  return {
    memoryId: lesson.id,
    text: lesson.text,
    lessonCategory: m.category,
    findingCategory: m.finding_category,
    sampleSize: m.sample_size,
    confidence: m.confidence,
    reinforcements: m.reinforcements,
    firstSeenMs: Date.parse(m.first_learned_at),
    lastSeenMs: Date.parse(m.last_seen),
  };
}
