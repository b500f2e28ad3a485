import '../src/cli/quiet';
import type { Memory, UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { ContextIndex } from '../src/elo/model/context-index';
import { stableId } from '../src/shared/ids';
import selfImprovePlugin from '../src/index';
import { highEloContextProvider } from '../src/elo/surfaces/high-elo-context-provider';
import { bootRuntime } from '../src/cli/boot';
import { eloBookOf } from '../src/elo/elo-book-service';
import type { EloItemState } from '../src/elo/elo-store';
import { chatMessage } from '../__tests__/helpers/runtime';
import { note, percentile, report, round } from './lib';
import { textOf } from './synthetic-text';

/**
 * HIGH_ELO_CONTEXT: one provider `get` with N scored items that carry content (goal: p99 under
 * 2 ms at 100k, no model calls involved), measured at 10k and at N in the same run so the ratio
 * shows how the cost grows; and the heap the book takes per item (rating row with its text, plus
 * the content index), from heapUsed after a full GC. Items are reported through
 * `recordAccess`, as an integrator would, over paths that fall in every starting tier.
 */
const SIZE = Number(process.argv[2] ?? 100_000);
const SMALL = 10_000;
const CALLS = 1_000;
const PATHS = ['LAW/CANON', 'CAPABILITY/SKILLS', 'THOUGHT/LAB', 'src/lib', 'MEMORY/ARCHIVE'];

function heapUsedAfterGc(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

/**
 * Heap per item of what the book keeps in memory: a rating row (with title and text) and a
 * content-index entry. Measured apart from the runtime, whose in-memory database also grows.
 */
function bookMemory(items: number): { ratings: number; content: number; total: number } {
  const before = heapUsedAfterGc();
  const rows = new Map<string, EloItemState>();
  for (let i = 0; i < items; i++) {
    const id = `${PATHS[i % PATHS.length]}/doc-${i}.md`;
    rows.set(`file\u0000${id}`, { kind: 'file', id, elo: 1200 + (i % 400), startElo: 1200, updates: i % 40, lastUsedMs: i, title: `doc ${i}`, body: `${textOf(i, 30)}.` });
  }
  const afterRows = heapUsedAfterGc();
  const index = new ContextIndex();
  for (const row of rows.values()) index.put({ kind: row.kind, id: row.id, title: row.title as string, text: row.body as string });
  const afterIndex = heapUsedAfterGc();
  const ratings = Math.round((afterRows - before) / items);
  const content = Math.round((afterIndex - afterRows) / items);
  if (index.size !== rows.size) throw new Error('index lost items');
  return { ratings, content, total: ratings + content };
}

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin] });
try {
  const book = await eloBookOf(runtime);
  const messages: Memory[] = [];
  for (let c = 0; c < CALLS; c++) messages.push(await chatMessage(runtime, `${textOf(1_000_000 + c, 12)} ?`));
  const state = { values: {}, data: {}, text: '' };

  async function measure(round: string): Promise<number[]> {
    for (const m of messages.slice(0, 20)) await highEloContextProvider.get(runtime, { ...m, id: stableId('warm', round, String(m.id)) as UUID }, state);
    const times: number[] = [];
    for (const m of messages) {
      const message = { ...m, id: stableId(round, String(m.id)) as UUID };
      const start = performance.now();
      await highEloContextProvider.get(runtime, message, state);
      times.push(performance.now() - start);
      // Messages do not arrive back to back: the book's batched writes run between them, as in an agent.
      await Bun.sleep(0);
    }
    return times;
  }

  async function load(from: number, to: number): Promise<void> {
    for (let i = from; i < to; i++) {
      const path = `${PATHS[i % PATHS.length]}/doc-${i}.md`;
      book.recordAccess('file', path, { title: `doc ${i}`, text: `${textOf(i, 30)}.` }, Date.parse('2026-11-20T00:00:00Z') + i);
      if (i % 500 === 499) await book.flush();
      if (i % 20_000 === 19_999) note(`loaded ${i + 1} items`);
    }
    await book.flush();
  }

  await load(0, SMALL);
  const small = await measure('small');
  await load(SMALL, SIZE);
  const large = await measure('large');
  const memory = bookMemory(SIZE);
  const p99 = percentile(large, 99);
  report({
    bench: 'high-elo-context-provider',
    items: SIZE,
    calls: CALLS,
    p50_ms: round(percentile(large, 50)),
    p99_ms: round(p99),
    goal_p99_ms: 2,
    goal_ratio: round(2 / p99, 2),
    small_items: SMALL,
    small_p50_ms: round(percentile(small, 50)),
    small_p99_ms: round(percentile(small, 99)),
    p50_ratio_large_to_small: round(percentile(large, 50) / percentile(small, 50), 2),
    heap_bytes_per_item: memory.total,
    heap_bytes_per_item_ratings: memory.ratings,
    heap_bytes_per_item_content: memory.content,
    heap_mb_per_100k_items: round((memory.total * 100_000) / 1_048_576, 1),
  });
} finally {
  await close();
}
