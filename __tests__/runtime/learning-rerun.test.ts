// A learning pass that fails part-way (after a lesson was written, before its outcomes were marked
// learned) is re-run: lessons end up exactly as after a clean pass. Reinforcement counts only
// evidence that was newly linked, so a re-run never inflates the count that promotes scan lessons
// to rules.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

const AS_OF = Date.parse('2026-12-31T00:00:00Z');
/** Three groups, 60 outcomes each, one every 8 hours: three 7-day windows per group, so lessons are reinforced. */
const ROWS = [0, 1, 2].flatMap((g) => makeRows({ n: 60, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: `cat${g}`, keyPrefix: `g${g}`, stepMinutes: 8 * 60 }));
const SETTINGS = { SELF_IMPROVE_LESSON_MODEL: 'off' };

const lessonState = (agent: TestAgent) =>
  Object.fromEntries(agent.service.listScanLessons().map((l) => [l.id, { reinforcements: l.metadata.reinforcements, evidence: l.metadata.evidence_count, sample: l.metadata.sample_size }]));

describe('re-running a learning pass that failed part-way', () => {
  let clean: ReturnType<typeof lessonState>;
  beforeAll(async () => {
    const agent = await startAgent({ settings: SETTINGS });
    await agent.service.ingest(ROWS);
    expect(await agent.service.learnPending({ asOf: AS_OF })).toMatchObject({ groups: 3, lessons_created: 3, lessons_reinforced: 6, failed_groups: [] });
    clean = lessonState(agent);
    await agent.close();
  }, 60_000);

  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ settings: SETTINGS });
  });
  afterAll(async () => {
    await agent.close();
  });

  test('the clean pass reinforced each lesson twice (three windows)', () => {
    expect(Object.values(clean)).toEqual([0, 1, 2].map(() => ({ reinforcements: 2, evidence: 60, sample: 60 })));
  });

  test('failing after the lessons were written, before the outcomes were marked learned: the re-run leaves the counts as a clean pass', async () => {
    await agent.service.ingest(ROWS);
    const store = agent.service.outcomes;
    const mark = store.markGroupLearned.bind(store);
    store.markGroupLearned = async () => {
      throw new Error('simulated crash before the outcomes are marked learned');
    };
    try {
      expect(await agent.service.learnPending({ asOf: AS_OF })).toMatchObject({ failed_groups: ['', '', ''].map(() => expect.any(String)) });
    } finally {
      store.markGroupLearned = mark;
    }
    expect(lessonState(agent)).toEqual(clean);
    expect(await agent.service.learnPending({ asOf: AS_OF })).toMatchObject({ pending_outcomes: 180, lessons_reinforced: 0, failed_groups: [] });
    expect(lessonState(agent)).toEqual(clean);
    expect(await agent.service.learnPending({ asOf: AS_OF + 86_400_000 })).toMatchObject({ pending_outcomes: 0 });
    expect(lessonState(agent)).toEqual(clean);
  }, 60_000);

  test('failing between linking new evidence and writing the lesson: the re-run counts that reinforcement once', async () => {
    const other = await startAgent({ settings: SETTINGS });
    try {
      await other.service.ingest(ROWS);
      const lessons = other.service.scanLessons;
      const update = lessons.update.bind(lessons);
      let updates = 0;
      lessons.update = async (...args: Parameters<typeof update>) => {
        // The second reinforcement of each group fails after its evidence was linked.
        if (++updates % 2 === 0) throw new Error('simulated crash after linking evidence');
        return update(...args);
      };
      try {
        expect((await other.service.learnPending({ asOf: AS_OF })).failed_groups).toHaveLength(3);
      } finally {
        lessons.update = update;
      }
      expect(Object.values(lessonState(other)).map((l) => l.reinforcements)).toEqual([1, 1, 1]);
      expect(await other.service.learnPending({ asOf: AS_OF })).toMatchObject({ failed_groups: [], lessons_reinforced: 3 });
      expect(lessonState(other)).toEqual(clean);
    } finally {
      await other.close();
    }
  }, 60_000);
});
