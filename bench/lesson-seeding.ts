import type { UUID } from '@elizaos/core';
import { stableId } from '../src/shared/ids';
import type { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { draftStatisticalScanLessons, scanLessonConfidence } from '../src/scan/model/scan-lesson';
import { groupId, type GroupKey } from '../src/scan/model/grouping';
import { summarizeOutcomes } from '../src/shared/stats';
import { scanLessonMetadataFor } from '../src/scan/scan-lesson-metadata';
import type { OutcomeLabel } from '../src/scan/model/outcome';
import { mulberry32 } from '../examples/generate-outcomes';
import { yieldToEventLoop } from '../src/shared/event-loop';
import { note } from './lib';

/**
 * Scan lessons written through ScanLessonStore as a learning pass writes them, for benches that need
 * more lessons than their outcomes teach: texts and metadata from the statistics of a group
 * (`draftStatisticalScanLessons`, `scanLessonMetadataFor`), groups named as bench/scale.ts names its
 * projects (a new project name every few groups, so the projects grow with the lessons). No
 * language or embedding model: the store's own vectorizer.
 */
const BASES = ['payments-api', 'mobile-app'];
const SCANNERS = ['semgrep', 'codeql', 'snyk-code'];
const MODELS = [
  ['openai', 'gpt-4o-mini'],
  ['anthropic', 'claude-3-5-haiku'],
];
const CATEGORIES = ['sql-injection', 'xss', 'path-traversal', 'hardcoded-secret', 'insecure-deserialization', 'dependency-version', 'weak-crypto', 'ssrf'];
const DAY = 86_400_000;
/**
 * When the newest seeded group's evidence ends: the day bench/scale.ts's outcomes begin. Each
 * later group ends a fortieth of a day earlier, so every lesson's `last_seen` is in the past, as
 * a learning pass's are (its evidence is outcomes that happened). Until 2026-11-28 the groups
 * went forward from 2026-01-01, and the 100,000 lessons of the scale bench's 1M step reached
 * 2032: the 10,000 held were all "seen in the future", whose freshness bound is no bound, so
 * SCAN_LESSONS' ranking visited nearly all of them (7,900 of 10,000 a message).
 */
const NEWEST = Date.parse('2026-10-31T00:00:00Z');

/** Group number `g`: a project name every 3 groups (as scale.ts: a new project every 200 rows). */
export function seededGroupKey(g: number): GroupKey {
  const [provider, model] = MODELS[g % 2] as [string, string];
  return { project: `${BASES[Math.floor(g / 3) % 2]}-${Math.floor(g / 6)}`, scanner: SCANNERS[g % 3] as string, model_provider: provider, model_name: model, category: CATEGORIES[(g * 7) % 8] as string };
}

/** Writes lessons until the agent has `target`, one group after another from `firstGroup`; returns the next group number. */
export async function seedLessons(service: Awaited<ReturnType<typeof scanOutcomeServiceOf>>, target: number, firstGroup: number): Promise<number> {
  let g = firstGroup;
  let stored = service.scanLessons.count();
  const random = mulberry32(7);
  while (stored < target) {
    const key = seededGroupKey(g);
    const n = 20 + Math.floor(random() * 60);
    const endMs = NEWEST - Math.floor((g / 40) * DAY);
    const outcomes = Array.from({ length: n }, (_, i) => {
      const r = random();
      const label: OutcomeLabel = r < 0.5 ? 'rejected_fp' : r < 0.8 ? 'fixed' : r < 0.95 ? 'ignored' : 'accepted';
      return { id: stableId('bench-outcome', String(g), String(i)) as UUID, label, reward: label === 'rejected_fp' ? -0.6 : label === 'fixed' ? 1 : 0, tsMs: endMs - i * 3_600_000 };
    });
    const stats = summarizeOutcomes(outcomes);
    for (const draft of draftStatisticalScanLessons(key, stats, { startMs: endMs - 7 * DAY, endMs })) {
      if (stored >= target) break;
      const metadata = scanLessonMetadataFor({
        category: draft.category,
        origin: 'statistics',
        statedConfidence: 1,
        scanLessonConfidence: scanLessonConfidence(draft, stats),
        groupId: groupId(key),
        key,
        evidence: [...outcomes].reverse(),
        stats,
        windowStartMs: endMs - 7 * DAY,
        windowEndMs: endMs,
        asOfMs: endMs,
        embeddingSource: 'lexical',
      });
      const id = stableId('bench-lesson', String(g), draft.category) as UUID;
      await service.scanLessons.create(id, draft.text, metadata, await service.scanLessons.vectorizer.embed(draft.text), endMs);
      stored++;
    }
    g++;
    // As a learning pass between its pages.
    await yieldToEventLoop();
    if (g % 2_000 === 0) note(`${stored}/${target} lessons`);
  }
  return g;
}
