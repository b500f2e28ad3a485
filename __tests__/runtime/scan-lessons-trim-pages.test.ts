import { afterAll, beforeAll, expect, test } from 'bun:test';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { eventsOf } from '../../src/shared/events';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { turnCounter } from '../helpers/turn-counter';

// Trimming the held lessons to 95% of SELF_IMPROVE_LESSONS_IN_MEMORY lets go of 5% of the bound at
// once; each one let go is news the ELO book and the rule book act on. It goes 50 at a time with a
// turn of the event loop between, so no reply waits for all of them.
const BOUND = 1_100;
const WEEK_MS = 7 * 86_400_000;
let agent: TestAgent;

beforeAll(async () => {
  agent = await startAgent({ settings: { SELF_IMPROVE_LESSONS_IN_MEMORY: String(BOUND) } });
  for (let i = 0; i < BOUND; i++) {
    const l = syntheticScanLesson(i);
    const at = new Date(Date.UTC(2024, 0, 1) + i * WEEK_MS).toISOString();
    await agent.service.scanLessons.create(l.id, l.text, { ...l.metadata, last_seen: at, window_start: at, window_end: at, first_learned_at: at }, lexicalVector(l.text), Date.parse(at));
  }
}, 120_000);
afterAll(async () => {
  await agent.close();
});

test('the lesson over the bound lets go of 56 lessons, at most 50 between two turns of the event loop', async () => {
  expect(agent.service.scanLessons.index.size).toBe(BOUND);
  // Counts the turns of the event loop while the lesson over the bound is stored.
  const turns = turnCounter();
  const letGoAt: number[] = [];
  const off = eventsOf(agent.runtime).on('scanLessonsLetGo', ({ ids }) => {
    for (const _ of ids) letGoAt.push(turns.turn);
  });
  try {
    const l = syntheticScanLesson(BOUND);
    const at = new Date(Date.UTC(2024, 0, 1) + BOUND * WEEK_MS).toISOString();
    await agent.service.scanLessons.create(l.id, l.text, { ...l.metadata, last_seen: at, window_start: at, window_end: at, first_learned_at: at }, lexicalVector(l.text), Date.parse(at));
  } finally {
    turns.stop();
    off();
  }
  expect(letGoAt).toHaveLength(BOUND + 1 - Math.floor(BOUND * 0.95));
  const perTurn = new Map<number, number>();
  for (const t of letGoAt) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  expect([...perTurn.values()]).toEqual([50, 6]);
  expect(agent.service.scanLessons.index.size).toBe(Math.floor(BOUND * 0.95));
});
