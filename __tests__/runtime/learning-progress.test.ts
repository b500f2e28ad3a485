import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startAgent, type TestAgent } from '../helpers/runtime';

const DAY = 86_400_000;
const START = Date.parse('2026-09-01T00:00:00Z');
const AS_OF = Date.parse('2026-10-01T00:00:00Z');

/** `n` outcomes over four projects, dated from `fromMs` a few hours apart. */
function rows(prefix: string, n: number, fromMs: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    finding_key: `${prefix}-${i}`,
    label: i % 3 === 0 ? 'rejected_fp' : 'fixed',
    ts: new Date(fromMs + i * 3 * 3_600_000).toISOString(),
    project: `project-${i % 4}`,
    scanner: 'semgrep',
    model_provider: 'openai',
    model_name: 'gpt-4o',
    category: 'sql-injection',
  }));
}

describe('learning looks only after what it has learned', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  test('pending groups read a page of seqs at a time are those read at once', async () => {
    await agent.service.ingest(rows('a', 90, START));
    const whole = await agent.service.outcomes.pendingGroups(AS_OF);
    const paged = await agent.service.outcomes.pendingGroups(AS_OF, 7);
    const byGroup = (r: typeof whole) => [...r.groups].sort((x, y) => x.groupId.localeCompare(y.groupId));
    expect(paged.maxSeq).toBe(whole.maxSeq);
    expect(byGroup(paged)).toEqual(byGroup(whole));
    expect(whole.groups.reduce((n, g) => n + g.count, 0)).toBe(90);
    expect(whole.laterSeq).toBeNull();
  });

  test('a pass moves the mark past what it learned and stops before an outcome dated after it', async () => {
    await agent.service.ingest(rows('future', 5, AS_OF + 10 * DAY));
    await agent.service.ingest(rows('b', 30, START + 2 * DAY));
    const before = await agent.service.outcomes.pendingGroups(AS_OF);
    expect(before.laterSeq).not.toBeNull();
    const report = await agent.service.learnPending({ asOf: AS_OF });
    expect(report.pending_outcomes).toBe(120);
    expect(report.failed_groups).toEqual([]);
    // The outcomes dated after the pass stay pending, and the mark stops just before the first of them.
    expect(await agent.service.outcomes.learnedThrough()).toBe((before.laterSeq as number) - 1);
    expect(await agent.service.outcomes.countPending()).toBe(5);
    const again = await agent.service.learnPending({ asOf: AS_OF });
    expect(again.pending_outcomes).toBe(0);
    // Once their time has come they are learned, and the mark reaches the newest outcome.
    const later = await agent.service.learnPending({ asOf: AS_OF + 30 * DAY });
    expect(later.pending_outcomes).toBe(5);
    expect(await agent.service.outcomes.countPending()).toBe(0);
    expect(await agent.service.outcomes.learnedThrough()).toBe((await agent.service.outcomes.pendingGroups(AS_OF + 30 * DAY)).maxSeq);
  });
});
