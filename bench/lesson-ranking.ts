import { ScanLessonIndex } from '../src/scan/scan-lesson-index';
import { lexicalVector } from '../src/shared/lexical-vector';
import { syntheticScanLesson } from '../__tests__/helpers/synthetic-scan-lessons';
import { percentile, report, round } from './lib';

/**
 * The ranking SCAN_LESSONS runs for every message (`ScanLessonIndex.rankScored`, top 50), alone, at
 * 1,000 and 10,000 lessons held (10,000 is SELF_IMPROVE_LESSONS_IN_MEMORY's default: what an agent
 * holds at 1M outcomes), for three messages: one about findings in general that names a scanner
 * and a category (as bench/scale.ts sends: every lesson is related), one naming a project, and an
 * unrelated one. Lessons from the synthetic generator the tests use, lexical vectors. Prints p50/p99
 * per message and size over CALLS calls after WARM_UP untimed ones, and the ratio of 10,000 to
 * 1,000 measured in this run.
 */
const SIZES = [1_000, 10_000];
const CALLS = 2_000;
const WARM_UP = 200;
const NOW = Date.parse('2026-11-22T00:00:00Z');
const MESSAGES = {
  topical: { text: 'semgrep found sql-injection in payments-api handler, is it a false positive?', context: { scanner: 'semgrep', category: 'sql-injection' }, topical: true },
  project: { text: 'what do we know about billing?', context: { project: 'billing' }, topical: false },
  unrelated: { text: 'what time is the standup tomorrow?', context: {}, topical: false },
};

const out: Record<string, Record<string, { p50_ms: number; p99_ms: number }>> = {};
for (const size of SIZES) {
  const index = new ScanLessonIndex();
  for (let i = 0; i < size; i++) {
    const lesson = syntheticScanLesson(i);
    index.put(lesson, lexicalVector(lesson.text));
  }
  for (const [name, message] of Object.entries(MESSAGES)) {
    const vector = lexicalVector(message.text);
    const query = { context: message.context, nowMs: NOW, halfLifeDays: 30, minScanLessonConfidence: 0.5, minSimilarity: 0.29, topical: message.topical };
    const times: number[] = [];
    for (let i = 0; i < WARM_UP + CALLS; i++) {
      const start = performance.now();
      index.rankScored(vector, query, 50);
      if (i >= WARM_UP) times.push(performance.now() - start);
    }
    (out[name] ??= {})[String(size)] = { p50_ms: round(percentile(times, 50), 4), p99_ms: round(percentile(times, 99), 4) };
  }
}
const [small, large] = SIZES.map(String) as [string, string];
report({
  bench: 'lesson-ranking',
  calls: CALLS,
  ranking: out,
  p50_ratio_10k_to_1k: Object.fromEntries(Object.entries(out).map(([name, bySize]) => [name, round((bySize[large]?.p50_ms as number) / (bySize[small]?.p50_ms as number), 2)])),
});
