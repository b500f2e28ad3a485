import { EloHotSet, ratingKey } from '../src/elo/elo-hot-set';
import type { EloItemState } from '../src/elo/elo-store';
import { note, report, round } from './lib';
import { textOf } from './synthetic-text';

/**
 * Heap the ELO book's items in memory take (`EloHotSet`, bounded by SELF_IMPROVE_ELO_HOT_ITEMS),
 * per item: N item states shaped as the store reads them (kind, a path id, rating fields, a title;
 * with content: a text of ~30 words) are put into a hot set, heapUsed measured after a full GC
 * before and after. Each kind is measured three times and the median kept. The content index (all
 * content, whatever the bound) is measured by bench/elo-context.ts.
 */
const SIZE = Number(process.argv[2] ?? 100_000);

function heapUsedAfterGc(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

function perItem(withContent: boolean): number {
  const before = heapUsedAfterGc();
  const hot = new EloHotSet(SIZE, { loadItems: async () => [] }, () => false, true, () => undefined);
  for (let i = 0; i < SIZE; i++) {
    const id = `src/lib/module-${i}/file-${i}.ts`;
    const item: EloItemState = { kind: 'file', id, elo: 1200 + (i % 400), startElo: 1200, updates: i % 40, lastUsedMs: 1_700_000_000_000 + i, title: `module ${i}` };
    if (withContent) item.body = `${textOf(i, 30)}.`;
    hot.set(ratingKey(item.kind, item.id), item);
  }
  const after = heapUsedAfterGc();
  if (hot.size !== SIZE) throw new Error(`expected ${SIZE} items, got ${hot.size}`);
  return Math.round((after - before) / SIZE);
}

const median = (withContent: boolean) => {
  const runs = [perItem(withContent), perItem(withContent), perItem(withContent)].sort((a, b) => a - b);
  note(`${withContent ? 'with' : 'without'} content: ${runs.join(', ')} bytes per item`);
  return runs[1] as number;
};
const plain = median(false);
const withContent = median(true);
report({
  bench: 'elo-hot-items-memory',
  items: SIZE,
  heap_bytes_per_item_without_content: plain,
  heap_bytes_per_item_with_content: withContent,
  heap_mb_per_10k_items_without_content: round((plain * 10_000) / 1_048_576, 2),
  heap_mb_per_10k_items_with_content: round((withContent * 10_000) / 1_048_576, 2),
});
