import { ScanLessonIndex } from '../src/scan/scan-lesson-index';
import { fnv1a, lexicalVector } from '../src/shared/lexical-vector';
import { mulberry32 } from '../examples/generate-outcomes';
import { syntheticScanLesson } from '../__tests__/helpers/synthetic-scan-lessons';
import { percentile, report, round } from './lib';

/**
 * The ranking SCAN_LESSONS runs for every message (`ScanLessonIndex.rankScored`, top 50), alone, at
 * 1,000 and 10,000 lessons held (10,000 is SELF_IMPROVE_LESSONS_IN_MEMORY's default: what an agent
 * holds at 1M outcomes), for three messages: one about findings in general that names a scanner
 * and a category (as bench/scale.ts sends: every lesson is related), one naming a project, and an
 * unrelated one. Lessons from the synthetic generator the tests use, with three kinds of vector:
 * the built-in lexical one (sparse: what runs with no embedding model) and dense vectors of 384 and
 * 1,536 dimensions (what an embedding model gives: a small local model, and OpenAI's
 * text-embedding-3-small), pseudo-random, which costs the same to compare as a model's. Prints
 * p50/p99 per vector kind, message and size over the timed calls after untimed ones, and the
 * ratio of 10,000 to 1,000 measured in this run.
 */
const SIZES = [1_000, 10_000];
const NOW = Date.parse('2026-11-22T00:00:00Z');
const MESSAGES = {
  topical: { text: 'semgrep found sql-injection in payments-api handler, is it a false positive?', context: { scanner: 'semgrep', category: 'sql-injection' }, topical: true },
  project: { text: 'what do we know about billing?', context: { project: 'billing' }, topical: false },
  unrelated: { text: 'what time is the standup tomorrow?', context: {}, topical: false },
};

/** A deterministic dense vector for a text: uniform values from the examples' PRNG seeded by the text's hash. */
function denseVector(dimensions: number): (text: string) => number[] {
  return (text) => {
    const random = mulberry32(fnv1a(text));
    return Array.from({ length: dimensions }, () => random() - 0.5);
  };
}

const VECTORS = {
  lexical: { embed: lexicalVector, calls: 2_000, warmUp: 200 },
  dense_384: { embed: denseVector(384), calls: 300, warmUp: 50 },
  dense_1536: { embed: denseVector(1_536), calls: 300, warmUp: 50 },
};

type Timing = { p50_ms: number; p99_ms: number };
const out: Record<string, Record<string, Record<string, Timing>>> = {};
for (const [kind, { embed, calls, warmUp }] of Object.entries(VECTORS)) {
  for (const size of SIZES) {
    const index = new ScanLessonIndex();
    for (let i = 0; i < size; i++) {
      const lesson = syntheticScanLesson(i);
      index.put(lesson, embed(lesson.text));
    }
    for (const [name, message] of Object.entries(MESSAGES)) {
      const vector = embed(message.text);
      const query = { context: message.context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.5, minSimilarity: 0.29, topical: message.topical };
      const times: number[] = [];
      for (let i = 0; i < warmUp + calls; i++) {
        const start = performance.now();
        index.rankScored(vector, query, 50);
        if (i >= warmUp) times.push(performance.now() - start);
      }
      ((out[kind] ??= {})[name] ??= {})[String(size)] = { p50_ms: round(percentile(times, 50), 4), p99_ms: round(percentile(times, 99), 4) };
    }
  }
}
const [small, large] = SIZES.map(String) as [string, string];
report({
  bench: 'lesson-ranking',
  ranking: out,
  p50_ratio_10k_to_1k: Object.fromEntries(
    Object.entries(out).map(([kind, byMessage]) => [kind, Object.fromEntries(Object.entries(byMessage).map(([name, bySize]) => [name, round((bySize[large]?.p50_ms as number) / (bySize[small]?.p50_ms as number), 2)]))]),
  ),
});
