import { similarity } from 'ml-distance';

/** Cosine similarity (ml-distance); 0 when either vector has no length, never NaN. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  const value = similarity.cosine(a as number[], b as number[]);
  return Number.isFinite(value) ? value : 0;
}

export interface Neighbour<T> {
  item: T;
  similarity: number;
}

/** The most similar candidate (first one wins a tie), or null when there are none. */
export function nearest<T>(vector: ArrayLike<number>, candidates: Iterable<{ item: T; vector: ArrayLike<number> }>): Neighbour<T> | null {
  let best: Neighbour<T> | null = null;
  for (const c of candidates) {
    const s = cosineSimilarity(vector, c.vector);
    if (best === null || s > best.similarity) best = { item: c.item, similarity: s };
  }
  return best;
}
