import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { eventCountOf } from '../../src/rules/model/promotion';
import { SOURCE_EVENT_IDS_KEPT } from '../../src/rules/model/rule-lessons';
import type { RuleLesson } from '../../src/rules/model/types';
import { ruleBookOf } from '../../src/rules/rule-book-service';
import { ruleEvents, ruleLessons } from '../../src/rules/tables';
import { dbOf, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { eventRow } from '../helpers/seed-events';

// One lesson of more events than its document keeps ids of, and one of a few: what a lesson keeps,
// what its events keep, and a database of the version before, whose lessons list every event.
const MANY = SOURCE_EVENT_IDS_KEPT + 50;
const rows = [
  ...Array.from({ length: MANY }, (_, i) => eventRow(i, { type: 'mistake', category: 'shell', tags: ['rm'], problem: 'a script deleted the wrong folder', solution: 'print the paths before deleting' })),
  ...Array.from({ length: 3 }, (_, i) => eventRow(MANY + i, { type: 'success', category: 'git', tags: ['merge'], problem: 'conflict markers were committed', solution: 'search the diff for conflict markers' })),
];

describe('a rule lesson keeps its newest event ids; each event keeps its lesson', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-provenance-'));
    agent = await startAgent({ dataDir: dir });
    await (await ruleBookOf(agent.runtime)).ingestEvents(rows, 'test');
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const lessonsByCategory = async () => new Map((await ruleBookOf(agent.runtime)).ruleLessons().map((l) => [l.category, l]));

  test('the lesson counts every event and keeps the newest ids; its events, read by lesson, are all of them', async () => {
    const shell = (await lessonsByCategory()).get('shell') as RuleLesson;
    expect([eventCountOf(shell), shell.eventConfirmations, shell.sourceEventIds.length]).toEqual([MANY, MANY, SOURCE_EVENT_IDS_KEPT]);
    const provenance = await (await ruleBookOf(agent.runtime)).ruleLessonEvents(shell.id);
    expect(provenance).toHaveLength(MANY);
    expect(provenance.every((e) => e.lessonId === shell.id && e.category === 'shell')).toBe(true);
    expect(provenance.slice(-SOURCE_EVENT_IDS_KEPT).map((e) => e.id)).toEqual(shell.sourceEventIds);
  });

  test('lessons stored by the version before (every id, an event:<id> key per event, events without a lesson) are adopted at the next start, once', async () => {
    const before = await lessonsByCategory();
    const db = dbOf(agent.runtime);
    const events = await queryRows<{ id: string; lesson_id: string }>(db, sql`SELECT id, lesson_id FROM ${ruleEvents} ORDER BY ts`);
    // Each lesson written back as the version before wrote it, and its events' lessons forgotten.
    for (const lesson of before.values()) {
      const ids = events.filter((e) => e.lesson_id === lesson.id).map((e) => e.id);
      const { eventConfirmations: _counted, ...legacy } = { ...lesson, sourceEventIds: ids, trustedConfirmations: ids.map((id) => `event:${id}`) };
      await db.execute(sql`UPDATE ${ruleLessons} SET doc = ${JSON.stringify(legacy)}::jsonb WHERE id = ${lesson.id}`);
    }
    await db.execute(sql`UPDATE ${ruleEvents} SET lesson_id = NULL`);
    await agent.close();

    agent = await startAgent({ dataDir: dir });
    expect(await lessonsByCategory()).toEqual(before);
    const after = await queryRows<{ id: string; lesson_id: string }>(dbOf(agent.runtime), sql`SELECT id, lesson_id FROM ${ruleEvents} ORDER BY ts`);
    expect(after).toEqual(events);
    const stored = await queryRows<{ id: string; ids: number; counted: number }>(
      dbOf(agent.runtime),
      sql`SELECT id, jsonb_array_length(doc->'sourceEventIds')::int AS ids, (doc->>'eventConfirmations')::int AS counted FROM ${ruleLessons} ORDER BY id`,
    );
    expect(stored.map((r) => [r.ids, r.counted])).toEqual([...before.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((l) => [l.sourceEventIds.length, eventCountOf(l)]));

    // Nothing is left to adopt: a start finds no lesson of the version before.
    expect((await (await ruleBookOf(agent.runtime)).store.adoptLegacyLessons()).items).toEqual([]);
  }, 120_000);
});
