import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { ruleConfidenceAt } from '../../src/rules/model/rule-confidence';
import { type ExportedRule, manifestHash, type RuleExport, ruleHash, ruleToWire } from '../../src/rules/model/export';
import type { Rule, RuleLesson } from '../../src/rules/model/types';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import type { StoredScanLesson } from '../../src/scan/scan-lesson-metadata';
import { type RewardLedgerService, rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { ruleLessons } from '../../src/rules/tables';
import { dbOf, queryRows } from '../../src/shared/sql';
import { RULE_DECAY_TASK_NAME } from '../../src/rules/surfaces/rule-decay-task';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { signDocument, UNSIGNED_NOTE } from '../../src/rules/model/signing';
import { testKeyPair } from '../helpers/signing-keys';
import { syntheticScanLesson } from '../helpers/synthetic-scan-lessons';
import { DAY, T0 } from '../helpers/rule-fixtures';
import { createTestModelsPlugin } from '../helpers/test-models';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const BOOT_MS = 60_000;
const TEST_MS = 60_000;

/** A seed 003 event row at `T0 + minute` minutes. */
const row = (minute: number, fields: Record<string, unknown>) => ({ ts: new Date(T0 + minute * MINUTE).toISOString(), confidence: 'testing', ...fields });

const mergeEvent = (minute: number) =>
  row(minute, { type: 'debug_session', category: 'git', tags: ['merge'], problem: 'a merge left conflict markers in the config file', solution: 'search the diff for conflict markers before committing' });
const rmEvent = (minute: number) =>
  row(minute, { type: 'mistake', category: 'shell', tags: ['rm', 'script'], problem: 'a cleanup script deleted the wrong folder', solution: 'Never run rm -rf on a path built from a variable in a script' });
const mustDeploy = (minute: number) =>
  row(minute, { type: 'feedback', category: 'deploy', tags: [], problem: 'the weekly release slipped and customers waited all weekend for the fix', solution: 'Always deploy to production on Friday mornings', greg_feedback: 'ship it on Friday morning' });
const neverDeploy = (minute: number) =>
  row(minute, { type: 'mistake', category: 'deploy', tags: ['migration'], problem: 'a database migration broke checkout while nobody could roll back', solution: 'Never deploy to production on Friday mornings' });

const ids = (rules: readonly Rule[]) => rules.map((r) => r.id);
/** The exporting agent's signing key; the importing agent trusts its public half. */
const SIGNER = testKeyPair();

describe('the rule book on a real runtime (lexical vectors)', () => {
  let dir: string;
  let agent: TestAgent;
  let book: RuleBookService;
  let exported: RuleExport;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-rules-'));
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_RULE_SIGNING_KEY: SIGNER.privatePem } });
    book = await ruleBookOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }, BOOT_MS);

  test('the decay task is registered, repeating at SELF_IMPROVE_RULE_DECAY_INTERVAL_MS', async () => {
    const tasks = (await agent.runtime.getTasksByName(RULE_DECAY_TASK_NAME)).filter((t) => t.worldId === agent.runtime.agentId);
    expect(tasks.map((t) => [t.tags, t.metadata?.updateInterval])).toEqual([[['queue', 'repeat', 'self-improve'], 3_600_000]]);
    expect(agent.runtime.getTaskWorker(RULE_DECAY_TASK_NAME)).toBeDefined();
  }, TEST_MS);

  test('events cluster into a lesson that is promoted after 3 events; the type comes from the events (debug sessions: CHECK)', async () => {
    expect(book.vectorizer.source).toBe('lexical');
    const first = await book.ingestEvents([mergeEvent(1), mergeEvent(2)], 'test', { nowMs: T0 + HOUR });
    expect(first).toMatchObject({ accepted: 2, duplicate: 0, rejected: [], ruleLessonsCreated: 1, ruleLessonsUpdated: 0, rulesPromoted: [] });
    expect(book.ruleLessons()).toHaveLength(1);
    expect(book.ruleLessons()[0]).toMatchObject({ id: 'L-001', category: 'git', tags: ['merge'], confidence: 'testing' });
    expect(book.rules()).toEqual([]);

    const third = await book.ingestEvents([mergeEvent(3)], 'test', { nowMs: T0 + HOUR });
    expect(third).toMatchObject({ accepted: 1, ruleLessonsCreated: 0, ruleLessonsUpdated: 1, rulesPromoted: ['R-001'] });
    const rule = book.rule('R-001') as Rule;
    expect(rule).toMatchObject({ type: 'CHECK', category: 'git', tags: ['merge'], sourceLesson: 'L-001', confidenceScore: 0.9, status: 'active', violations: 0, createdMs: T0 + HOUR });
    expect(rule.rule).toBe('Check: search the diff for conflict markers before committing');
    expect(book.ruleLessons()[0]).toMatchObject({ promotedToRule: 'R-001', confidence: 'proven' });
    expect(book.ruleLessons()[0]?.sourceEventIds).toHaveLength(3);
    expect(book.eventCount()).toBe(3);
  }, TEST_MS);

  test('re-ingesting the same rows changes nothing', async () => {
    const lessons = book.ruleLessons();
    const again = await book.ingestEvents([mergeEvent(1), mergeEvent(2), mergeEvent(3), mergeEvent(3)], 'test', { nowMs: T0 + 2 * HOUR });
    expect(again).toMatchObject({ accepted: 0, duplicate: 4, ruleLessonsCreated: 0, ruleLessonsUpdated: 0, rulesPromoted: [] });
    expect(new Set(again.events.map((e) => e.status))).toEqual(new Set(['duplicate']));
    expect(book.ruleLessons()).toEqual(lessons);
    expect(ids(book.rules())).toEqual(['R-001']);
    expect(book.eventCount()).toBe(3);
  }, TEST_MS);

  test('concurrent ingests run one at a time: the same new event is accepted once and absorbed once', async () => {
    const event = row(5, { type: 'success', category: 'docs', tags: ['readme'], problem: 'the readme example ran first time', solution: 'keep examples runnable' });
    const [a, b] = await Promise.all([book.ingestEvents([event], 'test', { nowMs: T0 + HOUR }), book.ingestEvents([event], 'test', { nowMs: T0 + HOUR })]);
    expect([a.accepted, b.accepted]).toEqual([1, 0]);
    expect(b.duplicate).toBe(1);
    expect(book.ruleLessons().filter((l) => l.category === 'docs').map((l) => l.sourceEventIds.length)).toEqual([1]);
  }, TEST_MS);

  test('a failed commit leaves the in-memory state as it was, and the next call works', async () => {
    const lessons = book.ruleLessons();
    const original = book.store.commitLearning.bind(book.store);
    book.store.commitLearning = async () => {
      throw new Error('disk full');
    };
    try {
      await expect(book.ingestEvents([row(6, { type: 'mistake', category: 'docs', problem: 'linked to a dead page', solution: 'check links' })], 'test', { nowMs: T0 + HOUR })).rejects.toThrow('disk full');
    } finally {
      book.store.commitLearning = original;
    }
    expect(book.ruleLessons()).toEqual(lessons);
    expect(book.eventCount()).toBe(4);
    expect(await book.ingestEvents([mergeEvent(1)], 'test', { nowMs: T0 + HOUR })).toMatchObject({ duplicate: 1 });
  }, TEST_MS);

  test('bad rows are refused with their field; good rows in the batch are kept', async () => {
    const result = await book.ingestEvents(
      [
        { type: 'oops', category: 'git', problem: 'x' },
        { type: 'mistake', problem: 'no category' },
        { type: 'mistake', category: 'git', tags: ['ok', 7], problem: 'x' },
        'not an object',
        row(10, { type: 'discovery', category: 'docs', problem: 'the wiki has a search page', solution: 'look in the wiki first' }),
      ],
      'test',
      { nowMs: T0 + 2 * HOUR },
    );
    expect(result.rejected.map((r) => [r.index, r.field, r.code])).toEqual([
      [0, 'type', 'invalid_value'],
      [1, 'category', 'missing'],
      [2, 'tags.1', 'invalid_type'],
      [3, '(row)', 'not_an_object'],
    ]);
    expect(result.rejected[0]?.message).toContain('mistake, success, debug_session, feedback, discovery');
    expect(result).toMatchObject({ accepted: 1, duplicate: 0, ruleLessonsCreated: 1 });
    expect(result.events.map((e) => e.index)).toEqual([4]);
  }, TEST_MS);

  test('JSONL with a broken line: the line goes to the parse-error log, the good lines are learned from', async () => {
    const text = [JSON.stringify(rmEvent(20)), '{"type": "mistake", bad json', JSON.stringify(rmEvent(21)), '', JSON.stringify(rmEvent(22))].join('\n');
    const result = await book.ingestEventText(text, 'cli', 'events ingest', { nowMs: T0 + 3 * HOUR });
    expect(result).toMatchObject({ rows: 4, accepted: 3, rulesPromoted: ['R-002'], rejected: [] });
    expect(result.parseErrors.map((e) => e.line)).toEqual([2]);
    const [logged] = await book.parseErrors(10);
    expect(logged).toMatchObject({ tsMs: T0 + 3 * HOUR, line: '{"type": "mistake", bad json', script: 'events ingest' });
    expect(logged?.error).toContain('not valid JSON');
    expect(book.rule('R-002')).toMatchObject({ type: 'NEVER', category: 'shell', tags: ['rm', 'script'], rule: 'Never run rm -rf on a path built from a variable in a script' });
  }, TEST_MS);

  test('a MUST and a NEVER with overlapping scopes are both flagged and neither reaches the prompt', async () => {
    const result = await book.ingestEvents([mustDeploy(30), mustDeploy(31), mustDeploy(32), neverDeploy(33), neverDeploy(34), neverDeploy(35)], 'test', { nowMs: T0 + 4 * HOUR });
    expect(result.rulesPromoted).toEqual(['R-003', 'R-004']);
    expect(book.rule('R-003')).toMatchObject({ type: 'MUST', conflictsWith: ['R-004'], reviewFlagged: true });
    expect(book.rule('R-004')).toMatchObject({ type: 'NEVER', conflictsWith: ['R-003'], reviewFlagged: true });
    const prompt = book.promptRules({ text: 'deploy to production on friday', categories: ['deploy', 'shell'], nowMs: T0 + 4 * HOUR });
    expect(ids(prompt.selected.map((s) => s.rule))).toEqual(['R-002']);
    expect(prompt.text).toContain('[R-002 NEVER 0.90]');
    expect(ids(book.rules({ includeFlagged: false }))).toEqual(['R-002', 'R-001']);
    expect(ids(book.rules({ category: 'deploy' }))).toEqual(['R-004', 'R-003']);
  }, TEST_MS);

  test('rules are ELO content (kind rule), conflicting ones are not', async () => {
    const elo: EloBookService = await eloBookOf(agent.runtime);
    const found = elo.searchContent('rm -rf path variable script', 10).map((m) => `${m.item.kind}:${m.item.id}`);
    expect(found).toContain('rule:R-002');
    expect(elo.searchContent('deploy production friday mornings', 10).filter((m) => m.item.kind === 'rule')).toEqual([]);
  }, TEST_MS);

  test('retiring one side frees the other; validating it clears its flag and it is injected again', async () => {
    expect(await book.retireRule('R-004', T0 + 5 * HOUR)).toMatchObject({ ok: true, rule: { status: 'retired' } });
    expect(book.rule('R-003')).toMatchObject({ conflictsWith: [], reviewFlagged: true });
    expect(await book.retireRule('R-004', T0 + 5 * HOUR)).toMatchObject({ ok: false, code: 'retired' });
    expect(await book.validateRule('R-404', T0 + 5 * HOUR)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await book.validateRule('R-003', T0 + 5 * HOUR)).toMatchObject({ ok: true, rule: { reviewFlagged: false, validationCount: 1, lastValidatedMs: T0 + 5 * HOUR } });
    const prompt = book.promptRules({ text: '', categories: ['deploy'], nowMs: T0 + 5 * HOUR });
    expect(ids(prompt.selected.map((s) => s.rule))).toEqual(['R-003']);
  }, TEST_MS);

  test('the guard logs the matched rules; settling validates or violates them, with ledger entries and ELO moves', async () => {
    const ledger: RewardLedgerService = await rewardLedgerOf(agent.runtime);
    const elo: EloBookService = await eloBookOf(agent.runtime);
    const eloStart = elo.currentElo('rule', 'R-002', T0 + DAY);
    const action = 'run rm -rf on $BUILD_DIR in the cleanup script';
    const first = await book.guard(action, T0 + DAY);
    expect(first.matches.map((m) => m.rule.id)).toContain('R-002');
    expect(first.entry).toMatchObject({ tsMs: T0 + DAY, action, outcome: 'pending', matchedRules: first.matches.map((m) => m.rule.id) });
    expect(first.entry.id).toMatch(/^g-000000-[0-9a-f]{6}$/);

    const settled = await book.settleGuard(first.entry.id, { succeeded: true, actionText: 'ran the cleanup script after printing the folder' }, T0 + DAY);
    expect(settled).toMatchObject({ ok: true, entry: { outcome: 'success', saveLogged: true } });
    expect(settled.ok && settled.verdicts.find((v) => v.ruleId === 'R-002')).toEqual({ ruleId: 'R-002', verdict: 'validated' });
    expect(book.rule('R-002')).toMatchObject({ validationCount: 1, lastValidatedMs: T0 + DAY, violations: 0 });
    const eloAfterWin = elo.currentElo('rule', 'R-002', T0 + DAY);
    expect(eloAfterWin).toBeGreaterThan(eloStart);
    expect(await book.settleGuard(first.entry.id, { succeeded: false, actionText: action }, T0 + DAY)).toMatchObject({ ok: false, code: 'already_set' });
    expect(await book.settleGuard('g-000000-ffffff', { succeeded: true, actionText: action }, T0 + DAY)).toMatchObject({ ok: false, code: 'not_found' });

    const second = await book.guard(action, T0 + DAY + MINUTE);
    const broken = await book.settleGuard(second.entry.id, { succeeded: true, actionText: 'run rm -rf on a path built from a variable in the script' }, T0 + DAY + MINUTE);
    expect(broken.ok && broken.verdicts.find((v) => v.ruleId === 'R-002')).toEqual({ ruleId: 'R-002', verdict: 'violated' });
    expect(book.rule('R-002')).toMatchObject({ violations: 1, validationCount: 1 });
    expect(elo.currentElo('rule', 'R-002', T0 + DAY + MINUTE)).toBeLessThan(eloAfterWin);

    const validated = await ledger.history({ limit: 10, category: 'rule_validated' });
    expect(validated.map((t) => [t.source, t.source_ref, t.points])).toContainEqual(['rule', 'R-002#1', 10]);
    expect(validated.map((t) => [t.source, t.source_ref])).toContainEqual(['rule', 'R-003#1']);
    const violated = await ledger.history({ limit: 10, category: 'rule_violated' });
    expect(violated.map((t) => [t.source, t.source_ref, t.points])).toEqual([['rule', 'R-002#1', -20]]);
    expect((await ledger.verify()).ok).toBe(true);

    const log = await book.guardLog(2);
    expect(log.map((g) => [g.id, g.outcome])).toEqual([
      [second.entry.id, 'success'],
      [first.entry.id, 'success'],
    ]);
    expect(book.ruleLessons().find((l) => l.id === book.rule('R-002')?.sourceLesson)).toMatchObject({ timesSaved: 1 });
  }, TEST_MS);

  test('decay: from timestamps, flagged below 0.5, a skipped or repeated run changes nothing, validation resets', async () => {
    const policy = book.settings.policy;
    expect(await book.applyDecay(T0 + 5 * HOUR)).toEqual({ decayed: 0, flagged: 0 });
    const day20 = await book.applyDecay(T0 + 20 * DAY);
    expect(day20.flagged).toBe(0);
    expect(book.rule('R-001')?.confidenceScore).toBeCloseTo(ruleConfidenceAt(T0 + HOUR, T0 + 20 * DAY, policy), 12);
    expect(book.rule('R-001')?.confidenceScore).toBeLessThan(0.9);

    expect(await book.applyDecay(T0 + 40 * DAY)).toEqual({ decayed: 3, flagged: 3 });
    // The day-20 run did not compound: the value is the formula's at day 40 from the last validation.
    expect(book.rule('R-001')?.confidenceScore).toBeCloseTo(0.9 * 0.5 ** ((40 * DAY - HOUR - 7 * DAY) / DAY / 30), 12);
    expect(book.rule('R-002')).toMatchObject({ reviewFlagged: true, confidenceScore: ruleConfidenceAt(T0 + DAY, T0 + 40 * DAY, policy) });
    expect(book.rule('R-004')?.confidenceScore).toBe(0.9);
    expect(await book.applyDecay(T0 + 40 * DAY)).toEqual({ decayed: 0, flagged: 0 });
    expect(book.promptRules({ text: 'rm -rf in a script', categories: ['shell', 'git', 'deploy'], nowMs: T0 + 40 * DAY }).selected).toEqual([]);

    expect(await book.validateRule('R-002', T0 + 41 * DAY)).toMatchObject({ ok: true, rule: { confidenceScore: 0.9, reviewFlagged: false, validationCount: 2 } });
    expect(ids(book.promptRules({ text: 'rm -rf in a script', categories: ['shell'], nowMs: T0 + 41 * DAY }).selected.map((s) => s.rule))).toEqual(['R-002']);
    expect(book.rule('R-001')?.reviewFlagged).toBe(true);
  }, TEST_MS);

  test('metrics: the seed format over stored events, lessons, rules and guard entries', async () => {
    const metrics = await book.metrics(T0 + 41 * DAY);
    expect(metrics.started).toBe('2026-02-02');
    expect(metrics.totals).toEqual({ events: 14, lessons: 6, rules: 3, total_violations: 1, total_saves: 1, total_applied: 2, promoted: 4 });
    expect(metrics.weekly[0]).toMatchObject({ week: '2026-W06', events: { total: 14, mistakes: 6, debug_sessions: 3, feedback: 3, discoveries: 1, successes: 1 } });
    expect(metrics.weekly[1]?.satisfaction).toBeNull();
  }, TEST_MS);

  test('export, then a restart keeps events, lessons with vectors, rules, guard and parse-error logs', async () => {
    exported = book.exportRules({ agentHandle: 'tester', sourceWorkspace: '/work', nowMs: T0 + 41 * DAY });
    expect(exported.metadata).toMatchObject({ exported_rules_count: 4, total_rules_in_source: 4, filter_applied: false });
    expect(exported.signature).toMatchObject({ algorithm: 'Ed25519', key_id: SIGNER.keyId, public_key: SIGNER.publicBase64 });
    const before = { rules: book.rules(), lessons: book.ruleLessons(), guard: await book.guardLog(10), errors: await book.parseErrors(10), stored: await book.store.loadRuleLessons() };
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_RULE_SIGNING_KEY: SIGNER.privatePem } });
    book = await ruleBookOf(agent.runtime);
    expect(book.rules()).toEqual(before.rules);
    expect(book.ruleLessons()).toEqual(before.lessons);
    expect(book.eventCount()).toBe(14);
    expect(await book.guardLog(10)).toEqual(before.guard);
    expect(await book.parseErrors(10)).toEqual(before.errors);
    expect(await book.store.loadRuleLessons()).toEqual(before.stored);
    expect(before.stored.items.every((l) => l.vector?.source === 'lexical' && l.vector.values.length === 384)).toBe(true);
    const elo = await eloBookOf(agent.runtime);
    expect(elo.searchContent('rm -rf path variable script', 10).map((m) => `${m.item.kind}:${m.item.id}`)).toContain('rule:R-002');
  }, 2 * BOOT_MS);

  test('import into a fresh agent that trusts the signer gives the same rules; a second import skips them all; a tampered file names the rule, a re-hashed one the signature', async () => {
    await agent.close();
    const fresh = await startAgent({ settings: { SELF_IMPROVE_RULE_TRUSTED_KEYS: SIGNER.publicBase64 } });
    try {
      const other = await ruleBookOf(fresh.runtime);
      const result = await other.importRules(exported);
      expect(result).toMatchObject({ ok: true, added: ['R-001', 'R-002', 'R-003', 'R-004'], skipped: 0, trust: 'trusted', keyId: SIGNER.keyId });
      const byId = (wires: readonly ReturnType<typeof ruleToWire>[]) => Object.fromEntries(wires.map((w) => [w.id, w]));
      expect(byId(other.rules().map(ruleToWire))).toEqual(byId(exported.rules.map(({ _hash, _original_id, ...wire }) => wire)));
      expect(await other.importRules(exported)).toMatchObject({ ok: true, added: [], skipped: 4 });

      const tampered = structuredClone(exported);
      (tampered.rules[1] as { rule: string }).rule = 'Always run rm -rf on anything';
      expect(await other.importRules(tampered)).toMatchObject({ ok: false, code: 'bad_hash', ruleId: 'R-002', index: 1 });
      const rehashed = structuredClone(tampered);
      const { _hash: _old, ...body } = rehashed.rules[1] as ExportedRule;
      (rehashed.rules[1] as ExportedRule)._hash = ruleHash(body);
      rehashed.metadata.manifest_hash = manifestHash(rehashed.rules.map((r) => r._hash));
      expect(await other.importRules(rehashed)).toMatchObject({ ok: false, code: 'bad_signature', field: 'signature.value' });
      expect(other.rules()).toHaveLength(4);
    } finally {
      await fresh.close();
      agent = await startAgent({ dataDir: dir });
    }
  }, 3 * BOOT_MS);

  test('a file no trusted key signed imports as candidates, in no prompt, until approved', async () => {
    await agent.close();
    const fresh = await startAgent();
    try {
      const other = await ruleBookOf(fresh.runtime);
      const unsigned = signDocument(exported, null);
      expect(unsigned.signature).toEqual({ algorithm: 'none', note: UNSIGNED_NOTE });
      expect(await other.importRules(unsigned)).toMatchObject({ ok: true, added: ['R-001', 'R-002', 'R-003', 'R-004'], trust: 'unsigned' });
      const statuses = Object.fromEntries(other.rules().map((r) => [r.id, r.status]));
      const exportedStatuses = Object.fromEntries(exported.rules.map((r, i) => [`R-00${i + 1}`, r.status === 'active' ? 'candidate' : r.status]));
      expect(statuses).toEqual(exportedStatuses);
      expect(Object.values(statuses)).toContain('candidate');
      expect(other.promptRules({ text: 'run rm -rf on a path built from a variable in a script', nowMs: T0 + 41 * DAY }).selected).toEqual([]);
      // signed, but by a key this agent does not trust: the same
      expect(await other.importRules(exported)).toMatchObject({ ok: true, added: [], skipped: 4, trust: 'unknown_signer', keyId: SIGNER.keyId });
      const shellId = other.rules().find((r) => r.category === 'shell')?.id as string;
      expect((await other.approveRule(shellId, T0 + 41 * DAY)).ok).toBe(true);
      expect(other.rule(shellId)?.status).toBe('active');
      expect(other.promptRules({ text: 'run rm -rf on a path built from a variable in a script', nowMs: T0 + 41 * DAY }).selected.map((s) => s.rule.id)).toEqual([shellId]);
    } finally {
      await fresh.close();
      agent = await startAgent({ dataDir: dir });
    }
  }, 3 * BOOT_MS);
});

describe('the rule book with a TEXT_EMBEDDING model', () => {
  let dir: string;
  let agent: TestAgent;
  const models = createTestModelsPlugin();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-rules-model-'));
    agent = await startAgent({ dataDir: dir, plugins: [models.plugin] });
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }, BOOT_MS);

  test('lessons are clustered by model vectors, stored with them, and not re-embedded on restart', async () => {
    let book = await ruleBookOf(agent.runtime);
    expect(book.vectorizer.source).toBe('model');
    const callsBefore = models.calls.embedding;
    const result = await book.ingestEvents([rmEvent(1), rmEvent(2), rmEvent(3)], 'test', { nowMs: T0 + HOUR });
    expect(result).toMatchObject({ accepted: 3, ruleLessonsCreated: 1, rulesPromoted: ['R-001'] });
    // One vector per event, one for the new lesson.
    expect(models.calls.embedding - callsBefore).toBe(4);
    const stored = await book.store.loadRuleLessons();
    expect(stored.items.map((l) => l.vector?.source)).toEqual(['model']);
    const updatedAt = async () => queryRows<{ id: string; updated_at: unknown }>(dbOf(agent.runtime), sql`SELECT id, updated_at::text FROM ${ruleLessons}`);
    const writtenBefore = await updatedAt();
    await agent.close();
    agent = await startAgent({ dataDir: dir, plugins: [models.plugin] });
    book = await ruleBookOf(agent.runtime);
    expect(await book.store.loadRuleLessons()).toEqual(stored);
    expect(await updatedAt()).toEqual(writtenBefore);
    expect(book.ruleLessons()).toEqual(stored.items.map((l) => l.lesson));
    expect(book.rule('R-001')).toMatchObject({ type: 'NEVER', sourceLesson: 'L-001' });
  }, 3 * BOOT_MS);

  test('a lesson stored under another model (other dimension) is embedded again and stored; a lexical run leaves model vectors alone', async () => {
    let book = await ruleBookOf(agent.runtime);
    const [first] = book.ruleLessons();
    const odd: RuleLesson = { ...(first as RuleLesson), id: 'L-002' };
    await book.store.upsertRuleLessons([{ lesson: odd, vector: { values: [0.25, -0.5, 0.75], source: 'model' } }]);
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    book = await ruleBookOf(agent.runtime);
    expect(book.vectorizer.source).toBe('lexical');
    const storedVector = async () => (await book.store.loadRuleLessons()).items.find((l) => l.lesson.id === 'L-002')?.vector;
    expect(await storedVector()).toEqual({ values: [0.25, -0.5, 0.75], source: 'model' });
    await agent.close();
    agent = await startAgent({ dataDir: dir, plugins: [models.plugin] });
    book = await ruleBookOf(agent.runtime);
    const reembedded = await storedVector();
    expect(reembedded?.source).toBe('model');
    expect(reembedded?.values).toHaveLength(384);
    expect(await book.ingestEvents([rmEvent(4)], 'test', { nowMs: T0 + HOUR })).toMatchObject({ accepted: 1, ruleLessonsCreated: 0, ruleLessonsUpdated: 1 });
  }, 4 * BOOT_MS);
});

describe('scan lessons become rules', () => {
  const scanLesson = (i: number, patch: Partial<StoredScanLesson['metadata']>): StoredScanLesson => {
    const lesson = syntheticScanLesson(i);
    return { ...lesson, metadata: { ...lesson.metadata, ...patch } };
  };
  const strong = { sample_size: 40, confidence: 0.9, reinforcements: 4, first_learned_at: new Date(T0 - 20 * DAY).toISOString(), last_seen: new Date(T0).toISOString() };

  test.each<[string, string[]]>([
    ['on', ['R-001']],
    ['off', []],
  ])('SELF_IMPROVE_SCAN_RULE_PROMOTION=%s: a lesson with strong, lasting support is promoted once; a small one is not', async (setting, expected) => {
    const agent = await startAgent({ settings: { SELF_IMPROVE_SCAN_RULE_PROMOTION: setting } });
    try {
      const strongLesson = scanLesson(0, strong);
      const lessons = [strongLesson, scanLesson(1, { ...strong, sample_size: 29 })];
      for (const l of lessons) await agent.service.scanLessons.create(l.id, l.text, l.metadata, lexicalVector(l.text), T0);
      const book = await ruleBookOf(agent.runtime);
      expect(await book.promoteScanLessons(T0 + DAY)).toEqual(expected);
      expect(await book.promoteScanLessons(T0 + DAY)).toEqual([]);
      expect(book.rules().map((r) => [r.id, r.type, r.category, r.sourceLesson])).toEqual(expected.map((id) => [id, 'CHECK', 'xss', strongLesson.id]));
    } finally {
      await agent.close();
    }
  }, 2 * BOOT_MS);
});
