import '../src/cli/quiet';
import type { UUID } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { stableId } from '../src/shared/ids';
import { lexicalVector } from '../src/shared/lexical-vector';
import { bootRuntime } from '../src/cli/boot';
import { SCAN_LESSONS_TABLE, type ScanLessonMetadata } from '../src/scan/scan-lesson-metadata';
import { ScanLessonStore } from '../src/scan/scan-lesson-store';
import { chunks, dbOf } from '../src/shared/sql';
import { createTestModelsPlugin } from '../__tests__/helpers/test-models';
import { note, percentile, report, round, timeMs, withTempDir } from './lib';

/**
 * Dedupe check of one new lesson against N stored lessons: the in-process index (what the plugin
 * uses) against `runtime.searchMemories` (pgvector cosine in PGlite) on the same lessons and the
 * same vectors. Worst case for the index: every lesson is in one group, so it scans them all.
 */
const SIZES = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const THRESHOLD = 0.9;
const QUERIES = 20;
const GROUP = JSON.stringify(['bench', 'semgrep', 'openai', 'gpt-4o', 'xss']);

const WORDS = ['xss', 'sql', 'injection', 'template', 'sanitizer', 'react', 'jinja', 'orm', 'cookie', 'header', 'redirect', 'token', 'secret', 'regex', 'parser', 'upload', 'path', 'shell', 'yaml', 'pickle', 'crypto', 'hash', 'cors', 'csrf', 'session', 'jwt', 'ldap', 'xml', 'graphql', 'grpc'];
const VERBS = ['flagged', 'reported', 'missed', 'overstated', 'confirmed', 'ignored', 'disputed', 'fixed'];

function lessonText(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13 + Math.floor(i / 30)) % WORDS.length];
  const v = VERBS[(i * 3) % VERBS.length];
  return `Findings about ${w(1)} ${w(2)} near ${w(3)} code were ${v} when ${w(4)} handling used ${w(5)} helpers (variant ${i}).`;
}

function metadataFor(i: number, id: UUID): ScanLessonMetadata {
  const iso = new Date(Date.UTC(2026, 10, 1)).toISOString();
  return {
    type: 'scan-model-lesson', category: 'false-positive-pattern', confidence: 0.7, avg_reward: -0.3, sample_size: 20,
    project: 'bench', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', prompt_version: null, strategy_version: null,
    window_start: iso, window_end: iso, created_from: 'scan_finding_outcomes', finding_category: 'xss', group_id: GROUP,
    outcome_ids: [stableId('bench-outcome', String(i))], evidence_count: 1,
    label_counts: { fixed: 5, accepted: 0, ignored: 0, rejected_fp: 15, reopened: 0 }, false_positive_rate: 0.75,
    origin: 'statistics', stated_confidence: 1, reinforcements: 0, first_learned_at: iso, last_seen: iso, embedding_source: 'model',
  };
}

async function runSize(size: number) {
  return withTempDir('self-improve-bench-dedupe-', async (dataDir) => {
    const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin, createTestModelsPlugin().plugin], settings: { EMBEDDING_DIMENSION: '384' } });
    try {
      const db = dbOf(runtime);
      const agentId = runtime.agentId;
      note(`inserting ${size} lessons`);
      for (const batch of chunks(Array.from({ length: size }, (_, i) => i), 500)) {
        const rows = batch.map((i) => {
          const id = stableId('bench-lesson', String(i));
          const meta = JSON.stringify(metadataFor(i, id));
          const content = JSON.stringify({ text: lessonText(i) });
          return { id, meta, content, vector: `[${lexicalVector(lessonText(i)).map((x) => x.toFixed(6)).join(',')}]` };
        });
        await db.execute(sql`INSERT INTO memories (id, type, content, metadata, entity_id, agent_id, room_id, world_id, "unique")
          VALUES ${sql.join(rows.map((r) => sql`(${r.id}::uuid, ${SCAN_LESSONS_TABLE}, ${r.content}::jsonb, ${r.meta}::jsonb, ${agentId}::uuid, ${agentId}::uuid, ${agentId}::uuid, ${agentId}::uuid, true)`), sql`, `)}`);
        await db.execute(sql`INSERT INTO embeddings (memory_id, dim_384) VALUES ${sql.join(rows.map((r) => sql`(${r.id}::uuid, ${r.vector}::vector)`), sql`, `)}`);
      }
      const store = new ScanLessonStore(runtime, { source: 'model', embed: async (t) => lexicalVector(t) });
      const load = await timeMs(() => store.load());
      note(`loaded ${load.value} lessons into the index in ${Math.round(load.ms)} ms`);

      // Half the queries restate a stored lesson with other numbers (duplicates), half are new.
      const queries = Array.from({ length: QUERIES }, (_, q) =>
        q % 2 === 0 ? lessonText((q * 7919) % size).replace(/variant \d+/, 'variant 424242') : `Reopened ${WORDS[q % WORDS.length]} fixes in mobile builds lacked a regression test for branch ${q}.`,
      );
      const indexMs: number[] = [];
      const searchMs: number[] = [];
      let sameDecisions = 0;
      let sameNeighbour = 0;
      for (const text of queries) {
        const vector = lexicalVector(text);
        const fromIndex = await timeMs(async () => store.nearestInGroup(GROUP, vector));
        const fromDb = await timeMs(() => runtime.searchMemories({ tableName: SCAN_LESSONS_TABLE, embedding: vector, roomId: agentId, count: 1 }));
        indexMs.push(fromIndex.ms);
        searchMs.push(fromDb.ms);
        const top = fromDb.value[0];
        const indexDup = (fromIndex.value?.similarity ?? 0) >= THRESHOLD;
        const dbDup = Number(top?.similarity ?? 0) >= THRESHOLD;
        if (indexDup === dbDup) sameDecisions++;
        // Lessons that differ only in numbers have identical vectors: compare the neighbour's similarity, not its id.
        if (Math.abs((fromIndex.value?.similarity ?? 0) - Number(top?.similarity ?? 0)) < 1e-4) sameNeighbour++;
      }
      const p50Index = percentile(indexMs, 50);
      const p50Search = percentile(searchMs, 50);
      return {
        bench: 'dedupe',
        lessons: size,
        queries: QUERIES,
        duplicates_found: queries.length / 2,
        index_p50_ms: round(p50Index),
        index_p99_ms: round(percentile(indexMs, 99)),
        search_memories_p50_ms: round(p50Search),
        search_memories_p99_ms: round(percentile(searchMs, 99)),
        speedup_p50: round(p50Search / p50Index, 1),
        goal_speedup: 10,
        same_decisions: `${sameDecisions}/${QUERIES}`,
        same_top_similarity: `${sameNeighbour}/${QUERIES}`,
        index_load_ms: Math.round(load.ms),
        heap_used_mb: Math.round(process.memoryUsage().heapUsed / 1_048_576),
      };
    } finally {
      await close();
    }
  });
}

routeConsoleToStderr();
for (const size of SIZES) report(await runSize(size));
