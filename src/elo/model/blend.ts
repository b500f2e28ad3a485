import { type BlendWeights, blendedScore } from './elo';

export interface BlendCandidate<T> {
  item: T;
  kind: string;
  id: string;
  /** How well the item fits the message, ≥ 0 on any scale (cosine, or a provider's own relevance score). */
  relevance: number;
}

export interface Blended<T> extends BlendCandidate<T> {
  similarity: number;
  elo: number;
  score: number;
}

/**
 * Seed 002 phase 4 applied to a provider's shortlist: each candidate's relevance is divided by
 * `fullRelevance` (default: the best relevance in the list, so a provider's own score on any scale
 * becomes a similarity in [0, 1]; pass 1 for cosines) and clamped to [0, 1], then `score = similarity × w.similarity + clamp(elo / w.eloFullMarks, 0, 1) × w.elo`. Ordered by
 * score, then relevance, then kind and id, so the order is the same on every call. With every
 * rating equal the order is the relevance order.
 */
export function blendWithElo<T>(
  candidates: readonly BlendCandidate<T>[],
  eloOf: (kind: string, id: string) => number,
  weights: Readonly<BlendWeights>,
  fullRelevance = candidates.reduce((m, c) => Math.max(m, c.relevance), 0),
): Blended<T>[] {
  const best = fullRelevance;
  return candidates
    .map((c) => {
      const similarity = best > 0 ? Math.min(1, Math.max(0, c.relevance) / best) : 0;
      const elo = eloOf(c.kind, c.id);
      return { ...c, similarity, elo, score: blendedScore(similarity, elo, weights) };
    })
    .sort((a, b) => b.score - a.score || b.relevance - a.relevance || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}
