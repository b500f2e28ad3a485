import { afterEach, describe, expect, test } from 'bun:test';
import { toJsonl } from '../../examples/generate-outcomes';
import { generateReplayStream, type StreamKind } from '../../examples/generate-replay';
import { type ReplayReport, replayOutcomes } from '../../src/scan/replay';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function replay(text: string): Promise<ReplayReport> {
  agent = await startAgent({ settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
  const report = await replayOutcomes(agent.service, text);
  await agent.close();
  agent = undefined;
  return report;
}

const stream = (kind: StreamKind, seed: number) => toJsonl(generateReplayStream(1200, seed, kind));

describe('replay', () => {
  test('golden numbers on a four-row stream, each forecast made before its label is known', async () => {
    // One group, labels fp, fixed, fp, fp, given out of time order: the replay sorts by ts.
    const rows = makeRows({ n: 4, labels: ['rejected_fp', 'fixed', 'rejected_fp', 'rejected_fp'], category: 'xss' });
    const shuffled = [rows[2], rows[0], rows[3], rows[1]];
    const report = await replay(`${shuffled.map((r) => JSON.stringify(r)).join('\n')}\nnot json\n`);
    // Strength 10, uniform root 0.2. Every level holds the same counts (one group), so the prior
    // is the chain p ← (fp + 10·p) / (n + 10) applied four times from 0.2; the baseline applies it once.
    //   row 1: no data            model 0.2        baseline 0.2
    //   row 2: fp 1 of 1          model 0.453589   baseline 3/11
    //   row 3: fp 1 of 2          model 0.355324   baseline 3/12
    //   row 4: fp 2 of 3          model 0.503274   baseline 4/13
    // brier = (0.8² + 0.453589² + 0.644676² + 0.496726²) / 4
    expect(report.rows).toBe(4);
    expect(report.rejected).toEqual([{ line: 5, field: '(line)', message: expect.stringContaining('JSON') }]);
    expect(report.brier).toBeCloseTo(0.377022, 5);
    expect(report.brier_baseline).toBeCloseTo(0.439043, 5);
    expect(report.brier_skill).toBeCloseTo(0.141264, 5);
    expect(report.log_loss).toBeCloseTo(0.983792, 5);
    expect(report.log_loss_baseline).toBeCloseTo(1.12321, 5);
    // the one negative (0.4536) is beaten by one positive of three
    expect(report.auc).toBeCloseTo(1 / 3, 9);
    expect(report.auc_baseline).toBeCloseTo(1 / 3, 9);
    expect(report.ece).toBeCloseTo(0.598748, 5);
    expect(report.ece_baseline).toBeCloseTo(0.492395, 5);
    expect(report.false_positive_rate).toBe(0.75);
    expect(report.first_ts).toBe(rows[0]?.ts as string);
    expect(report.learning_passes).toBe(0);
  });

  test('deterministic: the same file gives the same numbers', async () => {
    const text = toJsonl(generateReplayStream(400, 11, 'pattern'));
    expect(await replay(text)).toEqual(await replay(text));
  }, 60_000);

  test.each([1, 2])('a stream with real patterns beats the baseline by a clear margin (seed %d)', async (seed) => {
    const report = await replay(stream('pattern', seed));
    expect(report.rows).toBe(1200);
    expect(report.brier_skill as number).toBeGreaterThan(0.08);
    expect(report.auc as number).toBeGreaterThan((report.auc_baseline as number) + 0.15);
    expect(report.log_loss as number).toBeLessThan(report.log_loss_baseline as number);
    expect(report.learning_passes).toBeGreaterThan(10);
  }, 60_000);

  test('a stream of pure noise does not pretend to beat the baseline', async () => {
    const report = await replay(stream('noise', 3));
    expect(report.brier_skill as number).toBeLessThan(0.01);
    expect(report.auc as number).toBeLessThan(0.6);
  }, 60_000);

  test('learning runs when a window closes, as in production: the example outcomes teach lessons during the replay', async () => {
    const text = await Bun.file(new URL('../../examples/outcomes.jsonl', import.meta.url)).text();
    const report = await replay(text);
    expect(report.rows).toBe(600);
    // 600 rows over three weeks: windows close twice or three times
    expect(report.learning_passes).toBeGreaterThanOrEqual(2);
    expect(report.lessons_created).toBeGreaterThan(0);
    expect(report.brier_skill as number).toBeGreaterThan(0);
  }, 60_000);
});
