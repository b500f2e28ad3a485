// A reinforced lesson's text keeps telling the truth: every figure in it is rendered again from
// the statistics its metadata now holds (issue 17, item 3), for a statistics-written lesson and a
// model-written one. A model lesson that quotes figures the statistics do not have is not stored.
import { afterEach, describe, expect, test } from 'bun:test';
import { wilsonInterval } from '../../src/shared/stats';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

const FIRST = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'w1', startIso: '2026-11-10T00:00:00Z' });
const SECOND = makeRows({ n: 40, labels: ['rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'w2', startIso: '2026-11-20T00:00:00Z' });
const FIRST_AS_OF = Date.parse('2026-11-15T00:00:00Z');
const SECOND_AS_OF = Date.parse('2026-11-30T00:00:00Z');

const pct = (successes: number, trials: number) => Math.round((100 * successes) / trials);

/** The lesson after both passes: one lesson, reinforced once by the second window. */
async function learnTwoWindows(agent: TestAgent): Promise<{ before: ScanLesson; after: ScanLesson }> {
  await agent.service.ingest(FIRST);
  await agent.service.learnPending({ asOf: FIRST_AS_OF });
  const [before] = agent.service.listScanLessons();
  await agent.service.ingest(SECOND);
  expect(await agent.service.learnPending({ asOf: SECOND_AS_OF })).toMatchObject({ lessons_created: 0, lessons_reinforced: 1 });
  const lessons = agent.service.listScanLessons();
  expect(lessons).toHaveLength(1);
  return { before: before as ScanLesson, after: lessons[0] as ScanLesson };
}

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe('a reinforced lesson says the figures of its metadata', () => {
  test('statistics lesson: rate, count, interval and window dates rendered again from the whole evidence', async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
    const { before, after } = await learnTwoWindows(agent);
    expect(before.text).toContain('75% of xss findings were rejected as false positives (30 of 40, 95% CI');
    const m = after.metadata;
    expect([m.origin, m.reinforcements, m.sample_size, m.label_counts.rejected_fp]).toEqual(['statistics', 1, 80, 50]);
    const said = /: (\d+)% of xss findings were rejected as false positives \((\d+) of (\d+), 95% CI (\d+)%-(\d+)%, (\S+) to (\S+)\);/.exec(after.text);
    const ci = wilsonInterval(m.label_counts.rejected_fp, m.sample_size);
    expect(said?.slice(1)).toEqual([
      String(pct(m.label_counts.rejected_fp, m.sample_size)),
      String(m.label_counts.rejected_fp),
      String(m.sample_size),
      String(Math.round(ci.low * 100)),
      String(Math.round(ci.high * 100)),
      m.window_start.slice(0, 10),
      m.window_end.slice(0, 10),
    ]);
    // and the memory the runtime stores says the same
    expect((await agent.runtime.getMemoryById(after.id))?.content.text).toBe(after.text);
  }, 60_000);

  test("model lesson: the model's words kept, the figures it quoted rendered from the evidence", async () => {
    const models = createTestModelsPlugin({
      textSmall: (prompt) => {
        const [, n, rejected] = /n=(\d+);.*rejected_fp=(\d+)/.exec(prompt) ?? [];
        const text = `In ${rejected} of ${n} cases (${pct(Number(rejected), Number(n))}%) semgrep xss findings here were false positives, n=${n}; corroborate them before reporting.`;
        return JSON.stringify({ lessons: [{ category: 'false-positive-pattern', text, confidence: 0.9 }] });
      },
    });
    agent = await startAgent({ plugins: [models.plugin] });
    const { before, after } = await learnTwoWindows(agent);
    expect(before.text).toBe('In 30 of 40 cases (75%) semgrep xss findings here were false positives, n=40; corroborate them before reporting.');
    const m = after.metadata;
    expect([m.origin, m.reinforcements, m.sample_size, m.label_counts.rejected_fp]).toEqual(['model', 1, 80, 50]);
    expect(after.text).toBe(
      `In ${m.label_counts.rejected_fp} of ${m.sample_size} cases (${pct(m.label_counts.rejected_fp, m.sample_size)}%) semgrep xss findings here were false positives, n=${m.sample_size}; corroborate them before reporting.`,
    );
    expect(m.text_parts).toContainEqual({ count: 'rejected_fp' });
    expect((await agent.runtime.getMemoryById(after.id))?.content.text).toBe(after.text);
  }, 60_000);

  test('a model lesson quoting figures the statistics do not have is counted malformed and not stored', async () => {
    const models = createTestModelsPlugin({
      textSmall: () => JSON.stringify({ lessons: [{ category: 'false-positive-pattern', text: 'In 14 of 19 cases semgrep xss findings here were false positives; corroborate them.', confidence: 0.9 }] }),
    });
    agent = await startAgent({ plugins: [models.plugin] });
    await agent.service.ingest(FIRST);
    expect(await agent.service.learnPending({ asOf: FIRST_AS_OF })).toMatchObject({ lessons_created: 0, malformed_model_outputs: 1 });
    expect(agent.service.listScanLessons()).toEqual([]);
  }, 60_000);
});
