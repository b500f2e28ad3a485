import { yieldToEventLoop } from '../shared/event-loop';
import type { UUID } from '@elizaos/core';
import { parseGroupId } from './model/grouping';
import { freshness, scanLessonRelevance, scanLessonWeight, type Ranked, TopK } from './model/scan-lesson-ranking';
import { maxPerQuery } from '../shared/relevance-floor';
import { triageLevelIds } from './model/triage-prior';
import { type Neighbour, sparseQuery, unitVector } from '../shared/similarity';
import { SimilarityColumns } from '../shared/similarity-columns';
import { heldScanLesson, type ScanLesson } from './scan-lesson-metadata';
import { ContextVocabulary } from './model/context-vocabulary';
import { ScanLessonSlots, type SlotFacts } from './scan-lesson-slots';
import { WeightOrder } from './scan-lesson-weight-order';
import { ContextSets } from './scan-lesson-context-sets';

/**
 * Lessons a message names a value of, or two values of, that `rankScored` scores from the sets
 * holding them before its visit by weight, when there are at most this many (and at most one in
 * `SCORED_FIRST_SHARE` of the lessons held): a value few lessons have (a project), or two that few
 * have together (a scanner and a category). Scoring a lesson first costs what several visits do
 * (its freshness and a place in the top, where most visits stop at the bound), so a set is scored
 * first only when it is small next to the lessons the visit could go through.
 */
const SCORED_FIRST_AT_MOST = 256;
const SCORED_FIRST_SHARE = 64;

/** The fields a prompt's context can name, as the index counts them. */
export const CONTEXT_FIELDS = ['project', 'scanner', 'model_name', 'category'] as const;
export type ContextField = (typeof CONTEXT_FIELDS)[number];

/** What `ScanLessonIndex.rank` needs besides the message vector. */
export interface RankQuery {
  context: Partial<Record<ContextField, string>>;
  nowMs: number;
  halfLifeDays: number;
  minScanLessonConfidence: number;
  /**
   * Cosine a lesson must exceed to count as related on meaning alone (the calibrated relevance
   * floor); a lesson sharing a context value with the message needs none. Default 0.
   */
  minSimilarity?: number;
  /**
   * The message is about scan findings in general (`mentionsScanTopic`): every lesson counts as
   * related, as if it matched one more context field. Default false.
   */
  topical?: boolean;
}

export function scanLessonContextValue(lesson: ScanLesson, field: ContextField): string | null {
  return field === 'category' ? lesson.metadata.finding_category : lesson.metadata[field];
}

/** Lessons `rankScored` scores first: those holding the message's values of `fields`. */
interface ScoredFirstSource {
  entries: readonly IndexEntry[];
  fields: number[];
}

interface IndexEntry {
  item: UUID;
  lesson: ScanLesson;
  /** `last_seen` as epoch ms, parsed once. */
  lastSeenMs: number;
  /** This lesson's slot in the similarity columns, which hold its vector (unit length, Float32). */
  slot: number;
}

/**
 * The in-process index of an agent's lessons: every lesson with its vector, by group. Dedupe
 * compares a new lesson with the lessons of its own group only, because a lesson's metadata names
 * one group and merging across groups would make its provenance lie. Kept current by ScanLessonStore,
 * so no database query is needed to check a lesson or to list them.
 */
export class ScanLessonIndex {
  /** Per group, lessons by id (insertion order kept, so ties resolve the same way every time). */
  private readonly byGroup = new Map<string, Map<UUID, IndexEntry>>();
  private readonly lessons = new Map<UUID, ScanLesson>();
  private readonly columns = new SimilarityColumns();
  /** Entries by slot, for the column scan. */
  private readonly bySlot: IndexEntry[] = [];
  /** What ranking reads of each lesson, by slot. */
  private readonly slots = new ScanLessonSlots(CONTEXT_FIELDS.length);
  /** Lesson ids by scanner+category triage level: the lessons a finding's parent level stands on. */
  private readonly byScannerCategory = new Map<string, Set<UUID>>();
  /** The lessons holding each context value, and each pair of values (`rankScored` scores them first). */
  private readonly contextSets = new ContextSets<IndexEntry>(CONTEXT_FIELDS.length);
  /** Per context field, the values lessons have: what a message can name. */
  private readonly vocabularies = Object.fromEntries(CONTEXT_FIELDS.map((f) => [f, new ContextVocabulary()])) as Record<ContextField, ContextVocabulary>;

  private changes = 0;
  /** The slots by weight as of `weightOrderAt` changes (`rankScored` builds it again when they moved). */
  private weightOrder: { order: WeightOrder; facts: SlotFacts } | null = null;
  private weightOrderAt = -1;

  get size(): number {
    return this.lessons.size;
  }

  /** Grows with every lesson added or replaced: what was computed from the lessons is stale when it moved. */
  get version(): number {
    return this.changes;
  }

  get(id: UUID): ScanLesson | undefined {
    return this.lessons.get(id);
  }

  all(): ScanLesson[] {
    return [...this.lessons.values()];
  }

  private readonly putListeners: ((lesson: ScanLesson) => void)[] = [];
  private readonly removeListeners: ((id: UUID) => void)[] = [];

  /** Calls `listener` with every lesson added or replaced from now on. */
  onPut(listener: (lesson: ScanLesson) => void): void {
    this.putListeners.push(listener);
  }

  /** Calls `listener` with the id of every lesson let go from now on (`remove`). */
  onRemove(listener: (id: UUID) => void): void {
    this.removeListeners.push(listener);
  }

  /** Adds or replaces a lesson (held without its evidence ids); without a vector, a replaced lesson keeps the one it had. */
  put(stored: ScanLesson, vector?: ArrayLike<number>): void {
    const lesson = heldScanLesson(stored);
    const group = lesson.metadata.group_id;
    const entries = this.byGroup.get(group) ?? new Map<UUID, IndexEntry>();
    const old = entries.get(lesson.id);
    if (!vector && !old) throw new Error(`lesson ${lesson.id} has no vector`);
    const previous = this.lessons.get(lesson.id);
    if (previous) this.count(previous, -1);
    // Its slot still holds the codes of the lesson it replaces.
    if (old) this.contextSets.delete(old, this.slots.contextOf(old.slot));
    this.count(lesson, 1);
    const slot = old ? old.slot : this.columns.add(vector as ArrayLike<number>);
    if (old && vector) this.columns.set(slot, vector);
    const entry: IndexEntry = {
      item: lesson.id,
      lesson,
      lastSeenMs: Date.parse(lesson.metadata.last_seen),
      slot,
    };
    entries.set(lesson.id, entry);
    this.bySlot[slot] = entry;
    this.slots.set(slot, {
      weight: scanLessonWeight(lesson.metadata.confidence, lesson.metadata.avg_reward),
      confidence: lesson.metadata.confidence,
      lastSeenMs: entry.lastSeenMs,
      context: CONTEXT_FIELDS.map((field) => scanLessonContextValue(lesson, field)),
    });
    this.contextSets.add(entry, this.slots.contextOf(slot));
    this.byGroup.set(group, entries);
    this.lessons.set(lesson.id, lesson);
    const parent = triageLevelIds(parseGroupId(group)).scanner_category;
    const siblings = this.byScannerCategory.get(parent) ?? new Set<UUID>();
    siblings.add(lesson.id);
    this.byScannerCategory.set(parent, siblings);
    this.changes++;
    for (const listener of this.putListeners) listener(lesson);
  }

  /** Whether a lesson is held. */
  has(id: UUID): boolean {
    return this.lessons.has(id);
  }

  /** Lets go of a lesson (it stays stored): it is no longer ranked, listed or compared. */
  remove(id: UUID): void {
    const lesson = this.lessons.get(id);
    if (!lesson) return;
    const group = lesson.metadata.group_id;
    const entries = this.byGroup.get(group) as Map<UUID, IndexEntry>;
    const entry = entries.get(id) as IndexEntry;
    this.count(lesson, -1);
    this.contextSets.delete(entry, this.slots.contextOf(entry.slot));
    const moved = this.columns.removeSwap(entry.slot);
    if (moved !== null) {
      const last = this.bySlot[moved] as IndexEntry;
      last.slot = entry.slot;
      this.bySlot[entry.slot] = last;
      this.slots.move(moved, entry.slot);
    }
    this.bySlot.pop();
    entries.delete(id);
    if (entries.size === 0) this.byGroup.delete(group);
    const parent = triageLevelIds(parseGroupId(group)).scanner_category;
    const siblings = this.byScannerCategory.get(parent);
    siblings?.delete(id);
    if (siblings?.size === 0) this.byScannerCategory.delete(parent);
    this.lessons.delete(id);
    this.changes++;
    for (const listener of this.removeListeners) listener(id);
  }

  /** The ids of the `n` lessons held with the oldest evidence (`last_seen`; ties by id, the greater first): the last in `newestEvidenceFirst` order. */
  oldest(n: number): UUID[] {
    return [...this.bySlot]
      .sort((a, b) => a.lastSeenMs - b.lastSeenMs || (a.item < b.item ? 1 : a.item > b.item ? -1 : 0))
      .slice(0, n)
      .map((e) => e.item);
  }

  /**
   * The lessons behind a triage prior for a finding of `group`: the group's own lessons, then
   * those of other groups with the same scanner and category; each part by confidence, then id.
   */
  lessonsBehind(group: string, limit: number): ScanLesson[] {
    const byConfidence = (a: ScanLesson, b: ScanLesson) => b.metadata.confidence - a.metadata.confidence || a.id.localeCompare(b.id);
    const own = [...(this.byGroup.get(group)?.values() ?? [])].map((e) => e.lesson).sort(byConfidence);
    const parent = triageLevelIds(parseGroupId(group)).scanner_category;
    const related = [...(this.byScannerCategory.get(parent) ?? [])]
      .map((id) => this.lessons.get(id) as ScanLesson)
      .filter((l) => l.metadata.group_id !== group)
      .sort(byConfidence);
    return [...own, ...related].slice(0, limit);
  }

  private count(lesson: ScanLesson, delta: number): void {
    for (const field of CONTEXT_FIELDS) {
      const value = scanLessonContextValue(lesson, field);
      if (value) this.vocabularies[field].count(value, delta);
    }
  }

  /** The value of `field` some lesson has that `messageWords` (`wordListOf` a message) names as whole words; the one known first when several are. */
  valueNamedIn(field: ContextField, messageWords: readonly string[]): string | null {
    return this.vocabularies[field].findIn(messageWords);
  }

  /**
   * The `limit` best lessons for a message by `scanLessonScore`: cosine similarity to `vector` from the
   * similarity columns, matches with the context the message names, and the parts of the score
   * that do not depend on the message computed when the lesson was indexed. Lessons below
   * `minConfidence`, and those neither similar beyond `minSimilarity` (and 0) nor matching any
   * context (a `topical` message counts as one match with every lesson), are left out.
   */
  rank(vector: ArrayLike<number>, query: RankQuery, limit: number): ScanLesson[] {
    return this.rankScored(vector, query, limit).map((r) => r.item);
  }

  /**
   * `rank` with each lesson's score. The lessons holding a value the message names that few
   * lessons hold (its project), or two of its values that few hold together (its scanner and
   * category), are scored first (`scoredFirst`). The others are visited heaviest first by their
   * weight decayed to a common time (`WeightOrder`), and the visit stops once no lesson left can
   * reach the score the top needs: a score is at most the greatest relevance such a lesson can
   * have (the greatest cosine the message has with any lesson held, the named fields it can still
   * match, and the topical match) times the weight decayed to the message's time
   * (`WeightOrder.ceiling`). A message related to no lesson visits none. The result is the one
   * visiting every lesson gives (ties go by id whatever the order). The lessons' facts are read in
   * visit order (`ScanLessonSlots.gather`). With bench/scan-lessons-scale.ts's lessons (their
   * evidence spread over 12 days at 1,000 lessons, over 4 months at 10,000), a message naming a
   * project, a scanner and a category visits about 440 of 1,000 lessons and 575 of 10,000 (sorted
   * by weight alone: 960 and 8,600). On bench/scale.ts's 1M database (10,000 held), such a message
   * visited 3,366 lessons while every lesson could match all three; with the one or two holding its
   * project and the none holding its scanner and category together scored first, 480.
   */
  rankScored(vector: ArrayLike<number>, query: RankQuery, limit: number): Ranked<ScanLesson>[] {
    const cosines = this.columns.cosines(sparseQuery(unitVector(vector)));
    const fields = CONTEXT_FIELDS.length;
    // −1 (a value no lesson has) matches no slot; 0 (not named) is skipped.
    const named = Int32Array.from(CONTEXT_FIELDS, (field) => this.slots.codeOf(query.context[field] ?? null));
    const floor = Math.max(0, query.minSimilarity ?? 0);
    const topicalMatch = query.topical ? 1 : 0;
    // No lesson is more similar than the most similar one (read from the same Float32 cosines the
    // visits read), nor matches more than every field the message names.
    const greatestCosine = greatest(cosines);
    const namedFields = named.filter((code) => code > 0).length;
    // Related to no lesson: none is similar beyond the floor, and the message matches no context.
    if (greatestCosine <= floor && namedFields === 0 && topicalMatch === 0) return [];
    const top = new TopK<ScanLesson>(limit);
    const minConfidence = query.minScanLessonConfidence;
    // The lessons holding a rarely held value the message names (or two of its values) first, read where they lie.
    const first = this.scoredFirst(named);
    const sources = first.sources;
    for (let i = 0; i < sources.length; i++) {
      for (const e of (sources[i] as ScoredFirstSource).entries) {
        const slot = e.slot;
        // A lesson in two of the sets is scored from the first: it holds every value of that one's fields.
        let earlier = false;
        for (let j = 0; j < i && !earlier; j++) earlier = (sources[j] as ScoredFirstSource).fields.every((f) => this.slots.context[slot * fields + f] === named[f]);
        if (earlier) continue;
        if ((this.slots.confidence[slot] as number) < minConfidence) continue;
        let contextMatches = topicalMatch;
        for (let f = 0, at = slot * fields; f < fields; f++, at++) if (named[f] !== 0 && this.slots.context[at] === named[f]) contextMatches++;
        const similarity = cosines[slot] as number;
        if (similarity <= floor && contextMatches === 0) continue;
        const score = scanLessonRelevance(similarity, contextMatches) * (this.slots.weight[slot] as number) * freshness(query.nowMs - (this.slots.lastSeenMs[slot] as number), query.halfLifeDays);
        top.offer(e.item, e.lesson, score);
      }
    }
    // The others match at most `matchesLeft` of the fields the message names.
    const greatestRelevance = scanLessonRelevance(greatestCosine, topicalMatch + first.matchesLeft);
    const scoredFirstWeights = first.weights;
    const { order, facts } = this.slotsByWeight(query.halfLifeDays);
    const { weight, confidence, lastSeenMs, context } = facts;
    // The score a lesson must reach to get in, read again only when the top changes.
    let least = top.floor();
    for (let b = 0; b < order.buckets; b++) {
      const start = order.starts[b] as number;
      const end = order.starts[b + 1] as number;
      if (start === end) continue;
      if (greatestRelevance * order.ceiling(b, query.nowMs) < least) break;
      // k: the lesson's place in weight order, where its facts are (`facts`); slot: where its vector is.
      for (let k = start; k < end; k++) {
        if ((confidence[k] as number) < minConfidence) continue;
        let contextMatches = topicalMatch;
        let scoredFirst = 0;
        for (let f = 0, at = k * fields; f < fields; f++, at++) {
          if (named[f] !== 0 && context[at] === named[f]) {
            contextMatches++;
            scoredFirst += scoredFirstWeights[f] as number;
          }
        }
        if (scoredFirst >= 2) continue;
        const slot = order.slots[k] as number;
        const similarity = cosines[slot] as number;
        if (similarity <= floor && contextMatches === 0) continue;
        // Freshness is at most 1: a lesson that cannot reach the current floor is skipped before pow.
        const bound = scanLessonRelevance(similarity, contextMatches) * (weight[k] as number);
        if (bound < least) continue;
        const score = bound * freshness(query.nowMs - (lastSeenMs[k] as number), query.halfLifeDays);
        if (score < least) continue;
        const e = this.bySlot[slot] as IndexEntry;
        top.offer(e.item, e.lesson, score);
        least = top.floor();
      }
    }
    return top.result();
  }

  /**
   * The lessons `rankScored` scores before its visit by weight: those holding a value the message
   * names (`named`, codes by field) that at most SCORED_FIRST_AT_MOST lessons hold; then, of the
   * fields whose named value more lessons hold, when at most that many lessons hold two of their
   * values, those. `weights`, per field: 2 when every lesson holding its named value was scored
   * first, 1 when those holding it and another such field's were, else 0; a lesson whose matched
   * fields' weights add up to 2 was scored first. `matchesLeft`: the most named fields any other
   * lesson can match (what bounds the visit).
   */
  private scoredFirst(named: Int32Array): { sources: ScoredFirstSource[]; weights: Int32Array; matchesLeft: number } {
    const sources: ScoredFirstSource[] = [];
    const atMost = Math.min(SCORED_FIRST_AT_MOST, Math.floor(this.size / SCORED_FIRST_SHARE));
    const weights = new Int32Array(named.length);
    const common: number[] = [];
    for (let f = 0; f < named.length; f++) {
      const code = named[f] as number;
      if (code <= 0) continue;
      const holding = this.contextSets.single(f, code);
      if ((holding?.length ?? 0) > atMost) {
        common.push(f);
        continue;
      }
      weights[f] = 2;
      if (holding) sources.push({ entries: holding, fields: [f] });
    }
    if (common.length < 2) return { sources, weights, matchesLeft: common.length };
    const pairs: ScoredFirstSource[] = [];
    let held = 0;
    for (let i = 0; i < common.length; i++) {
      for (let j = i + 1; j < common.length; j++) {
        const a = common[i] as number;
        const b = common[j] as number;
        const both = this.contextSets.pair(a, named[a] as number, b, named[b] as number);
        if (!both) continue;
        pairs.push({ entries: both, fields: [a, b] });
        held += both.length;
      }
    }
    if (held > atMost) return { sources, weights, matchesLeft: common.length };
    for (const f of common) weights[f] = 1;
    return { sources: [...sources, ...pairs], weights, matchesLeft: 1 };
  }

  /** The slots by decayed weight, with their facts in that order; built again when the lessons or the half-life changed since. */
  private slotsByWeight(halfLifeDays: number): { order: WeightOrder; facts: SlotFacts } {
    if (this.weightOrder === null || this.weightOrderAt !== this.changes || this.weightOrder.order.halfLifeDays !== halfLifeDays) {
      const order = new WeightOrder(this.slots, this.bySlot.length, halfLifeDays);
      this.weightOrder = { order, facts: this.slots.gather(order.slots) };
      this.weightOrderAt = this.changes;
    }
    return this.weightOrder;
  }

  /**
   * Runs the ranking `calls` times on the newest lesson's vector (as a topical message, then as a
   * plain one), the event loop free between calls, so the prompts after start find the ranking
   * compiled: at 100k lessons the first twenty or so rankings of a process took ten times longer
   * (4–5 ms) than the ones after.
   */
  async warmUp(calls: number, nowMs: number, halfLifeDays: number): Promise<void> {
    const newest = this.bySlot[this.bySlot.length - 1];
    if (!newest) return;
    for (let i = 0; i < calls; i++) {
      this.rankScored(this.columns.vectorAt(newest.slot), { context: {}, nowMs, halfLifeDays, minScanLessonConfidence: 0, topical: i % 2 === 0 }, 50);
      await yieldToEventLoop();
    }
  }

  /** For each vector, its highest cosine with any lesson (−∞ when there are none): what the relevance floor is calibrated on. */
  maxCosines(vectors: readonly ArrayLike<number>[]): number[] {
    return maxPerQuery(vectors, (v) => this.columns.cosines(sparseQuery(unitVector(v))));
  }

  /** The most similar lesson of `group`, or null when the group has none. */
  nearestInGroup(group: string, vector: ArrayLike<number>): Neighbour<UUID> | null {
    return this.columns.nearest(vector, this.byGroup.get(group)?.values() ?? []);
  }
}

/** The greatest of `values`, or 0 when none is above 0 (a negative cosine counts as 0 in relevance). */
function greatest(values: Float32Array): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max;
}
