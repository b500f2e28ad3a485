import '../src/cli/quiet';
import type { Memory, UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { stableId } from '../src/shared/ids';
import selfImprovePlugin from '../src/index';
import { highEloContextProvider } from '../src/elo/surfaces/high-elo-context-provider';
import { bootRuntime } from '../src/cli/boot';
import { eloBookOf } from '../src/elo/elo-book-service';
import { eloReport } from '../src/elo/elo-report';
import { parseEloLogs } from '../src/elo/model/log-entries';
import { eloStats } from '../src/elo/model/stats';
import { chatMessage } from '../__tests__/helpers/runtime';
import { syntheticScanLesson } from '../__tests__/helpers/synthetic-scan-lessons';
import { note, percentile, report, round, withTempDir } from './lib';
import { textOf } from './synthetic-text';

/**
 * Issue 16 for the ELO book: the report (`GET /self-improve/elo`, `elo stats`) and HIGH_ELO_CONTEXT
 * as the book grows. One book (PGlite on disk) with 13,500 scan lessons as content (as at 1M
 * outcomes) and items reported with text, grown step by step (default 10k, then 100k; `bun
 * bench/elo-report.ts 10000,100000,200000 [hotItems]`); at each size, in the same run:
 * - the report from counted buckets (`eloReport`, what the route answers; not cached: `nowMs` given),
 *   at the time the buckets were last moved (as the book's tick keeps them), and its figures 90
 *   days later without moving them (most items have left their bucket: the worst case);
 * - the counted figures alone (what reads items; the report also reads 3 × 5,000 log entries);
 * - the report as it was computed before (every item read, `eloStats` over them), and the read of
 *   every item alone, for the ratio;
 * - one HIGH_ELO_CONTEXT get per new message (the content index searched, ratings blended);
 * - the content index's size and the items in memory (bounded by SELF_IMPROVE_ELO_HOT_ITEMS).
 * Items are used over a year (one a few minutes apart), so most have drifted by the time of the report.
 */
const SIZES = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const HOT_ITEMS = process.argv[3];
const LESSONS = 13_500;
const REPORT_CALLS = 20;
const PROVIDER_CALLS = 300;
const PATHS = ['LAW/CANON', 'CAPABILITY/SKILLS', 'THOUGHT/LAB', 'src/lib', 'MEMORY/ARCHIVE'];
const T0 = Date.parse('2026-01-01T00:00:00Z');
const STEP_MS = 5 * 60_000;
const DAY = 86_400_000;

async function times(calls: number, call: (i: number) => Promise<unknown>): Promise<{ p50_ms: number; p99_ms: number }> {
  const out: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call(i);
    out.push(performance.now() - start);
    await Bun.sleep(0);
  }
  return { p50_ms: round(percentile(out, 50)), p99_ms: round(percentile(out, 99)) };
}

routeConsoleToStderr();
await withTempDir('self-improve-bench-elo-report-', async (dataDir) => {
  const settings: Record<string, string> = HOT_ITEMS ? { SELF_IMPROVE_ELO_HOT_ITEMS: HOT_ITEMS } : {};
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings });
  try {
    const book = await eloBookOf(runtime);
    book.registerContent(Array.from({ length: LESSONS }, (_, i) => syntheticScanLesson(i)).map((l) => ({ kind: 'lesson', id: l.id, title: `${l.metadata.category} lesson`, text: l.text })));
    const messages: Memory[] = [];
    for (let i = 0; i < PROVIDER_CALLS; i++) messages.push(await chatMessage(runtime, `semgrep found sql-injection in payments-api-${i} handler ${i}, is it ${textOf(2_000_000 + i, 6)}?`));
    const steps: Record<string, unknown>[] = [];
    let loaded = 0;
    for (const size of SIZES) {
      for (; loaded < size; loaded++) {
        const i = loaded;
        const at = T0 + i * STEP_MS;
        book.recordAccess(i % 3 === 0 ? 'symbol' : 'file', `${PATHS[i % PATHS.length]}/doc-${i}.md`, { title: `doc ${i}`, text: `${textOf(i, 30)}.` }, at);
        if (i % 4 === 0) book.recordRetrieval({ tool: 'search', query: `q ${i}`, results: [{ kind: 'file', id: `${PATHS[(i * 7) % PATHS.length]}/doc-${(i * 7) % (i + 1)}.md`, rank: 1 + (i % 12) }] }, at + 1);
        if (i % 500 === 499) await book.flush();
        if (i % 20_000 === 19_999) note(`loaded ${i + 1} items`);
      }
      await book.flush();
      const last = T0 + (size - 1) * STEP_MS + 1;
      // Buckets moved as the book's tick would have, up to the last use (a release without counted buckets has nothing to move: the bench runs there too).
      await (book as { advanceBuckets?: (nowMs: number, batches: number) => Promise<void> }).advanceBuckets?.(last, Number.POSITIVE_INFINITY);
      note(`measuring at ${size} items`);
      // As the route: a report of now, the book's tick having moved the buckets due (here: up to the last use).
      const counted = await times(REPORT_CALLS, () => eloReport(book, { nowMs: last }));
      const countedFigures = (nowMs: number) => (book as { countedFigures?: (n: number, k: number, w: number, r: []) => Promise<unknown> }).countedFigures?.(nowMs, 10, 100, []) ?? Promise.resolve();
      const figures = await times(REPORT_CALLS, () => countedFigures(last));
      // A report 90 days after the buckets were last moved: most items have left their bucket and are read one by one.
      const figuresLater = await times(3, () => countedFigures(last + 90 * DAY));
      const ratingsOnly = await times(3, () => book.ratings(last));
      const everyItem = await times(3, async () => {
        const nowMs = last;
        const { logs } = parseEloLogs({ updates: await book.updateLogEntries(5_000), searches: await book.searchLogEntries(5_000), sessions: await book.sessionLogEntries(5_000) });
        return eloStats({ items: await book.ratings(nowMs), ...logs, k: 10, nowMs });
      });
      const state = { values: {}, data: {}, text: '' };
      for (const m of messages.slice(0, 20)) await highEloContextProvider.get(runtime, { ...m, id: stableId('warm', String(size), String(m.id)) as UUID }, state);
      const provider = await times(PROVIDER_CALLS, (i) => highEloContextProvider.get(runtime, { ...(messages[i] as Memory), id: stableId('get', String(size), String(i)) as UUID }, state));
      const step = {
        bench: 'elo-report-step',
        items: size,
        lessons: LESSONS,
        report_p50_ms: counted.p50_ms,
        report_p99_ms: counted.p99_ms,
        counted_figures_p99_ms: figures.p99_ms,
        counted_figures_90_days_unmoved_p50_ms: figuresLater.p50_ms,
        every_item_read_p99_ms: ratingsOnly.p99_ms,
        report_every_item_p50_ms: everyItem.p50_ms,
        report_every_item_p99_ms: everyItem.p99_ms,
        high_elo_context_p50_ms: provider.p50_ms,
        high_elo_context_p99_ms: provider.p99_ms,
        content_index_items: book.content.size,
        items_in_memory: book.hotCount,
        heap_mb: Math.round(process.memoryUsage().heapUsed / 1_048_576),
      };
      steps.push(step);
      report(step);
    }
    const first = steps[0] as Record<string, number>;
    const lastStep = steps[steps.length - 1] as Record<string, number>;
    const ratio = (key: string) => round((lastStep[key] as number) / (first[key] as number), 2);
    report({
      bench: 'elo-report',
      from_items: first.items,
      to_items: lastStep.items,
      report_p99_ratio: ratio('report_p99_ms'),
      report_every_item_p99_ratio: ratio('report_every_item_p99_ms'),
      counted_figures_p99_ratio: ratio('counted_figures_p99_ms'),
      every_item_read_p99_ratio: ratio('every_item_read_p99_ms'),
      high_elo_context_p99_ratio: ratio('high_elo_context_p99_ms'),
      goals: {
        report_p99_within_2x: ratio('report_p99_ms') <= 2,
        report_p99_under_50_ms: (lastStep.report_p99_ms as number) < 50,
        high_elo_context_p99_within_2x: ratio('high_elo_context_p99_ms') <= 2,
        high_elo_context_p99_under_2_ms: (lastStep.high_elo_context_p99_ms as number) < 2,
      },
    });
  } finally {
    await close();
  }
});
