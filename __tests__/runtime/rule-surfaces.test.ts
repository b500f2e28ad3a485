import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { RouteRequest } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { UNSIGNED_NOTE } from '../../src/rules/model/signing';
import { handleApproveRule, handleExportRules, handleGetRuleMetrics, handleGetRules, handlePostEvents, handleRejectRule, ruleRoutes } from '../../src/rules/surfaces/rule-routes';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { jsonl, mergeEvent, mustDeploy, neverDeploy, rmEvent, thrice } from '../helpers/seed-events';

const BOOT_MS = 60_000;
const TEST_MS = 60_000;

const post = (body: unknown, headers: Record<string, string> = {}): RouteRequest => ({ body, headers, method: 'POST', path: '/self-improve/events' });
const get = (path: string, query: Record<string, string> = {}): RouteRequest => ({ query, headers: {}, method: 'GET', path: `/self-improve${path}` });

type Body = Record<string, unknown>;

describe('rules routes on a real runtime', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  beforeAll(async () => {
    agent = await startAgent();
    book = await ruleBookOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  async function call(handler: typeof handlePostEvents, req: RouteRequest): Promise<{ status: number; body: Body }> {
    const { res, sent } = recordingResponse();
    await handler(req, res, agent.runtime);
    return { status: sent.status, body: sent.body as Body };
  }

  test('the plugin registers the routes', () => {
    const registered = (selfImprovePlugin.routes ?? []).map((r) => `${r.type} ${r.path}`);
    expect(ruleRoutes.map((r) => `${r.type} ${r.path}`)).toEqual(['POST /events', 'GET /rules', 'GET /rules/metrics', 'GET /rules/export', 'POST /rules/:id/approve', 'POST /rules/:id/reject']);
    for (const route of ruleRoutes) expect(registered).toContain(`${route.type} ${route.path}`);
  });

  test('POST /events, JSONL: a broken line and a bad row are refused by line and named, the good rows kept and promoted; the broken line is in the parse-error log', async () => {
    const body = jsonl([...thrice(mergeEvent, 1), '{"ts": "2026-02-02T10:00:00Z", "type": "mist', { ...mergeEvent(9), type: 'lesson' }]);
    const { status, body: report } = await call(handlePostEvents, post(body));
    expect(status).toBe(400);
    expect(report).toMatchObject({ rows: 5, accepted: 3, duplicate: 0, parse_errors: 1, lessons_created: 1, rules_promoted: ['R-001'] });
    expect(report.rejected).toEqual([
      { line: 4, field: '(line)', message: expect.stringContaining('not valid JSON') },
      { line: 5, field: 'type', message: 'type must be one of mistake, success, debug_session, feedback, discovery (got "lesson")' },
    ]);
    const [logged] = await book.parseErrors(10);
    expect(logged).toMatchObject({ line: '{"ts": "2026-02-02T10:00:00Z", "type": "mist', script: 'POST /self-improve/events' });
    expect(book.rule('R-001')).toMatchObject({ type: 'CHECK', category: 'git' });

    const again = await call(handlePostEvents, post(jsonl(thrice(mergeEvent, 1))));
    expect(again).toEqual({ status: 200, body: expect.objectContaining({ rows: 3, accepted: 0, duplicate: 3, rejected: [], rules_promoted: [] }) });
  }, TEST_MS);

  test('POST /events, a parsed JSON array: refused rows by 0-based index, naming the field; one object alone is a batch of one', async () => {
    const rows = [...thrice(rmEvent, 20), { ...rmEvent(23), category: 'Not A Category!' }];
    const { status, body } = await call(handlePostEvents, post(rows));
    expect(status).toBe(400);
    expect(body).toMatchObject({ rows: 4, accepted: 3, parse_errors: 0, rules_promoted: ['R-002'] });
    expect(body.rejected).toEqual([{ index: 3, field: 'category', message: expect.stringContaining('category must be lower-case letters') }]);

    const one = await call(handlePostEvents, post(rmEvent(24)));
    expect(one).toEqual({ status: 200, body: expect.objectContaining({ rows: 1, accepted: 1, rejected: [] }) });
  }, TEST_MS);

  test('POST /events: 413 above SELF_IMPROVE_MAX_BODY_BYTES, 400 for an empty body', async () => {
    const large = await call(handlePostEvents, post(jsonl([mergeEvent(40)]), { 'content-length': String(6 * 1_048_576) }));
    expect(large.status).toBe(413);
    expect(large.body.error).toContain('SELF_IMPROVE_MAX_BODY_BYTES (5242880 bytes)');
    const empty = await call(handlePostEvents, post('  \n'));
    expect(empty).toEqual({ status: 400, body: { error: 'body must be a JSON array of events, one event object, or JSONL (seed 003 event format)' } });
  }, TEST_MS);

  test('GET /rules: seed field names with confidence, conflicts, filters; bad parameters are named with their values', async () => {
    await book.ingestEvents([...thrice(mustDeploy, 30), ...thrice(neverDeploy, 33)], 'test');
    const all = await call(handleGetRules, get('/rules'));
    expect(all.status).toBe(200);
    const listed = all.body.rules as Body[];
    // type priority (NEVER, MUST, CHECK, PREFER), then id
    expect(listed.map((r) => [r.id, r.type, r.category])).toEqual([
      ['R-002', 'NEVER', 'shell'],
      ['R-004', 'NEVER', 'deploy'],
      ['R-003', 'MUST', 'deploy'],
      ['R-001', 'CHECK', 'git'],
    ]);
    expect(Object.keys(listed[0] as Body).sort()).toEqual(
      ['id', 'type', 'category', 'rule', 'reason', 'created', 'source_lesson', 'violations', 'last_checked', 'last_validated', 'validation_count', 'confidence_score', 'review_flagged', 'tags', 'status', 'conflicts_with', 'confidence_now', 'injectable'].sort(),
    );
    expect(listed[0]).toMatchObject({ rule: 'Never run rm -rf on a path built from a <b>variable</b> in a script', confidence_score: 0.9, confidence_now: 0.9, review_flagged: false, injectable: true, conflicts_with: [] });
    expect(listed[2]).toMatchObject({ confidence_score: 0.9, review_flagged: true, injectable: false, conflicts_with: ['R-004'] });
    expect(all.body).toMatchObject({ count: 4, flagged: 2, conflicts: [{ rules: ['R-003', 'R-004'], category: 'deploy' }] });

    const unflagged = await call(handleGetRules, get('/rules', { include_flagged: 'false' }));
    expect((unflagged.body.rules as Body[]).map((r) => r.id)).toEqual(['R-002', 'R-001']);
    expect(unflagged.body.conflicts).toEqual([]);
    const deploy = await call(handleGetRules, get('/rules', { category: 'deploy' }));
    expect((deploy.body.rules as Body[]).map((r) => r.id)).toEqual(['R-004', 'R-003']);

    expect((await book.retireRule('R-004')).ok).toBe(true);
    expect(((await call(handleGetRules, get('/rules'))).body.rules as Body[]).map((r) => r.id)).toEqual(['R-002', 'R-003', 'R-001']);
    expect(((await call(handleGetRules, get('/rules', { status: 'retired' }))).body.rules as Body[]).map((r) => [r.id, r.status])).toEqual([['R-004', 'retired']]);
    expect(((await call(handleGetRules, get('/rules', { status: 'all' }))).body as Body).count).toBe(4);

    expect(await call(handleGetRules, get('/rules', { status: 'gone' }))).toEqual({ status: 400, body: { error: 'status must be one of active, retired, candidate, rejected, all (got "gone")' } });
    expect(await call(handleGetRules, get('/rules', { include_flagged: 'yes' }))).toEqual({ status: 400, body: { error: 'include_flagged must be one of true, false (got "yes")' } });
  }, TEST_MS);

  test('GET /rules/metrics: the seed metrics format, key for key', async () => {
    const { status, body } = await call(handleGetRuleMetrics, get('/rules/metrics'));
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['version', 'started', 'weekly', 'totals']);
    expect(body).toMatchObject({ version: '1.4.0', started: '2026-02-02' });
    const weekly = body.weekly as Body[];
    expect(weekly[0]?.week).toBe('2026-W06');
    expect(Object.keys(weekly[0] as Body)).toEqual(['week', 'generated', 'events', 'regressions', 'rules_active', 'lessons_total', 'lessons_promoted', 'total_violations', 'satisfaction']);
    expect(Object.keys((weekly[0] as Body).events as Body)).toEqual(['total', 'mistakes', 'successes', 'debug_sessions', 'feedback', 'discoveries']);
    // W06 (from 2026-02-02): 3 merge debug sessions, 4 rm mistakes, 3 feedback and 3 deploy mistakes
    expect((weekly[0] as Body).events).toEqual({ total: 13, mistakes: 7, successes: 0, debug_sessions: 3, feedback: 3, discoveries: 0 });
    expect(Object.keys(body.totals as Body)).toEqual(['events', 'lessons', 'rules', 'total_violations', 'total_saves', 'total_applied', 'promoted']);
    expect(body.totals).toMatchObject({ events: 13, lessons: 4, rules: 3, promoted: 4 });
  }, TEST_MS);

  test('GET /rules/export?category=C: the seed export format with the agent name and only that category', async () => {
    const { status, body } = await call(handleExportRules, get('/rules/export', { category: 'deploy' }));
    expect(status).toBe(200);
    expect(body.metadata).toMatchObject({ export_format: 'learning-loop-rules', agent_handle: agent.runtime.character.name, filter_applied: true, filter_category: 'deploy', total_rules_in_source: 4, exported_rules_count: 2 });
    expect((body.rules as Body[]).map((r) => [r.id, r._original_id])).toEqual([
      ['R-003', 'R-003'],
      ['R-004', 'R-004'],
    ]);
    // no SELF_IMPROVE_RULE_SIGNING_KEY on this agent: the document says it is unsigned
    expect(body.signature).toEqual({ algorithm: 'none', note: UNSIGNED_NOTE });
  }, TEST_MS);

  test('POST /rules/:id/approve and /reject decide candidates (the operator is trusted); other rules and ids are refused by status', async () => {
    const unsigned = (await call(handleExportRules, get('/rules/export', { category: 'shell' }))).body;
    const imported = await book.importRules({ ...unsigned, rules: (unsigned.rules as Body[]).map((r) => ({ ...r })) });
    expect(imported).toMatchObject({ ok: true, added: [], trust: 'unsigned' });
    const candidate = await book.recordDraft(
      { tsMs: Date.parse('2026-02-10T09:00:00Z'), type: 'feedback', category: 'docs', tags: [], problem: 'the changelog was not updated', solution: 'Always update the changelog', evidenceLevel: 'testing', source: 'chat', polarity: 'negative' },
      'chat',
      { teacher: { entityId: '3c6e4c1a-7c3d-4e3a-9f5d-3b4a5f6e7d8c', trusted: false } },
    );
    expect(candidate.candidates).toEqual(['R-005']);
    const decide = (handler: typeof handleApproveRule, id: string) => call(handler, { params: { id }, headers: {}, method: 'POST', path: `/self-improve/rules/${id}` });

    const approved = await decide(handleApproveRule, 'r-5');
    expect(approved).toMatchObject({ status: 200, body: { rule: { id: 'R-005', status: 'active', injectable: true } } });
    expect(await decide(handleApproveRule, 'R-005')).toEqual({ status: 409, body: { error: 'rule R-005 is active, not a candidate', code: 'not_candidate' } });
    expect(await decide(handleRejectRule, 'R-404')).toEqual({ status: 404, body: { error: 'no rule R-404', code: 'not_found' } });
    expect(await decide(handleRejectRule, 'L-001')).toEqual({ status: 400, body: { error: 'the path must name a rule id like R-004 (got "L-001")' } });

    await book.recordDraft(
      { tsMs: Date.parse('2026-02-10T10:00:00Z'), type: 'mistake', category: 'comms', tags: [], problem: 'replied to the wrong thread', solution: 'Never reply to a thread you have not read', evidenceLevel: 'testing', source: 'chat', polarity: 'negative' },
      'chat',
      { teacher: { entityId: '3c6e4c1a-7c3d-4e3a-9f5d-3b4a5f6e7d8c', trusted: false } },
    );
    expect(await decide(handleRejectRule, 'R-006')).toMatchObject({ status: 200, body: { rule: { id: 'R-006', status: 'rejected', injectable: false } } });
    expect(((await call(handleGetRules, get('/rules', { status: 'rejected' }))).body.rules as Body[]).map((r) => r.id)).toEqual(['R-006']);
  }, TEST_MS);
});
