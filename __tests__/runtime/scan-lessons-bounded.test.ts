import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteRequest, UUID } from '@elizaos/core';
import { handleGetScanLessons } from '../../src/scan/surfaces/learning-routes';
import { scanLessonsProvider } from '../../src/scan/surfaces/scan-lessons-provider';
import { newestEvidenceFirst, type StoredScanLesson } from '../../src/scan/scan-lesson-metadata';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { countScanLessonsPage, type ScanLessonCursor } from '../../src/scan/scan-lesson-sql';
import { dbOf } from '../../src/shared/sql';
import { recordingResponse } from '../helpers/route-response';
import { chatMessage, startAgent, type TestAgent } from '../helpers/runtime';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { SCAN_LESSON_KIND } from '../../src/elo/elo-listeners';
import { RULE_BOOK_SERVICE } from '../../src/shared/service-names';

// The same 150 lessons in two agents: one holding at most 100 in memory (the least the setting
// allows), one holding them all. A week between lessons' evidence: a lesson let go is 95 weeks
// older than any held one, so its freshness (half-life 30 days) keeps it out of every prompt.
const LESSONS = 150;
const BOUND = 100;
const WEEK_MS = 7 * 86_400_000;
const BOOT_MS = 60_000;
type Body = Record<string, any>;

function lesson(i: number): StoredScanLesson {
  const l = syntheticScanLesson(i);
  const at = new Date(Date.UTC(2024, 0, 1) + i * WEEK_MS).toISOString();
  return { ...l, metadata: { ...l.metadata, last_seen: at, window_start: at, window_end: at, first_learned_at: at } };
}

async function store(agent: TestAgent): Promise<void> {
  for (let i = 0; i < LESSONS; i++) {
    const l = lesson(i);
    await agent.service.scanLessons.create(l.id, l.text, l.metadata, lexicalVector(l.text), Date.parse(l.metadata.last_seen));
  }
}

async function lessonsPage(agent: TestAgent, query: Record<string, string>): Promise<{ status: number; body: Body }> {
  const { res, sent } = recordingResponse();
  await handleGetScanLessons({ query, headers: {}, method: 'GET', path: '/self-improve/lessons' } as RouteRequest, res, agent.runtime);
  return { status: sent.status, body: sent.body as Body };
}

/** Every page of GET /lessons, `limit` at a time, following `next_after`. */
async function walk(agent: TestAgent, limit: number): Promise<{ ids: string[]; counts: number[]; pages: number }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const page = await lessonsPage(agent, { limit: String(limit), ...(after ? { after } : {}) });
    expect(page.status).toBe(200);
    ids.push(...page.body.lessons.map((l: Body) => l.id));
    counts.push(page.body.count);
    after = page.body.next_after;
    pages++;
  } while (after !== null);
  return { ids, counts, pages };
}

describe('scan lessons beyond SELF_IMPROVE_LESSONS_IN_MEMORY', () => {
  let bounded: TestAgent;
  let full: TestAgent;
  let dir: string;
  const startBounded = async () => {
    bounded = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LESSONS_IN_MEMORY: String(BOUND) } });
  };
  const all = Array.from({ length: LESSONS }, (_, i) => lesson(i)).sort(newestEvidenceFirst);
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-lessons-bounded-'));
    await startBounded();
    full = await startAgent();
    await store(bounded);
    await store(full);
  }, BOOT_MS);
  afterAll(async () => {
    await bounded.close();
    await full.close();
    await rm(dir, { recursive: true, force: true });
  }, BOOT_MS);

  test('the bounded agent holds at most the bound, the lessons with the newest evidence; the other holds all', () => {
    const held = bounded.service.scanLessons.index.size;
    expect(held).toBeLessThanOrEqual(BOUND);
    expect(held).toBeGreaterThanOrEqual(Math.floor(BOUND * 0.95));
    expect(bounded.service.listScanLessons().map((l) => l.id)).toEqual(all.slice(0, held).map((l) => l.id));
    expect(full.service.scanLessons.index.size).toBe(LESSONS);
  });

  test('what else holds lessons by id holds the lessons held: the ELO book’s content and the rule book’s promotion candidates forget those let go', async () => {
    const held = new Set(bounded.service.listScanLessons().map((l) => l.id as string));
    expect(held.size).toBeLessThan(LESSONS);
    const book = await eloBookOf(bounded.runtime);
    const inContent = all.filter((l) => book.content.get(SCAN_LESSON_KIND, l.id) !== undefined).map((l) => l.id as string);
    expect(new Set(inContent)).toEqual(held);
    // The rule book's candidates are internal state; read here to check they follow the same set.
    const ruleBook = bounded.runtime.getService(RULE_BOOK_SERVICE) as unknown as { state: { scanLessons: Map<string, unknown> } };
    expect(new Set(ruleBook.state.scanLessons.keys())).toEqual(held);
    const fullBook = await eloBookOf(full.runtime);
    expect(all.every((l) => fullBook.content.get(SCAN_LESSON_KIND, l.id) !== undefined)).toBe(true);
  });

  test('GET /lessons pages through every stored lesson, newest evidence first, in both agents', async () => {
    for (const agent of [bounded, full]) {
      const walked = await walk(agent, 7);
      expect(walked.ids).toEqual(all.map((l) => l.id));
      expect(walked.pages).toBe(Math.ceil(LESSONS / 7));
      expect(new Set(walked.counts)).toEqual(new Set([LESSONS]));
    }
  });

  test('GET /lessons: a lesson not held is listed in full, by ids too; a bad after is refused', async () => {
    const oldest = all[all.length - 1] as StoredScanLesson;
    expect(bounded.service.scanLessons.index.get(oldest.id)).toBeUndefined();
    const page = await lessonsPage(bounded, { ids: `${oldest.id},${all[0]?.id}` });
    expect(page.body.lessons.map((l: Body) => [l.id, l.text, l.last_seen])).toEqual([
      [all[0]?.id, all[0]?.text, all[0]?.metadata.last_seen],
      [oldest.id, oldest.text, oldest.metadata.last_seen],
    ]);
    expect(page.body.next_after).toBeNull();
    expect(page.body.count).toBe(LESSONS);
    const refused = await lessonsPage(bounded, { after: 'not-a-cursor!' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('after');
  });

  test('GET /lessons?sort=elo ranks the lessons held (its cost follows the bound), ties by id; one let go is ranked when named by ids', async () => {
    const oldest = all[all.length - 1] as StoredScanLesson;
    const held = bounded.service.listScanLessons().map((l) => l.id as string);
    expect(held).not.toContain(oldest.id);
    const heldOne = held[held.length - 1] as string;
    // The lesson let go rated highest (rank 1 of 2), a held one next (rank 2): both above the start of 1200.
    (await eloBookOf(bounded.runtime)).recordRetrieval({ tool: 'semantic_search', query: 'q', results: [{ kind: SCAN_LESSON_KIND, id: oldest.id, rank: 1 }, { kind: SCAN_LESSON_KIND, id: heldOne, rank: 2 }] });
    const top = await lessonsPage(bounded, { sort: 'elo', limit: '3' });
    expect(top.status).toBe(200);
    // The rated held lesson, then the unrated held lessons at 1200 by id.
    const unrated = held.filter((id) => id !== heldOne).sort();
    expect(top.body.lessons.map((l: Body) => l.id)).toEqual([heldOne, unrated[0], unrated[1]]);
    expect(top.body.lessons[0].elo).toBeGreaterThan(1200);
    expect(top.body.lessons.slice(1).map((l: Body) => l.elo)).toEqual([1200, 1200]);
    expect(top.body.next_after).toBeNull();
    expect(top.body.count).toBe(LESSONS);
    const named = await lessonsPage(bounded, { sort: 'elo', ids: `${heldOne},${oldest.id},${unrated[0]}` });
    expect(named.body.lessons.map((l: Body) => l.id)).toEqual([oldest.id, heldOne, unrated[0]]);
    expect(named.body.lessons[0].elo).toBeGreaterThan(named.body.lessons[1].elo);
    // The order is kept while nothing changed, and computed again once the book changes.
    // (the ratings shown are computed at each call: drift moves them by a hair)
    expect((await lessonsPage(bounded, { sort: 'elo', limit: '3' })).body.lessons.map((l: Body) => l.id)).toEqual(top.body.lessons.map((l: Body) => l.id));
    const risen = unrated[5] as string;
    const book = await eloBookOf(bounded.runtime);
    for (let i = 0; i < 3; i++) book.recordRetrieval({ tool: 'semantic_search', query: `q${i}`, results: [{ kind: SCAN_LESSON_KIND, id: risen, rank: 1 }] });
    const after = await lessonsPage(bounded, { sort: 'elo', limit: '3' });
    expect(after.body.lessons.map((l: Body) => l.id)).toEqual([risen, heldOne, unrated[0]]);
  });

  test('SCAN_LESSONS shows the same lessons in both agents; an unrelated message gets none in either', async () => {
    const texts = ['semgrep xss findings in billing, real or not?', 'what about codeql on payments-api, any false positive?', 'is this scanner finding about ssrf in auth-service real?'];
    for (const text of texts) {
      const [a, b] = [await chatMessage(bounded.runtime, text), await chatMessage(full.runtime, text)];
      const state = { values: {}, data: {}, text: '' };
      const [shownBounded, shownFull] = [await scanLessonsProvider.get(bounded.runtime, a, state), await scanLessonsProvider.get(full.runtime, b, state)];
      expect((shownFull.values?.scanLessonIds as string[]).length).toBeGreaterThan(0);
      expect(shownBounded.values?.scanLessonIds).toEqual(shownFull.values?.scanLessonIds);
      expect(shownBounded.text).toBe(shownFull.text as string);
    }
    const unrelated = 'what should we cook for dinner tonight?';
    for (const agent of [bounded, full]) {
      const shown = await scanLessonsProvider.get(agent.runtime, await chatMessage(agent.runtime, unrelated), { values: {}, data: {}, text: '' });
      expect(shown.values?.scanLessonIds).toEqual([]);
    }
  });

  test('dedupe sees a group whose lessons were let go: holdGroup reads them back', async () => {
    const oldest = all[all.length - 1] as StoredScanLesson;
    const group = oldest.metadata.group_id;
    expect(bounded.service.scanLessons.nearestInGroup(group, lexicalVector(oldest.text))).toBeNull();
    await bounded.service.scanLessons.holdGroup(group);
    const nearest = bounded.service.scanLessons.nearestInGroup(group, lexicalVector(oldest.text));
    expect(nearest?.item).toBe(oldest.id as UUID);
    expect(nearest?.similarity).toBeCloseTo(1, 6);
    expect((await bounded.service.counts()).lessons).toBe(LESSONS);
  });

  test('a restart reads back the lessons with the newest evidence, up to the bound', async () => {
    await bounded.close();
    await startBounded();
    expect(bounded.service.scanLessons.index.size).toBe(BOUND);
    expect(bounded.service.listScanLessons().map((l) => l.id)).toEqual(all.slice(0, BOUND).map((l) => l.id));
    // The lessons beyond the bound are counted at start-up (a page at a time), not held.
    expect(bounded.service.scanLessons.count()).toBe(LESSONS);
    expect((await walk(bounded, 100)).ids).toEqual(all.map((l) => l.id));
  }, BOOT_MS);

  test('countScanLessonsPage counts the lessons a page at a time in newest-evidence order, each page ending at the lesson a walk of pages ends at', async () => {
    const db = dbOf(bounded.runtime);
    const ends: string[] = [];
    let total = 0;
    for (let after: ScanLessonCursor | null = null; ; ) {
      const page = await countScanLessonsPage(db, bounded.runtime.agentId, { limit: 7, after });
      total += page.n;
      if (page.n < 7) {
        expect(page.last?.id ?? null).toBe(page.n === 0 ? null : (all[LESSONS - 1]?.id as string));
        break;
      }
      ends.push(page.last?.id as string);
      after = page.last;
    }
    expect(total).toBe(LESSONS);
    expect(ends).toEqual(all.filter((_, i) => i % 7 === 6).map((l) => l.id));
  });
});
