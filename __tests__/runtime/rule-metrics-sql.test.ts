// The rule metrics tally the events in the database (GROUP BY; only feedback rows are read) and
// give what the computation over every event row gave.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { weeklyRuleMetrics } from '../../src/rules/model/metrics';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { RuleStore } from '../../src/rules/rule-store';
import { LogRetention } from '../../src/shared/log-retention';
import { dbOf } from '../../src/shared/sql';
import { DAY, T0 } from '../helpers/rule-fixtures';
import { startAgent, type TestAgent } from '../helpers/runtime';

const BOOT_MS = 60_000;
const HOUR = 3_600_000;

const event = (dayOffset: number, hour: number, fields: Record<string, unknown>) => ({ ts: new Date(T0 + dayOffset * DAY + hour * HOUR + 123).toISOString(), confidence: 'testing', ...fields });
const shellMistake = (d: number, h: number, tags: string[]) =>
  event(d, h, { type: 'mistake', category: 'shell', tags, problem: `a cleanup script deleted the wrong folder (${d}/${h})`, solution: 'Never run rm -rf on a path built from a variable in a script' });
const gitMistake = (d: number, h: number) =>
  event(d, h, { type: 'mistake', category: 'git', tags: [], problem: `pushed to main by accident (${d}/${h})`, solution: 'Never push straight to main' });
const feedback = (d: number, h: number, text: string, tags: string[] = []) =>
  event(d, h, { type: 'feedback', category: 'style', tags, problem: `the answer read like this (${d}/${h})`, solution: 'keep answers short', greg_feedback: text });

describe('rule metrics from database aggregates', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_RULE_MIN_CONFIRMATIONS: '2', SELF_IMPROVE_RULE_MIN_CONFIRMATIONS_PROVEN: '2', SELF_IMPROVE_RULE_MIN_AGE_DAYS: '0' } });
    book = await ruleBookOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  /** What `metrics` computed before: every event row read and tallied in memory. */
  async function everyRow(nowMs: number) {
    const store = new RuleStore(dbOf(agent.runtime), agent.runtime.agentId, new LogRetention(agent.runtime.agentId, 100_000));
    const events = (await store.loadEvents()).items;
    const guardEntries = (await store.guardEntries({ limit: 100_000 })).items;
    const lessons = book.ruleLessons();
    const rules = book.rules();
    let startedMs = Math.min(nowMs, events[0]?.tsMs ?? nowMs);
    for (const t of [...lessons.map((l) => l.createdMs), ...rules.map((r) => r.createdMs)]) startedMs = Math.min(startedMs, t);
    return weeklyRuleMetrics({ events, lessons, rules, guardEntries, nowMs, startedMs });
  }

  test('equal to the computation over every row: counts, regressions, satisfaction, totals', async () => {
    expect(await book.metrics(T0)).toEqual(await everyRow(T0));
    // Week 1: mistakes that teach rules, feedback of each polarity (by words and by tag).
    await book.ingestEvents(
      [shellMistake(0, 1, ['rm', 'script']), shellMistake(0, 2, ['rm']), shellMistake(1, 3, ['rm']), gitMistake(1, 4), gitMistake(2, 5), gitMistake(2, 6)],
      'test',
      { nowMs: T0 + 3 * DAY },
    );
    await book.ingestEvents(
      [feedback(2, 7, 'great, thanks, perfect'), feedback(3, 8, 'wrong and broken, bad'), feedback(3, 9, 'no, wrong', ['praise']), event(4, 1, { type: 'success', category: 'shell', tags: [], problem: 'clean run', solution: 'keep going' })],
      'test',
      { nowMs: T0 + 5 * DAY },
    );
    expect(book.rules().length).toBeGreaterThan(0);
    // Weeks 2 and 4: mistakes in and out of the rules' scopes (regressions), more feedback, a gap week.
    await book.ingestEvents(
      [shellMistake(8, 1, ['rm']), shellMistake(8, 2, ['docker']), shellMistake(9, 3, []), gitMistake(10, 4), feedback(11, 5, 'thanks, that helped'), feedback(22, 6, 'no cue at all'), event(23, 1, { type: 'discovery', category: 'git', tags: ['hooks'], problem: 'hooks can run tests', solution: 'use a pre-push hook' })],
      'test',
      { nowMs: T0 + 24 * DAY },
    );
    await book.ingestEvents([event(24, 2, { type: 'debug_session', category: 'shell', tags: ['rm'], problem: 'why the folder went', solution: 'quote variables' })], 'test', { nowMs: T0 + 25 * DAY });

    for (const nowMs of [T0 + 5 * DAY, T0 + 30 * DAY, T0 + 100 * DAY]) {
      const metrics = await book.metrics(nowMs);
      expect(metrics).toEqual(await everyRow(nowMs));
    }
    const metrics = await book.metrics(T0 + 30 * DAY);
    expect(metrics.totals.events).toBe(18);
    expect(metrics.weekly.reduce((sum, w) => sum + w.regressions, 0)).toBeGreaterThan(0);
    expect(metrics.weekly.filter((w) => w.satisfaction !== null).length).toBeGreaterThan(0);
  }, 60_000);
});
