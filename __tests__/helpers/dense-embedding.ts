import { type IAgentRuntime, ModelType, type Plugin } from '@elizaos/core';
import { mulberry32 } from '../../examples/generate-outcomes';
import { fnv1a } from '../../src/shared/lexical-vector';

/** Dimensions of the dense test embedding (a size plugin-sql stores). */
export const DENSE_DIMENSIONS = 384;
/**
 * Weight of the direction every text shares: `cos ≈ (cos_trigrams + a²) / (1 + a²)`, so unrelated
 * texts sit near 0.33 instead of 0, as real embedding models do (they are anisotropic).
 */
const ANISOTROPY = 0.7;

const directions = new Map<string, Float64Array>();

/** The fixed Gaussian direction of one trigram (Box–Muller over a PRNG seeded by the trigram's hash). */
function directionOf(trigram: string): Float64Array {
  let d = directions.get(trigram);
  if (d) return d;
  const random = mulberry32(fnv1a(trigram));
  d = new Float64Array(DENSE_DIMENSIONS);
  for (let i = 0; i < DENSE_DIMENSIONS; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const theta = 2 * Math.PI * random();
    d[i] = r * Math.cos(theta);
    if (i + 1 < DENSE_DIMENSIONS) d[i + 1] = r * Math.sin(theta);
  }
  directions.set(trigram, d);
  return d;
}

/**
 * A deterministic dense embedding for tests and benchmarks: the character trigrams of the
 * lower-cased text (runs of non-letters and non-digits as one space, padded with a space), each
 * mapped to a fixed pseudo-random Gaussian direction, summed by count and L2-normalised (a random
 * projection of the trigram count vector: cosines approximate those of trigram counts, every
 * coordinate is used), plus a direction all texts share (`ANISOTROPY`), normalised again: two
 * unrelated texts get a clearly positive cosine, as with real embedding models.
 */
export function denseVector(text: string): number[] {
  const padded = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const sum = new Float64Array(DENSE_DIMENSIONS);
  for (let i = 0; i + 3 <= padded.length; i++) {
    const d = directionOf(padded.slice(i, i + 3));
    for (let k = 0; k < DENSE_DIMENSIONS; k++) sum[k] = (sum[k] as number) + (d[k] as number);
  }
  let norm = 0;
  for (const v of sum) norm += v * v;
  norm = Math.sqrt(norm);
  if (norm === 0) return Array.from(sum, () => 0);
  const common = directionOf('\u0000common');
  const commonNorm = Math.sqrt(common.reduce((a, v) => a + v * v, 0));
  const out = Array.from(sum, (v, k) => v / norm + ANISOTROPY * ((common[k] as number) / commonNorm));
  const outNorm = Math.sqrt(out.reduce((a, v) => a + v * v, 0));
  return out.map((v) => v / outNorm);
}

/** A model plugin whose TEXT_EMBEDDING is `denseVector`. */
export function denseEmbeddingPlugin(): Plugin {
  return {
    name: 'dense-test-embedding',
    description: 'deterministic dense embedding: random projection of character trigrams',
    priority: 100,
    models: {
      [ModelType.TEXT_EMBEDDING]: async (_rt: IAgentRuntime, params: unknown) => {
        const text = typeof params === 'string' ? params : ((params as { text?: string } | null)?.text ?? '');
        return denseVector(text);
      },
    },
  };
}
