import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { learningProgress } from '../../src/scan/tables';
import { dbOf, queryRows } from '../../src/shared/sql';
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

  test('outcomes above the highest seq a pass looked at are pending without a lookup of outcome_learned; with that seq unknown every one is looked up', async () => {
    const db = dbOf(agent.runtime);
    const ofAgent = sql`agent_id = ${agent.runtime.agentId}::uuid`;
    const progress = async () => (await queryRows<{ learned: string; seen: string | null }>(db, sql`SELECT learned_through_seq AS learned, seen_through_seq AS seen FROM ${learningProgress} WHERE ${ofAgent}`))[0];
    const newest = async () => (await agent.service.outcomes.pendingGroups(AS_OF + 30 * DAY)).maxSeq;
    // The last pass looked at every outcome.
    expect(Number((await progress())?.seen)).toBe(await newest());
    await agent.service.ingest(rows('c', 8, START + 3 * DAY));
    expect(await agent.service.outcomes.countPending()).toBe(8);
    // A database from before the seq was kept: every outcome is looked up, with the same count, and the next pass records it.
    await db.execute(sql`UPDATE ${learningProgress} SET seen_through_seq = NULL WHERE ${ofAgent}`);
    expect(await agent.service.outcomes.countPending()).toBe(8);
    expect((await agent.service.learnPending({ asOf: AS_OF + 30 * DAY })).pending_outcomes).toBe(8);
    expect(Number((await progress())?.seen)).toBe(await newest());
    expect(await agent.service.outcomes.countPending()).toBe(0);
    // Both marks moved back by hand below the 8 outcomes just learned: looked up, they are learned; above a seen seq, they are taken as pending unlooked.
    await db.execute(sql`UPDATE ${learningProgress} SET learned_through_seq = learned_through_seq - 8, seen_through_seq = NULL WHERE ${ofAgent}`);
    expect(await agent.service.outcomes.countPending()).toBe(0);
    await db.execute(sql`UPDATE ${learningProgress} SET seen_through_seq = learned_through_seq WHERE ${ofAgent}`);
    expect(await agent.service.outcomes.countPending()).toBe(8);
  });
});
