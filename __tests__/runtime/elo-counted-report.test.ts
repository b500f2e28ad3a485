import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { parseEloLogs } from '../../src/elo/model/log-entries';
import { eloStats } from '../../src/elo/model/stats';
import { metricItems } from '../../src/elo/model/success-metrics';
import { SEED_INITIAL_TIERS } from '../../src/elo/model/tier-map';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import { eloReport } from '../../src/elo/elo-report';
import { dbOf, epochMs, queryRows } from '../../src/shared/sql';
import { seededRandom } from '../helpers/random';
import { startAgent, type TestAgent } from '../helpers/runtime';

// The report's figures over every item come from counted buckets and an index (`countedFigures`);
// here they are compared with `eloStats` over every item's rating (`book.ratings`), the definition,
// on a book with items in every starting tier, ratings pushed up and down, items drifting for
// days to years, items exactly at their start (ties), changes not yet written, at times before,
// at and long after the last use, before and after the buckets are moved, and after a restart
// with another drift rate (everything counted again).

const DAY = 86_400_000;
const T0 = Date.parse('2026-06-01T00:00:00Z');
const TIERS = `${SEED_INITIAL_TIERS};symbol:junk/**=VERY_LOW`;
const PATHS = ['LAW/CANON', 'CAPABILITY/SKILLS', 'THOUGHT/LAB', 'src/lib', 'MEMORY/ARCHIVE'];
const ITEMS = 600;


const refOf = (i: number) => (i % 7 === 0 ? { kind: 'symbol', id: `junk/s${i}` } : i % 5 === 0 ? { kind: 'lesson', id: `L${i}` } : { kind: 'file', id: `${PATHS[Math.floor(i / 5) % PATHS.length]}/doc-${i}.md` });

/** Uses, retrievals (ranks 1 to 20: beyond 10 no boost, so some items stay at their start) and outcomes over a year. */
function drive(book: EloBookService, rounds: number, seed: number, from: number): number {
  const next = seededRandom(seed);
  let at = from;
  for (let round = 0; round < rounds; round++) {
    at += Math.floor(next() * 2 * DAY);
    const pick = () => refOf(Math.floor(next() * ITEMS));
    const r = pick();
    book.recordAccess(r.kind, r.id, { title: `${r.id} title` }, at);
    const shown = Array.from({ length: 20 }, (_, i) => ({ ...pick(), rank: i + 1 }));
    const unique = [...new Map(shown.map((s) => [`${s.kind}:${s.id}`, s])).values()].map((s, i) => ({ ...s, rank: i + 1 }));
    book.recordRetrieval({ tool: 'search', query: `round ${round}`, sessionId: `S${round % 9}`, results: unique, exposeUnder: [`message:${seed}:${round}`] }, at + 1);
    book.recordOutcome([pick(), pick(), pick()], round % 3 === 0 ? 0 : 1, 'judged', at + 2);
    if (round % 4 === 0) book.settle(`message:${seed}:${round}`, round % 8 === 0 ? -1 : 1, 'settled', { atMs: at + 3 });
    if (round % 10 === 9) book.endSession(`S${round % 9}`, at + 4);
  }
  return at;
}

/** The report as defined: `eloStats` over every item's rating at `nowMs` and the same log sample. */
async function reference(book: EloBookService, nowMs: number, k: number, bucketWidth?: number) {
  const limit = 5_000;
  const { logs, skipped } = parseEloLogs({ updates: await book.updateLogEntries(limit), searches: await book.searchLogEntries(limit), sessions: await book.sessionLogEntries(limit) });
  return { ...eloStats({ items: await book.ratings(nowMs), ...logs, k, nowMs, ...(bucketWidth === undefined ? {} : { bucketWidth }) }), skipped };
}

async function expectSameReport(book: EloBookService, nowMs: number, k: number, bucketWidth?: number): Promise<void> {
  const options = { nowMs, k, ...(bucketWidth === undefined ? {} : { bucketWidth }) };
  expect(await eloReport(book, options)).toEqual(await reference(book, nowMs, k, bucketWidth));
}

describe('the ELO report from counted buckets equals eloStats over every item', () => {
  let dir: string;
  let agent: TestAgent;
  let book: EloBookService;
  let last = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-counted-'));
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_ELO_INITIAL_TIERS: TIERS } });
    book = await eloBookOf(agent.runtime);
    last = drive(book, 250, 1, T0);
    // Items only ever retrieved below rank 10 stay at their start: a kind of nothing but ties, ids whose
    // code-point order is not a dictionary's.
    const ties = ['adr-b', 'adr-B', 'adr-_', 'adr-a', 'adr-A', 'adr-10', 'adr-9', 'adr-é', 'adr-Z'];
    book.recordRetrieval({ tool: 'search', query: 'ties', results: ties.map((id, i) => ({ kind: 'adr', id, rank: 11 + i })) }, last);
    await book.flush();
    // Changes after the last write stay in memory until the report writes them.
    last = drive(book, 20, 2, last);
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the book is large and varied, and the counted figures are used (not every item read)', async () => {
    const ratings = await book.ratings(last);
    expect(ratings.length).toBeGreaterThan(400);
    expect(new Set(ratings.map((r) => r.kind))).toEqual(new Set(['adr', 'file', 'lesson', 'symbol']));
    expect(ratings.some((r) => r.elo === r.startElo)).toBe(true);
    expect(new Set(ratings.map((r) => r.startElo))).toEqual(new Set([400, 800, 1200, 1600]));
    const figures = await book.countedFigures(last, 10, 100, []);
    expect(figures?.distribution.overall.count).toBe(ratings.length);
  });

  test('at the last use, a day and a month later, a year later, eight years later (ratings round to their start), and before most uses', async () => {
    for (const nowMs of [last, last + DAY, last + 30 * DAY, last + 365 * DAY, last + 3_000 * DAY, T0 + 100 * DAY]) {
      await expectSameReport(book, nowMs, 3);
    }
  });

  test('top k from 1 to 100, and histogram widths that are (200, 400) or are not (50: every item read) multiples of the counted 100', async () => {
    for (const k of [1, 10, 100]) await expectSameReport(book, last + 90 * DAY, k);
    for (const width of [200, 400, 50]) await expectSameReport(book, last + 90 * DAY, 5, width);
    expect(await book.countedFigures(last, 5, 50, [])).toBeUndefined();
  });

  test('after the buckets are moved a year on, the report is the same then and at other times', async () => {
    const counted = async (nowMs: number) => {
      const figures = await book.countedFigures(nowMs, 3, 100, []);
      return { distribution: figures?.distribution, top: figures?.top };
    };
    const before = await counted(last + 365 * DAY);
    expect(before.distribution?.overall.count).toBeGreaterThan(400);
    await book.advanceBuckets(last + 365 * DAY, Number.POSITIVE_INFINITY);
    expect(await counted(last + 365 * DAY)).toEqual(before);
    for (const nowMs of [last + 365 * DAY, last + 400 * DAY, last + 10 * DAY, last + 5_000 * DAY]) await expectSameReport(book, nowMs, 4);
  });

  test('the moves keep swept_until: no span ends before it, uses from before it are moved by the next move, and the report is the same', async () => {
    // What the due read relies on: it starts at swept_until and walks no index entry older than that.
    const sweep = async () => {
      const rows = await queryRows<{ swept_ms: number | null; before: number; items: number }>(
        dbOf(agent.runtime),
        sql`SELECT (extract(epoch from b.swept_until) * 1000)::float8 AS swept_ms,
                   (SELECT count(*)::int FROM self_improve.elo e WHERE e.agent_id = b.agent_id AND e.bucket_until < b.swept_until) AS before,
                   (SELECT count(*)::int FROM self_improve.elo e WHERE e.agent_id = b.agent_id) AS items
            FROM self_improve.elo_bucket_basis b WHERE b.agent_id = ${agent.runtime.agentId}::uuid`,
      );
      return { swept: rows[0]?.swept_ms === null ? null : Number(rows[0]?.swept_ms), before: Number(rows[0]?.before), items: Number(rows[0]?.items) };
    };
    const floor = last + 365 * DAY;
    expect(await sweep()).toMatchObject({ swept: floor, before: 0 });
    // Items judged well again and again a year before the floor: far above their start, a 1%-a-day
    // drift takes them into another bucket within the year, so their spans end before the floor and
    // are kept empty at it.
    const old = [refOf(10), refOf(14), refOf(20)];
    for (let n = 0; n < 40; n++) book.recordOutcome(old, 1, 'judged', last + DAY + n);
    await book.flush();
    const rated = await book.ratings(last + DAY + 40);
    expect(old.map((r) => rated.find((i) => i.kind === r.kind && i.id === r.id)).map((i) => (i ? i.elo - i.startElo > 150 : i))).toEqual([true, true, true]);
    expect(await sweep()).toMatchObject({ swept: floor, before: 0 });
    const spansOfOld = async () => {
      const rows = await queryRows<{ since_ms: number; until_ms: number }>(
        dbOf(agent.runtime),
        sql`SELECT ${epochMs('bucket_since')} AS since_ms, ${epochMs('bucket_until')} AS until_ms FROM self_improve.elo
            WHERE agent_id = ${agent.runtime.agentId}::uuid AND item_id IN (${sql.join(old.map((r) => sql`${r.id}`), sql`, `)})`,
      );
      return rows.map((r) => [Number(r.since_ms), Number(r.until_ms)]);
    };
    expect(await spansOfOld()).toEqual(old.map(() => [floor, floor]));
    for (const nowMs of [last + 2 * DAY, floor, floor + DAY]) await expectSameReport(book, nowMs, 4);
    // A move a day after the floor takes them (and whatever else is due), and raises the floor.
    await book.advanceBuckets(floor + DAY, Number.POSITIVE_INFINITY);
    const after = await sweep();
    expect(after).toMatchObject({ swept: floor + DAY, before: 0 });
    expect(after.items).toBeGreaterThan(400);
    expect((await spansOfOld()).map(([since]) => since)).toEqual(old.map(() => floor + DAY));
    for (const nowMs of [floor + DAY, last + 10 * DAY, floor + 300 * DAY]) await expectSameReport(book, nowMs, 4);
  });

  test('more changes after the move, then a restart with another drift rate: every item is counted again, the same report', async () => {
    last = drive(book, 40, 3, last + 2 * DAY);
    await expectSameReport(book, last + 7 * DAY, 5);
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_ELO_INITIAL_TIERS: TIERS, SELF_IMPROVE_ELO_DRIFT_PER_DAY: '0.05' } });
    book = await eloBookOf(agent.runtime);
    for (const nowMs of [last, last + 7 * DAY, last + 200 * DAY]) await expectSameReport(book, nowMs, 5);
    await book.advanceBuckets(last + 20 * DAY, Number.POSITIVE_INFINITY);
    for (const nowMs of [last + 20 * DAY, last + 200 * DAY]) await expectSameReport(book, nowMs, 5);
  });

  test('the Success Metrics judge the items the logs name by their tier now, read by key', async () => {
    const nowMs = last + 60 * DAY;
    const report = await eloReport(book, { nowMs });
    const { logs } = parseEloLogs({ updates: [], searches: await book.searchLogEntries(5_000), sessions: await book.sessionLogEntries(5_000) });
    expect(metricItems(logs.searches, logs.sessions).length).toBeGreaterThan(0);
    expect(report.success_metrics.search_efficiency.n).toBeGreaterThan(0);
    expect(report.success_metrics).toEqual((await reference(book, nowMs, 10)).success_metrics);
  });
});
