import { DAY_MS } from './grouping';

/**
 * Freshness of a lesson last seen `ageMs` ago: `0.5 ^ (ageMs / (halfLifeDays · 1 day))`.
 * 1 for a lesson seen now (or in the future), 0.5 after one half-life, never below 0.
 */
export function freshness(ageMs: number, halfLifeDays: number): number {
  if (ageMs <= 0) return 1;
  return 0.5 ** (ageMs / (halfLifeDays * DAY_MS));
}

export interface RankCandidate<T> {
  id: string;
  item: T;
  /** Cosine similarity to the current message, in [-1, 1]; negative counts as 0. */
  similarity: number;
  /** The scan lesson's stored confidence (metadata `confidence`). */
  scanLessonConfidence: number;
  avgReward: number;
  lastSeenMs: number;
  /** How many of the message's context fields (project, scanner, model, category) the lesson matches. */
  contextMatches: number;
}

export interface Ranked<T> {
  id: string;
  item: T;
  score: number;
}

/** How relevant a lesson is to a message: `max(similarity, 0) + 0.25 × contextMatches`. */
export function scanLessonRelevance(similarity: number, contextMatches: number): number {
  return Math.max(similarity, 0) + 0.25 * contextMatches;
}

/** What a lesson is worth regardless of the message: `confidence × |avg_reward|`. */
export function scanLessonWeight(scanLessonConfidence: number, avgReward: number): number {
  return scanLessonConfidence * Math.abs(avgReward);
}

/**
 * Issue 3's rank: `relevance × confidence × |avg_reward| × freshness`, where relevance is
 * `max(similarity, 0) + 0.25 × contextMatches`, so a lesson about the project and scanner the
 * message names outranks a merely similar one.
 */
export function scanLessonScore(c: Omit<RankCandidate<unknown>, 'id' | 'item'>, nowMs: number, halfLifeDays: number): number {
  return scanLessonRelevance(c.similarity, c.contextMatches) * scanLessonWeight(c.scanLessonConfidence, c.avgReward) * freshness(nowMs - c.lastSeenMs, halfLifeDays);
}

/** Higher score first; equal scores by id, so the order is the same on every call. */
function before(a: { id: string; score: number }, b: { id: string; score: number }): boolean {
  return a.score > b.score || (a.score === b.score && a.id < b.id);
}

/**
 * The best `limit` of a stream of scored items, best first, ties by id. Keeps them in a heap whose
 * root is the worst kept (each parent after its children in `before` order), so an item that gets
 * in costs O(log limit) whatever order items come in, and `floor` is read at the root; `result`
 * sorts the kept items once.
 */
export class TopK<T> {
  private readonly heap: Ranked<T>[] = [];
  /** Scores at or below `above` (and NaN) never get in: 0 by default, so lessons that score nothing are left out. */
  constructor(
    private readonly limit: number,
    private readonly above = 0,
  ) {}

  offer(id: string, item: T, score: number): void {
    if (!(score > this.above) || this.limit <= 0) return;
    const heap = this.heap;
    const candidate = { id, item, score };
    if (heap.length < this.limit) {
      // Up from a new leaf while the parent is better.
      let at = heap.length;
      heap.push(candidate);
      while (at > 0) {
        const parent = (at - 1) >> 1;
        const up = heap[parent] as Ranked<T>;
        if (!before(up, candidate)) break;
        heap[at] = up;
        at = parent;
      }
      heap[at] = candidate;
      return;
    }
    if (!before(candidate, heap[0] as Ranked<T>)) return;
    // The worst kept is dropped: the candidate goes down from the root while the worse child is not better than it.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const worse = right < heap.length && before(heap[left] as Ranked<T>, heap[right] as Ranked<T>) ? right : left;
      const child = heap[worse] as Ranked<T>;
      if (before(child, candidate)) break;
      heap[at] = child;
      at = worse;
    }
    heap[at] = candidate;
  }

  /** The score an item must reach to get in: the lowest kept score once full, else `above` (nothing gets into a TopK of 0). */
  floor(): number {
    if (this.limit <= 0) return Number.POSITIVE_INFINITY;
    return this.heap.length >= this.limit ? (this.heap[0] as Ranked<T>).score : this.above;
  }

  /** The items kept, best first. */
  result(): Ranked<T>[] {
    return [...this.heap].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }
}

/** Ranks candidates by `scanLessonScore`; lessons scoring 0 are left out. */
export function rankScanLessons<T>(candidates: readonly RankCandidate<T>[], nowMs: number, halfLifeDays: number, limit = Number.POSITIVE_INFINITY): Ranked<T>[] {
  const top = new TopK<T>(limit === Number.POSITIVE_INFINITY ? candidates.length : limit);
  for (const c of candidates) top.offer(c.id, c.item, scanLessonScore(c, nowMs, halfLifeDays));
  return top.result();
}
