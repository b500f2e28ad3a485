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
  confidence: number;
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

/**
 * Issue 3's rank: `similarity × confidence × |avg_reward| × freshness`, where similarity is
 * raised by context: `max(similarity, 0) + 0.25 × contextMatches`, so a lesson about the project
 * and scanner the message names outranks a merely similar one. Lessons with score 0 are left out.
 * Ties are broken by id, so the order is the same on every call.
 */
export function rankLessons<T>(candidates: readonly RankCandidate<T>[], nowMs: number, halfLifeDays: number): Ranked<T>[] {
  const ranked: Ranked<T>[] = [];
  for (const c of candidates) {
    const relevance = Math.max(c.similarity, 0) + 0.25 * c.contextMatches;
    const score = relevance * c.confidence * Math.abs(c.avgReward) * freshness(nowMs - c.lastSeenMs, halfLifeDays);
    if (score > 0) ranked.push({ id: c.id, item: c.item, score });
  }
  return ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
