import { similarity } from 'ml-distance';

/** Cosine similarity (ml-distance); 0 when either vector has no length, never NaN. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  const value = similarity.cosine(a as number[], b as number[]);
  return Number.isFinite(value) ? value : 0;
}

/** The vector scaled to unit length as Float32 (all zeros stays all zeros). */
export function unitVector(v: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += (v[i] as number) * (v[i] as number);
  norm = Math.sqrt(norm);
  const out = new Float32Array(v.length);
  if (norm === 0) return out;
  for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) / norm;
  return out;
}

export interface Neighbour<T> {
  item: T;
  similarity: number;
}

/** The non-zero coordinates of a unit query vector, for dot products that skip its zeros. */
export interface SparseQuery {
  indices: Int32Array;
  values: Float32Array;
}

export function sparseQuery(unit: Float32Array): SparseQuery {
  let nonZero = 0;
  for (let i = 0; i < unit.length; i++) if (unit[i] !== 0) nonZero++;
  const indices = new Int32Array(nonZero);
  const values = new Float32Array(nonZero);
  for (let i = 0, k = 0; i < unit.length; i++) {
    if (unit[i] === 0) continue;
    indices[k] = i;
    values[k++] = unit[i] as number;
  }
  return { indices, values };
}
