import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { OutcomeRow } from '../../src/scan/model/outcome';
import { ruleEvents } from '../../src/rules/tables';
import { toStoredOutcome } from '../../src/scan/outcome-store';
import { findingsTable, outcomeLearned, outcomesTable } from '../../src/scan/tables';
import { qualifiedName } from '../../src/shared/plugin-schema';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { dbOf, queryRows } from '../../src/shared/sql';
import { type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { hostileOutcomeRows } from '../helpers/hostile-rows';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { eventRow, rmEvent, thrice } from '../helpers/seed-events';
import { createTestModelsPlugin } from '../helpers/test-models';

/** A trigger that makes the database itself refuse rows whose `column` equals `poison`: a refusal no validation foresees. */
async function poison(agent: TestAgent, table: PgTable, column: string, value: string): Promise<void> {
  const db = dbOf(agent.runtime);
  const name = getTableName(table);
  await db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION refuse_poison_${name}() RETURNS trigger AS $$
      BEGIN IF NEW.${column} = '${value}' THEN RAISE EXCEPTION 'poisoned row refused by trigger'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`),
  );
  await db.execute(sql.raw(`CREATE TRIGGER refuse_poison_${name} BEFORE INSERT ON ${qualifiedName(table)} FOR EACH ROW EXECUTE FUNCTION refuse_poison_${name}()`));
}

describe('hostile rows on a real runtime (PGlite): refused by row and field, good rows kept', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  let trajectories: TrajectoryService;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
    book = await ruleBookOf(agent.runtime);
    trajectories = await trajectoryServiceOf(agent.runtime);
  });
  afterAll(async () => {
    await agent.close();
  });

  test('outcomes: a mixed batch through ScanOutcomeService.ingest keeps every good row and refuses each bad one by index and field', async () => {
    const { good, bad } = hostileOutcomeRows('hostile');
    // good, bad, good, bad, ...: the bad rows sit between the good ones.
    const batch = good.flatMap((row, i) => [row, ...bad.slice(i * 2, i * 2 + 2).map((b) => b.row)]);
    const result = await agent.service.ingest(batch);
    expect(result.accepted).toBe(good.length);
    expect(result.rejected.map((r) => [r.index, r.field])).toEqual(bad.map((b) => [batch.indexOf(b.row), b.field]));
    bad.forEach((b, i) => expect(result.rejected[i]?.message).toMatch(b.message));
    expect((await agent.service.counts()).outcomes).toBe(good.length);

    const again = await agent.service.ingest(batch);
    expect(again).toMatchObject({ accepted: 0, duplicate: good.length });
    expect(again.rejected).toHaveLength(bad.length);
  });

  test('outcomes: a row the database itself refuses is left out alone, named by index with field (row) and the reason; nothing of it is written', async () => {
    await poison(agent, outcomesTable, 'finding_key', 'db-poison');
    const rows = makeRows({ n: 3, labels: ['fixed'], keyPrefix: 'db-refusal' });
    const poisoned = { ...rows[0], finding_key: 'db-poison' };
    const before = (await agent.service.counts()).outcomes;
    const result = await agent.service.ingest([rows[0], poisoned, rows[1], rows[2]]);
    expect(result).toMatchObject({ accepted: 3, duplicate: 0 });
    expect(result.rejected).toEqual([{ index: 1, field: '(row)', message: 'the database refused the row: poisoned row refused by trigger' }]);
    expect(result.outcomes.map((o) => o.index)).toEqual([0, 2, 3]);
    expect((await agent.service.counts()).outcomes).toBe(before + 3);
    const stored = await queryRows<{ n: number }>(dbOf(agent.runtime), sql`SELECT count(*)::int AS n FROM ${outcomesTable} WHERE finding_key = 'db-poison'`);
    expect(stored[0]?.n).toBe(0);
  });

  test('outcomes written past validation: the rows PGlite refuses (a NUL, an unpaired surrogate in jsonb) are left out alone, the good one stored', async () => {
    const [good, nul, surrogate] = makeRows({ n: 3, labels: ['accepted'], keyPrefix: 'past-validation' }).map((r) => ({ ...r, ts: new Date(String(r.ts)).toISOString() }) as OutcomeRow);
    const stored = [good, { ...nul, summary: 'a\u0000b' }, { ...surrogate, notes: 'x\uD800' }].map((row) => toStoredOutcome(agent.runtime.agentId, row as OutcomeRow));
    const { inserted, refused } = await agent.service.outcomes.insert(stored);
    expect([...inserted]).toEqual(stored.slice(0, 1).map((o) => o.id));
    // The driver's own reasons, not drizzle's "Failed query: INSERT …" wrapper with the parameters.
    expect(refused).toEqual([
      { position: 1, reason: 'unsupported Unicode escape sequence' },
      { position: 2, reason: 'invalid input syntax for type json' },
    ]);
  });

  test('findings awaiting labels: a bad finding and one the database refuses are reported, the others recorded', async () => {
    await poison(agent, findingsTable, 'finding_key', 'db-poison-finding');
    const [a, b] = makeRows({ n: 2, labels: ['fixed'], keyPrefix: 'awaiting' }).map(({ label: _label, ...finding }) => finding);
    const result = await agent.service.recordFindings([a, { ...b, notes: 'x\uDC00' }, { ...b, finding_key: 'db-poison-finding' }, b]);
    expect(result).toMatchObject({ recorded: 2, known: 0 });
    expect(result.rejected.map((r) => [r.index, r.field, r.message])).toEqual([
      [1, 'notes', expect.stringMatching(/^notes contains an unpaired UTF-16 surrogate/)],
      [2, '(row)', 'the database refused the row: poisoned row refused by trigger'],
    ]);
  });

  test('events: a mixed batch keeps the good events and refuses each bad one by index and field', async () => {
    const good = thrice(rmEvent, 300);
    const bad: { row: Record<string, unknown>; field: string; message: RegExp }[] = [
      { row: eventRow(310, { type: 'mistake', category: 'shell', problem: 'nul\u0000', solution: 'x' }), field: 'problem', message: /^problem contains a NUL character/ },
      { row: eventRow(311, { type: 'mistake', category: 'shell', tags: ['ok', '\uD800'], problem: 'p', solution: 's' }), field: 'tags.1', message: /unpaired UTF-16 surrogate/ },
      { row: { ...eventRow(312, { type: 'mistake', category: 'shell', problem: 'p', solution: 's' }), ts: '0001-01-01T00:00:00Z' }, field: 'ts', message: /^ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z/ },
    ];
    const batch = [good[0], bad[0]?.row, good[1], bad[1]?.row, bad[2]?.row, good[2]];
    const result = await book.ingestEvents(batch, 'test');
    expect(result.accepted).toBe(3);
    expect(result.rejected.map((r) => [r.index, r.field])).toEqual([
      [1, 'problem'],
      [3, 'tags.1'],
      [4, 'ts'],
    ]);
    bad.forEach((b, i) => expect(result.rejected[i]?.message).toMatch(b.message));
    expect(result.rulesPromoted).toHaveLength(1);
  });

  test('events: an event the database refuses is reported with field (row); the others are stored with their lessons and rules', async () => {
    await poison(agent, ruleEvents, 'problem', 'db-poison');
    const events = [0, 1, 2].map((i) => eventRow(400 + i, { type: 'mistake', category: 'ci', tags: ['lint'], problem: 'the build failed on formatting after the push', solution: 'run the linter locally before pushing' }));
    const poisoned = eventRow(399, { type: 'mistake', category: 'ci', problem: 'db-poison', solution: 'x' });
    const before = book.eventCount();
    const result = await book.ingestEvents([events[0], poisoned, events[1], events[2], { ...poisoned }], 'test');
    const refusal = { field: '(row)', code: 'refused_by_database' as const, message: 'the database refused the row: poisoned row refused by trigger' };
    expect(result.rejected).toEqual([
      { index: 1, ...refusal },
      { index: 4, ...refusal },
    ]);
    expect(result.duplicate).toBe(0);
    expect(result.accepted).toBe(3);
    expect(result.events.map((e) => e.index)).toEqual([0, 2, 3]);
    expect(result.rulesPromoted).toHaveLength(1);
    expect(book.eventCount()).toBe(before + 3);
    const stored = await book.store.loadEvents();
    expect(stored.items.some((e) => e.problem === 'db-poison')).toBe(false);
    const again = await book.ingestEvents([events[0], events[1], events[2]], 'test');
    expect(again).toMatchObject({ accepted: 0, duplicate: 3, rejected: [] });
  });

  test('trajectories: a step with a NUL is refused by line and field; the trajectory is stored with the other steps', async () => {
    const text = [
      JSON.stringify({ kind: 'message', text: 'fix the failing test' }),
      JSON.stringify({ kind: 'tool', name: 'Bash', text: 'bun test\u0000' }),
      JSON.stringify({ kind: 'output', text: '1 pass 😀' }),
      JSON.stringify({ kind: 'model', text: 'done', tokens: null }),
      JSON.stringify({ kind: 'tool', name: 'Bash', text: 'git commit', ts: '0001-01-01T00:00:00Z' }),
    ].join('\n');
    const { stored, errors } = await trajectories.submit(text, 'http', 'hostile-run');
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [2, 'text'],
      [4, 'tokens'],
      [5, 'ts'],
    ]);
    expect(stored.transcript).toBe('[message] fix the failing test\n[output] 1 pass 😀');
    expect((await trajectories.page({ limit: 50 })).trajectories.map((t) => t.run_id)).toContain('hostile-run');
  });

  test("trajectories: a run recorded from the runtime's events with a NUL in a tool's output is stored, the NUL as U+FFFD", async () => {
    const stored = await trajectories.record({ id: 'runtime-nul', steps: [{ kind: 'tool', name: 'Bash', text: 'cat bin\u0000ary' }], ended: true, token_count: 4, tool_calls: 1 }, 'runtime');
    expect(stored.transcript).toBe('[tool Bash] cat bin\uFFFDary');
    expect((await trajectories.page({ limit: 50 })).trajectories.map((t) => t.run_id)).toContain('runtime-nul');
  });

  test('trajectories: a transcript cut inside an emoji is stored (the cut never leaves half a pair)', async () => {
    const text = `${'x'.repeat(19_998)}😀😀 and more`;
    const { stored } = await trajectories.submit(text, 'http', 'emoji-cut');
    expect(stored.transcript.length).toBeLessThanOrEqual(20_000);
    expect((await trajectories.page({ limit: 50 })).trajectories.map((t) => t.run_id)).toContain('emoji-cut');
  });
});

describe('a learning pass survives a group that fails', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
  });
  afterAll(async () => {
    await agent.close();
  });

  test('a year-0001 outcome written past validation fails its group only: logged with the group, outcomes left pending, the other groups learned', async () => {
    // Groups are learned in id order ("aardvark" < "ancient" < "zeta"): a good group before the bad one and one after it.
    const before = makeRows({ n: 20, labels: ['rejected_fp'], category: 'xss', project: 'aardvark', keyPrefix: 'first' });
    const after = makeRows({ n: 20, labels: ['rejected_fp'], category: 'xss', project: 'zeta', keyPrefix: 'last' });
    expect((await agent.service.ingest([...before, ...after])).accepted).toBe(40);
    const [template] = makeRows({ n: 1, labels: ['fixed'], project: 'ancient', keyPrefix: 'ancient' });
    const ancient = { ...template, ts: '0001-01-01T00:00:00.000Z' } as OutcomeRow;
    const { inserted } = await agent.service.outcomes.insert([toStoredOutcome(agent.runtime.agentId, ancient)]);
    expect(inserted.size).toBe(1);

    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = agent.runtime.logger as unknown as { warn: (...args: unknown[]) => unknown };
    const warn = logger.warn;
    logger.warn = (...args: unknown[]) => {
      warnings.push({ fields: args[0] as Record<string, unknown>, message: String(args[1]) });
      return warn.apply(agent.runtime.logger, args);
    };
    const report = await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') }).finally(() => {
      logger.warn = warn;
    });

    const ancientGroup = JSON.stringify(['ancient', 'semgrep', 'openai', 'gpt-4o', null]);
    expect(report.failed_groups).toEqual([ancientGroup]);
    expect(report.groups).toBe(3);
    expect(report.lessons_created).toBe(2);
    const lessonProjects = agent.service.listScanLessons().map((l) => l.metadata.project).sort();
    expect(lessonProjects).toEqual(['aardvark', 'zeta']);
    const logged = warnings.find((w) => w.fields.group === ancientGroup);
    expect(logged?.fields).toMatchObject({ src: 'plugin:self-improve:learner', agentId: agent.runtime.agentId, group: ancientGroup });
    expect(logged?.message).toContain('learning failed for one group');
    expect(await agent.service.outcomes.countPending()).toBe(1);
    const pendingKeys = await queryRows<{ finding_key: string }>(
      dbOf(agent.runtime),
      sql`SELECT finding_key FROM ${outcomesTable} o WHERE NOT EXISTS (SELECT 1 FROM ${outcomeLearned} l WHERE l.outcome_id = o.id)`,
    );
    expect(pendingKeys.map((r) => r.finding_key)).toEqual(['ancient-0']);

    const next = await agent.service.learnPending({ asOf: Date.parse('2026-11-13T00:00:00Z') });
    expect(next).toMatchObject({ pending_outcomes: 1, groups: 1, failed_groups: [ancientGroup], lessons_created: 0 });
  });
});
