// In a book larger than SELF_IMPROVE_ELO_HOT_ITEMS, the ratings of the lessons the agent holds are
// read ahead after start (and again at each tick) and stay in memory whatever else is used: a
// prompt's ranking then finds every held lesson's rating in memory, or knows it never stored,
// without a statement of its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { SCAN_LESSON_KIND } from '../../src/elo/elo-listeners';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { dbOf } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';

const SETTINGS = { SELF_IMPROVE_ELO_HOT_ITEMS: '10' };
const LESSONS = 30;
/** Lessons 0..4 have a stored rating; the others were never rated. */
const RATED = 5;
const FILES = 40;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const lessonRefs = Array.from({ length: LESSONS }, (_, i) => ({ kind: SCAN_LESSON_KIND, id: syntheticScanLesson(i).id as string }));

/** Counts the statements the runtime's database runs while `work` runs. */
async function statementsDuring(agent: TestAgent, work: () => Promise<unknown>): Promise<number> {
  const db = dbOf(agent.runtime);
  const execute = db.execute.bind(db);
  let statements = 0;
  db.execute = ((query: Parameters<typeof execute>[0]) => {
    statements++;
    return execute(query);
  }) as typeof db.execute;
  try {
    await work();
  } finally {
    db.execute = execute;
  }
  return statements;
}

describe('held lessons’ ratings are read ahead', () => {
  let dir: string;
  const storedElo = new Map<string, number>();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'elo-at-hand-'));
    const agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    try {
      for (let i = 0; i < LESSONS; i++) {
        const l = syntheticScanLesson(i);
        await agent.service.scanLessons.create(l.id, l.text, l.metadata, lexicalVector(l.text), T0 + i);
      }
      const book = await eloBookOf(agent.runtime);
      for (let i = 0; i < RATED; i++) book.recordAccess(SCAN_LESSON_KIND, lessonRefs[i]?.id as string, {}, T0 + i);
      // More items than the bound: the book is not whole in memory, so a lookup of an item not in memory reads.
      for (let i = 0; i < FILES; i++) book.recordAccess('file', `src/f${i}.ts`, {}, T0 + 1_000 + i);
      await book.flush();
      for (let i = 0; i < RATED; i++) storedElo.set(lessonRefs[i]?.id as string, (await book.ratingOf(SCAN_LESSON_KIND, lessonRefs[i]?.id as string))?.elo as number);
    } finally {
      await agent.close();
    }
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('after start, every held lesson’s rating is answered without a statement: stored ones as stored, the others at the start rating', async () => {
    const agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    try {
      const book = await eloBookOf(agent.runtime);
      await book.ratingsReadAhead();
      let eloOf: (kind: string, id: string) => number = () => Number.NaN;
      const statements = await statementsDuring(agent, async () => {
        eloOf = await book.currentElos(lessonRefs, T0 + 10_000);
      });
      expect(statements).toBe(0);
      const startElo = book.currentElo(SCAN_LESSON_KIND, 'a-lesson-never-rated', T0 + 10_000);
      expect(storedElo.size).toBe(RATED);
      for (const [id, elo] of storedElo) {
        expect(elo).not.toBe(startElo);
        expect(eloOf(SCAN_LESSON_KIND, id)).toBeCloseTo(elo, 3);
      }
      for (const r of lessonRefs.slice(RATED)) expect(eloOf(r.kind, r.id)).toBe(startElo);
      // Without the read-ahead, the same lookup of an item not in memory runs a statement.
      expect(await statementsDuring(agent, () => book.currentElos([{ kind: 'file', id: 'src/never-seen.ts' }], T0 + 10_000))).toBe(1);
      // Other items used since, four times the bound of them, do not push the held lessons' ratings out.
      for (let i = 0; i < FILES; i++) book.recordAccess('file', `src/later${i}.ts`, {}, T0 + 20_000 + i);
      await book.flush();
      expect(book.hotCount).toBeLessThanOrEqual(Number(SETTINGS.SELF_IMPROVE_ELO_HOT_ITEMS) + LESSONS);
      const later = await statementsDuring(agent, async () => {
        eloOf = await book.currentElos(lessonRefs, T0 + 30_000);
      });
      expect(later).toBe(0);
      for (const [id, elo] of storedElo) expect(eloOf(SCAN_LESSON_KIND, id)).toBeCloseTo(elo, 3);
    } finally {
      await agent.close();
    }
  }, 120_000);
});
