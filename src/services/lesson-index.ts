import type { UUID } from '@elizaos/core';
import { nearest, type Neighbour, sparseCosine, sparseQuery, unitVector } from '../domain/similarity';
import type { Lesson } from './lesson-metadata';

interface IndexEntry {
  item: UUID;
  /** Unit length, Float32: half the memory of number[], and plenty of precision for a threshold. */
  vector: Float32Array;
}

/**
 * The in-process index of an agent's lessons: every lesson with its vector, by group. Dedupe
 * compares a new lesson with the lessons of its own group only, because a lesson's metadata names
 * one group and merging across groups would make its provenance lie. Kept current by LessonStore,
 * so no database query is needed to check a lesson or to list them.
 */
export class LessonIndex {
  /** Per group, lessons by id (insertion order kept, so ties resolve the same way every time). */
  private readonly byGroup = new Map<string, Map<UUID, IndexEntry>>();
  private readonly lessons = new Map<UUID, Lesson>();

  get size(): number {
    return this.lessons.size;
  }

  get(id: UUID): Lesson | undefined {
    return this.lessons.get(id);
  }

  all(): Lesson[] {
    return [...this.lessons.values()];
  }

  /** Adds or replaces a lesson; without a vector, a replaced lesson keeps the one it had. */
  put(lesson: Lesson, vector?: ArrayLike<number>): void {
    const group = lesson.metadata.group_id;
    const entries = this.byGroup.get(group) ?? new Map<UUID, IndexEntry>();
    const next = vector ? unitVector(vector) : entries.get(lesson.id)?.vector;
    if (!next) throw new Error(`lesson ${lesson.id} has no vector`);
    entries.set(lesson.id, { item: lesson.id, vector: next });
    this.byGroup.set(group, entries);
    this.lessons.set(lesson.id, lesson);
  }

  /** Every lesson with its cosine similarity to `vector`. */
  *withSimilarity(vector: ArrayLike<number>): Generator<{ lesson: Lesson; similarity: number }> {
    const query = sparseQuery(unitVector(vector));
    for (const entries of this.byGroup.values()) {
      for (const e of entries.values()) {
        const lesson = this.lessons.get(e.item);
        if (lesson) yield { lesson, similarity: sparseCosine(query, e.vector) };
      }
    }
  }

  /** The most similar lesson of `group`, or null when the group has none. */
  nearestInGroup(group: string, vector: ArrayLike<number>): Neighbour<UUID> | null {
    return nearest(unitVector(vector), this.byGroup.get(group)?.values() ?? []);
  }
}
