import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getTableName, sql } from 'drizzle-orm';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import { eloReport } from '../../src/elo/elo-report';
import { eloLog } from '../../src/elo/tables';
import { qualifiedName } from '../../src/shared/plugin-schema';
import { dbOf } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

// The ELO book with SELF_IMPROVE_ELO_HOT_ITEMS = 50 and 300 items, next to one with the default
// bound (everything in memory): the same updates give the same ratings and the same report.

const BOUND = 50;
const ITEMS = 300;
const DAY = 86_400_000;
const T0 = Date.parse('2026-12-01T00:00:00Z');
const idOf = (i: number) => `src/f${i}.ts`;
const ref = (i: number) => ({ kind: 'file', id: idOf(i) });
/** A deterministic spread of item numbers: the i-th of a round. */
const pick = (round: number, i: number) => (round * 37 + i * 53) % ITEMS;

/** The same sequence of updates, whatever the book holds in memory; `check` runs after each written batch. */
async function drive(book: EloBookService, check: () => void): Promise<void> {
  for (let i = 0; i < ITEMS; i++) {
    book.recordAccess('file', idOf(i), { title: `file ${i}`, ...(i % 3 === 0 ? { text: `module ${i} handles payments and retries` } : {}) }, T0 + i);
    if (i % 100 === 99) {
      await book.flush();
      check();
    }
  }
  for (let round = 0; round < 12; round++) {
    const at = T0 + (round + 1) * 3 * DAY;
    const shown = Array.from({ length: 12 }, (_, i) => ({ ...ref(pick(round, i)), rank: i + 1 }));
    book.recordRetrieval({ tool: 'search', query: `round ${round}`, results: shown, exposeUnder: [`message:${round}`] }, at);
    book.recordOutcome(Array.from({ length: 50 }, (_, i) => ref(pick(round + 100, i))), round % 2, `round_${round}`, at + 1);
    book.settle(`message:${round}`, round % 3 === 0 ? -1 : 1, 'judged', { atMs: at + 2 });
    book.recordAccess('file', idOf(pick(round, 99)), {}, at + 3);
    if (round % 4 === 3) {
      await book.flush();
      check();
    }
  }
  await book.flush();
  check();
}

async function allRatings(book: EloBookService): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < ITEMS; i++) out.push(await book.ratingOf('file', idOf(i)));
  return out;
}

describe('the ELO book holds at most SELF_IMPROVE_ELO_HOT_ITEMS items in memory', () => {
  let dir: string;
  let small: TestAgent;
  let large: TestAgent;
  let smallBook: EloBookService;
  let largeBook: EloBookService;
  const seen: number[] = [];
  const startSmall = async () => {
    small = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_ELO_HOT_ITEMS: String(BOUND) } });
    smallBook = await eloBookOf(small.runtime);
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-hot-'));
    await startSmall();
    large = await startAgent();
    largeBook = await eloBookOf(large.runtime);
    await drive(largeBook, () => undefined);
    await drive(smallBook, () => seen.push(smallBook.hotCount));
  });
  afterAll(async () => {
    await small.close();
    await large.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('memory holds at most the bound once changes are written; the large book holds every item', () => {
    expect(seen.length).toBeGreaterThan(5);
    for (const count of seen) expect(count).toBeLessThanOrEqual(BOUND);
    expect(largeBook.hotCount).toBe(ITEMS);
  });

  test('every rating equals the one the book with everything in memory has', async () => {
    const expected = await allRatings(largeBook);
    expect(expected.every((r) => r !== undefined)).toBe(true);
    expect(await allRatings(smallBook)).toEqual(expected);
    expect(smallBook.hotCount).toBeLessThanOrEqual(BOUND);
  });

  test('ratings in prompts (currentElos), the report, its leaderboard and counts are the same', async () => {
    const nowMs = T0 + 60 * DAY;
    const refs = Array.from({ length: ITEMS }, (_, i) => ref(i));
    const [smallElo, largeElo] = [await smallBook.currentElos(refs, nowMs), await largeBook.currentElos(refs, nowMs)];
    expect(refs.map((r) => smallElo(r.kind, r.id))).toEqual(refs.map((r) => largeElo(r.kind, r.id)));
    const { as_of: _a, ...smallReport } = await eloReport(smallBook, { k: 20, nowMs });
    const { as_of: _b, ...largeReport } = await eloReport(largeBook, { k: 20, nowMs });
    expect(smallReport.distribution.overall.count).toBe(ITEMS);
    expect(smallReport.top.file).toHaveLength(20);
    expect(smallReport).toEqual(largeReport);
    expect((await smallBook.ratings(nowMs)).length).toBe(ITEMS);
  });

  test('content reported with items is a HIGH_ELO_CONTEXT candidate while the item is in memory: the content index holds at most the bound', async () => {
    const found = (book: EloBookService) => book.searchContent('payments retries', 400).map((m) => m.item.id);
    expect(found(largeBook)).toHaveLength(ITEMS / 3);
    const candidates = found(smallBook);
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.every((id) => smallBook.rating('file', id) !== undefined)).toBe(true);
    expect(smallBook.content.size).toBeLessThanOrEqual(BOUND);
    // An item read back into memory brings its content back.
    const away = Array.from({ length: ITEMS / 3 }, (_, i) => idOf(3 * i)).find((id) => smallBook.rating('file', id) === undefined) as string;
    expect(away).toBeDefined();
    expect(found(smallBook)).not.toContain(away);
    await smallBook.ratingOf('file', away);
    expect(found(smallBook)).toContain(away);
  });

  test('a restart reads at most the bound, and answers for every item as before', async () => {
    const before = await allRatings(smallBook);
    await small.close();
    await startSmall();
    expect(smallBook.hotCount).toBe(BOUND);
    expect(await allRatings(smallBook)).toEqual(before);
    expect(smallBook.hotCount).toBeLessThanOrEqual(BOUND);
  });

  test('a failed write loses nothing: changed items stay in memory until written, then the bound holds again', async () => {
    const db = dbOf(small.runtime);
    const cold = Array.from({ length: 100 }, (_, i) => ref(i));
    const at = T0 + 90 * DAY;
    await db.execute(sql.raw(`ALTER TABLE ${qualifiedName(eloLog)} RENAME TO ${getTableName(eloLog)}_away`));
    try {
      for (const book of [smallBook, largeBook]) book.recordOutcome(cold, 1, 'after_failure', at);
      await smallBook.flush();
      expect(smallBook.pendingChanges).toBeGreaterThan(0);
      // The 100 changed items are pinned: more than the bound, none evicted.
      expect(smallBook.hotCount).toBeGreaterThanOrEqual(100);
      for (const r of cold) expect(smallBook.rating(r.kind, r.id)).toEqual(largeBook.rating(r.kind, r.id));
    } finally {
      await db.execute(sql.raw(`ALTER TABLE ${qualifiedName(eloLog)}_away RENAME TO ${getTableName(eloLog)}`));
    }
    await smallBook.flush();
    expect(smallBook.pendingChanges).toBe(0);
    expect(smallBook.hotCount).toBeLessThanOrEqual(BOUND);
    await largeBook.flush();
    expect(await allRatings(smallBook)).toEqual(await allRatings(largeBook));
    const [last] = await smallBook.updateLogEntries(1);
    expect(last).toMatchObject({ entity_id: idOf(99), reason: 'after_failure' });
  });
});
