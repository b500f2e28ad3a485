import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringToUuid } from '@elizaos/core';
import { sql } from 'drizzle-orm';
import { lexicalVector } from '../../src/shared/lexical-vector';
import type { GuardEntry, ParseErrorEntry } from '../../src/rules/model/logs';
import type { LearningEvent, Rule, RuleLesson } from '../../src/rules/model/types';
import type { StoredRuleLesson } from '../../src/rules/rule-rows';
import type { PgTable } from 'drizzle-orm/pg-core';
import { guardLog, ruleEvents, ruleLessons, ruleParseErrors, rulesTable, ruleTables } from '../../src/rules/tables';
import { RuleStore } from '../../src/rules/rule-store';
import { type Db, dbOf, queryRows } from '../../src/shared/sql';
import { makeRule } from '../helpers/rule-fixtures';
import { startAgent, type TestAgent } from '../helpers/runtime';

const T0 = Date.parse('2026-02-11T10:30:00.000Z');
const MINUTE = 60_000;

const event = (n: number, extra: Partial<LearningEvent> = {}): LearningEvent => ({
  id: `ev-${n}`,
  tsMs: T0 + n * MINUTE,
  type: 'mistake',
  category: 'shell',
  tags: ['rm', 'scripts'],
  problem: `deleted the wrong folder (${n})`,
  solution: 'Never use rm -rf in scripts',
  evidenceLevel: 'testing',
  source: 'session',
  ...extra,
});

const lesson = (id: string, extra: Partial<RuleLesson> = {}): RuleLesson => ({
  id,
  createdMs: T0,
  category: 'shell',
  tags: ['rm'],
  lesson: 'Destructive shell commands in scripts need a dry run first.',
  context: 'Two scripts deleted the wrong folder.',
  trigger: 'writing a script that deletes files',
  action: 'print the paths first',
  confidence: 'testing',
  confidenceScore: 0.9,
  timesApplied: 0,
  timesSaved: 0,
  sourceEventIds: ['ev-1', 'ev-2'],
  trustedConfirmations: [],
  eventConfirmations: 2,
  untrustedConfirmations: [],
  authorTrusted: true,
  eventTypeCounts: { mistake: 2, success: 0, debug_session: 0, feedback: 1, discovery: 0 },
  lastValidatedMs: T0,
  validationCount: 0,
  reviewFlagged: false,
  ...extra,
});

const rule = (id: string, extra: Partial<Rule> = {}): Rule =>
  makeRule({
    id,
    type: 'NEVER',
    tags: ['rm'],
    rule: 'Never use rm -rf in scripts',
    reason: 'It deleted the wrong folder twice',
    createdMs: T0,
    lastCheckedMs: T0,
    lastValidatedMs: T0,
    ...extra,
  });

const guard = (n: number, extra: Partial<GuardEntry> = {}): GuardEntry => ({
  id: `g-${n}`,
  tsMs: T0 + n * MINUTE,
  action: 'post to moltbook',
  matchedRules: ['R-020', 'R-022'],
  scores: { 'R-020': 0.85, 'R-022': 0.72 },
  saveLogged: true,
  outcome: 'pending',
  ...extra,
});

const parseError = (n: number): ParseErrorEntry => ({ tsMs: T0 + n * MINUTE, error: 'Expecting property name enclosed in double quotes', line: `{bad json ${n}`, script: 'feedback-extractor' });

/** A database whose `failAt`-th statement (counted across the transaction) fails, as a crash midway would. */
function failingAt(db: Db, failAt: number): Db {
  let statements = 0;
  const wrap = (inner: Db): Db => ({
    execute: (query) => (++statements === failAt ? Promise.reject(new Error('simulated crash')) : inner.execute(query)),
    transaction: (work) => inner.transaction((tx) => work(wrap(tx))),
  });
  return wrap(db);
}

describe('the rule store on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  let store: RuleStore;
  const open = async () => {
    agent = await startAgent({ dataDir: dir });
    store = new RuleStore(dbOf(agent.runtime), agent.runtime.agentId);
  };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-rules-'));
    await open();
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  const rowCount = async (table: PgTable) =>
    Number((await queryRows<{ n: number }>(dbOf(agent.runtime), sql`SELECT count(*)::int AS n FROM ${table} WHERE agent_id = ${agent.runtime.agentId}::uuid`))[0]?.n ?? 0);
  const allCounts = async () => Promise.all(Object.values(ruleTables).map(rowCount));

  test('events round-trip field for field; the exact feedback words are kept', async () => {
    const withFeedback = event(1, { type: 'feedback', feedback: "no, that's wrong — never use `rm -rf` in scripts!\n" });
    const plain = event(2);
    expect(await store.insertEvents([withFeedback, plain])).toEqual(['ev-1', 'ev-2']);
    const loaded = await store.loadEvents();
    expect(loaded).toEqual({ items: [withFeedback, plain], skipped: [] });
    expect('feedback' in (loaded.items[1] as LearningEvent)).toBe(false);
  });

  test('re-inserting events is a no-op that reports only the new ids, duplicates in one batch included', async () => {
    const changed = { ...event(1), problem: 'a different text under the same id' };
    expect(await store.insertEvents([changed, event(3), event(3), event(2)])).toEqual(['ev-3']);
    expect(await store.eventCount()).toBe(3);
    expect((await store.loadEvents()).items.find((e) => e.id === 'ev-1')?.problem).toBe('deleted the wrong folder (1)');
  });

  test('loadEvents: sinceMs keeps events at or after it, limit keeps the newest, oldest first', async () => {
    await store.insertEvents([4, 5, 6].map((n) => event(n)));
    const ids = async (options: { sinceMs?: number; limit?: number }) => (await store.loadEvents(options)).items.map((e) => e.id);
    expect(await ids({ sinceMs: T0 + 4 * MINUTE })).toEqual(['ev-4', 'ev-5', 'ev-6']);
    expect(await ids({ limit: 2 })).toEqual(['ev-5', 'ev-6']);
    expect(await ids({ sinceMs: T0 + 2 * MINUTE, limit: 10 })).toEqual(['ev-2', 'ev-3', 'ev-4', 'ev-5', 'ev-6']);
    expect(await ids({ sinceMs: T0 + 99 * MINUTE })).toEqual([]);
  });

  test('1 200 events in one call (three insert statements) are all stored', async () => {
    const many = Array.from({ length: 1200 }, (_, i) => event(1000 + i));
    expect((await store.insertEvents(many)).length).toBe(1200);
    expect(await store.eventCount()).toBe(1206);
  }, 30_000);

  test('lessons round-trip with their vector and its source; an upsert without a vector keeps the stored one', async () => {
    const modelVector = [0.25, -0.5, 1e-7, 0.123456789012345];
    const a: StoredRuleLesson = { lesson: lesson('L-001', { subcategory: 'rm', promotedToRule: 'R-001' }), vector: { values: modelVector, source: 'model' } };
    const b: StoredRuleLesson = { lesson: lesson('L-002'), vector: { values: lexicalVector('dry run before deleting'), source: 'lexical' } };
    const c: StoredRuleLesson = { lesson: lesson('L-003') };
    await store.upsertRuleLessons([a, b, c]);
    expect(await store.loadRuleLessons()).toEqual({ items: [a, b, c], skipped: [] });

    const applied = lesson('L-001', { subcategory: 'rm', promotedToRule: 'R-001', timesApplied: 3, confidence: 'proven' });
    await store.upsertRuleLessons([{ lesson: applied }]);
    const [first] = (await store.loadRuleLessons()).items;
    expect(first).toEqual({ lesson: applied, vector: { values: modelVector, source: 'model' } });
  });

  test('rules round-trip and are upserted by id; within one batch the last one wins', async () => {
    const conflicted = rule('R-002', { type: 'MUST', rule: 'Always use rm -rf to clean build folders', conflictsWith: ['R-001'] });
    await store.upsertRules([rule('R-001'), conflicted]);
    expect(await store.loadRules()).toEqual({ items: [rule('R-001'), conflicted], skipped: [] });
    const retired = rule('R-002', { status: 'retired', confidenceScore: 0.41, reviewFlagged: true });
    await store.upsertRules([rule('R-002', { violations: 7 }), retired]);
    expect((await store.loadRules()).items).toEqual([rule('R-001'), retired]);
  });

  test('guard entries: stored in the seed format, outcome set once, re-appending an id changes nothing', async () => {
    expect(await store.appendGuardEntries([guard(1), guard(2, { outcome: 'failure' })])).toEqual(['g-1', 'g-2']);
    expect(await store.appendGuardEntries([guard(1, { action: 'something else' }), guard(3)])).toEqual(['g-3']);
    const [raw] = await queryRows<{ entry: unknown }>(dbOf(agent.runtime), sql`SELECT entry FROM ${guardLog} WHERE id = 'g-1'`);
    expect(raw?.entry).toEqual({ id: 'g-1', ts: '2026-02-11T10:31:00Z', action: 'post to moltbook', matched_rules: ['R-020', 'R-022'], scores: { 'R-020': 0.85, 'R-022': 0.72 }, save_logged: true, outcome: 'pending' });

    expect(await store.setGuardOutcome('g-1', 'success')).toEqual({ ok: true });
    expect(await store.setGuardOutcome('g-1', 'failure')).toMatchObject({ ok: false, code: 'already_set' });
    expect(await store.setGuardOutcome('g-2', 'success')).toMatchObject({ ok: false, code: 'already_set' });
    expect(await store.setGuardOutcome('g-404', 'success')).toMatchObject({ ok: false, code: 'not_found' });
    expect(await store.guardEntries({ limit: 10 })).toEqual({ items: [guard(3), guard(2, { outcome: 'failure' }), guard(1, { outcome: 'success' })], skipped: [] });
  });

  test('guard entries: limit keeps the newest, sinceMs the later ones', async () => {
    const ids = async (options: { limit: number; sinceMs?: number }) => (await store.guardEntries(options)).items.map((g) => g.id);
    expect(await ids({ limit: 2 })).toEqual(['g-3', 'g-2']);
    expect(await ids({ limit: 10, sinceMs: T0 + 2 * MINUTE })).toEqual(['g-3', 'g-2']);
    expect(await ids({ limit: 1, sinceMs: T0 + 2 * MINUTE })).toEqual(['g-3']);
  });

  test('parse errors: appended in the seed format, newest first, limited', async () => {
    await store.appendParseErrors([parseError(1), parseError(2)]);
    await store.appendParseErrors([parseError(1)]);
    expect(await rowCount(ruleParseErrors)).toBe(3);
    expect(await store.parseErrors(2)).toEqual({ items: [parseError(2), parseError(1)], skipped: [] });
    const [raw] = await queryRows<{ entry: unknown }>(dbOf(agent.runtime), sql`SELECT entry FROM ${ruleParseErrors} ORDER BY seq LIMIT 1`);
    expect(raw?.entry).toEqual({ ts: '2026-02-11T10:31:00.000Z', error: 'Expecting property name enclosed in double quotes', line: '{bad json 1', script: 'feedback-extractor' });
  });

  test('commitLearning is one transaction: a failure at any statement leaves nothing written', async () => {
    const batch = {
      events: [event(5000), event(5001)],
      ruleLessons: [{ lesson: lesson('L-900'), vector: { values: [1, 0], source: 'model' as const } }],
      rules: [rule('R-900')],
      guardEntries: [guard(900)],
      parseErrors: [parseError(900)],
    };
    const before = await allCounts();
    for (let failAt = 1; failAt <= 5; failAt++) {
      const crashing = new RuleStore(failingAt(dbOf(agent.runtime), failAt), agent.runtime.agentId);
      await expect(crashing.commitLearning(batch)).rejects.toThrow('simulated crash');
      expect(await allCounts()).toEqual(before);
    }
    expect(await store.commitLearning(batch)).toEqual({ newEventIds: ['ev-5000', 'ev-5001'], newGuardIds: ['g-900'] });
    expect(await allCounts()).toEqual(before.map((n, i) => n + [2, 1, 1, 1, 1][i]!));
  }, 30_000);

  test('rows that do not validate are skipped and reported, the others load', async () => {
    const db = dbOf(agent.runtime);
    const agentId = agent.runtime.agentId;
    await db.execute(
      sql`INSERT INTO ${ruleEvents} (agent_id, id, ts, type, category, tags, problem, solution, confidence, source) VALUES (${agentId}::uuid, 'ev-bad', now(), 'bogus', 'shell', '[]'::jsonb, '', '', 'testing', 'psql')`,
    );
    await db.execute(sql`INSERT INTO ${ruleLessons} (agent_id, id, category, created_at, doc, updated_at) VALUES (${agentId}::uuid, 'L-bad', 'shell', now(), '{"id":"L-bad"}'::jsonb, now())`);
    await db.execute(sql`INSERT INTO ${rulesTable} (agent_id, id, type, category, status, confidence_score, doc, updated_at) VALUES (${agentId}::uuid, 'R-bad', 'NEVER', 'shell', 'active', 2, ${JSON.stringify(rule('R-bad', { confidenceScore: 2 }))}::jsonb, now())`);
    await db.execute(sql`INSERT INTO ${guardLog} (agent_id, id, ts, entry) VALUES (${agentId}::uuid, 'g-bad', ${new Date(T0 + 999 * MINUTE).toISOString()}::timestamptz, '"not an object"'::jsonb)`);

    const events = await store.loadEvents();
    expect(events.items.length).toBe(1208);
    expect(events.skipped).toEqual([{ table: 'self_improve.rule_events', id: 'ev-bad', message: expect.stringContaining('type') }]);
    expect((await store.loadRuleLessons()).skipped.map((s) => s.id)).toEqual(['L-bad']);
    const rules = await store.loadRules();
    expect(rules.skipped).toEqual([{ table: 'self_improve.rules', id: 'R-bad', message: expect.stringContaining('confidenceScore') }]);
    expect(rules.items.map((r) => r.id)).toEqual(['R-001', 'R-002', 'R-900']);
    const guards = await store.guardEntries({ limit: 2 });
    expect(guards.skipped.map((s) => s.id)).toEqual(['g-bad']);
    expect(guards.items.map((g) => g.id)).toEqual(['g-900']);
  });

  test('text from outside: an unpaired surrogate is stored as U+FFFD, as a parameter of its own stored it; a U+0000 refuses the whole statement', async () => {
    const other = new RuleStore(dbOf(agent.runtime), stringToUuid('rule-store-hostile-text'));
    expect(await other.insertEvents([event(900, { problem: 'half \ud800 a pair', feedback: 'tail \udc00' })])).toEqual(['ev-900']);
    const [stored] = (await other.loadEvents()).items;
    expect(stored?.problem).toBe('half \ufffd a pair');
    expect(stored?.feedback).toBe('tail \ufffd');
    await expect(other.insertEvents([event(902), event(901, { solution: 'nul \u0000 byte' })])).rejects.toThrow();
    await expect(other.upsertRules([rule('R-900', { reason: 'nul \u0000 byte' })])).rejects.toThrow();
    expect(await other.eventCount()).toBe(1);
    expect((await other.loadRules()).items).toEqual([]);
  });

  test("another agent's store sees none of these rows", async () => {
    const other = new RuleStore(dbOf(agent.runtime), stringToUuid('another-agent'));
    expect(await other.eventCount()).toBe(0);
    expect(await other.loadRuleLessons()).toEqual({ items: [], skipped: [] });
    expect(await other.loadRules()).toEqual({ items: [], skipped: [] });
    expect(await other.guardEntries({ limit: 10 })).toEqual({ items: [], skipped: [] });
    expect(await other.parseErrors(10)).toEqual({ items: [], skipped: [] });
    expect(await other.setGuardOutcome('g-3', 'success')).toMatchObject({ ok: false, code: 'not_found' });
  });

  test('a restart keeps everything', async () => {
    const before = await Promise.all([store.loadEvents(), store.loadRuleLessons(), store.loadRules(), store.guardEntries({ limit: 100 }), store.parseErrors(100)]);
    await agent.close();
    await open();
    const after = await Promise.all([store.loadEvents(), store.loadRuleLessons(), store.loadRules(), store.guardEntries({ limit: 100 }), store.parseErrors(100)]);
    expect(after).toEqual(before);
    expect(after[1].items.find((l) => l.lesson.id === 'L-001')?.vector).toEqual({ values: [0.25, -0.5, 1e-7, 0.123456789012345], source: 'model' });
    expect(await store.setGuardOutcome('g-3', 'success')).toEqual({ ok: true });
  }, 60_000);
});
