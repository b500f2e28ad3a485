import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { RouteRequest } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { handleGetScanLessons, handleGetWeeklyMetrics } from '../../src/scan/surfaces/learning-routes';
import { handleGetTrajectories } from '../../src/trajectories/surfaces/trajectory-routes';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { recordingResponse } from '../helpers/route-response';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

const BOOT_MS = 60_000;
const get = (path: string, query: Record<string, string> = {}): RouteRequest => ({ query, headers: {}, method: 'GET', path: `/self-improve${path}` });
type Body = Record<string, any>;

describe('the read routes of the dashboard on a real runtime', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
    // two groups of ten ignored findings (2026-11-03 and 2026-11-10): one lesson each
    await agent.service.ingest(makeRows({ n: 10, labels: ['ignored'], keyPrefix: 'a', project: 'billing', confidence: 0.9, startIso: '2026-11-03T09:00:00Z' }));
    await agent.service.ingest(makeRows({ n: 10, labels: ['fixed'], keyPrefix: 'b', project: 'payments', startIso: '2026-11-10T09:00:00Z' }));
    await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  async function call(handler: typeof handleGetScanLessons, req: RouteRequest): Promise<{ status: number; body: Body }> {
    const { res, sent } = recordingResponse();
    await handler(req, res, agent.runtime);
    return { status: sent.status, body: sent.body as Body };
  }

  test('the plugin registers them', () => {
    const registered = (selfImprovePlugin.routes ?? []).map((r) => `${r.type} ${r.path}`);
    expect(registered).toContain('GET /lessons');
    expect(registered).toContain('GET /metrics/weekly');
  });

  test('GET /lessons: newest evidence first, every field the dashboard shows, ELO now; ids and limit narrow it', async () => {
    const lessons = agent.service.listScanLessons();
    expect(lessons.length).toBeGreaterThanOrEqual(2);
    const all = await call(handleGetScanLessons, get('/lessons'));
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(lessons.length);
    expect(all.body.lessons.map((l: Body) => l.id)).toEqual(lessons.map((l) => l.id));
    const first = lessons[0];
    expect(all.body.lessons[0]).toEqual({
      id: first?.id,
      text: first?.text,
      category: first?.metadata.category,
      confidence: first?.metadata.confidence,
      sample_size: first?.metadata.sample_size,
      avg_reward: first?.metadata.avg_reward,
      evidence_count: first?.metadata.evidence_count,
      window_start: first?.metadata.window_start,
      window_end: first?.metadata.window_end,
      first_learned_at: first?.metadata.first_learned_at,
      last_seen: first?.metadata.last_seen,
      project: first?.metadata.project,
      scanner: 'semgrep',
      model: 'openai/gpt-4o',
      finding_category: null,
      elo: 1200,
    });

    const last = lessons[lessons.length - 1];
    const byId = await call(handleGetScanLessons, get('/lessons', { ids: `${last?.id},00000000-0000-4000-8000-000000000000` }));
    expect(byId.body.lessons.map((l: Body) => l.id)).toEqual([last?.id]);
    expect((await call(handleGetScanLessons, get('/lessons', { limit: '1' }))).body.lessons).toHaveLength(1);

    const book = await eloBookOf(agent.runtime);
    book.recordRetrieval({ tool: 'semantic_search', query: 'q', results: [{ kind: 'lesson', id: last?.id as string, rank: 1 }] });
    const best = await call(handleGetScanLessons, get('/lessons', { sort: 'elo', limit: '1' }));
    // rank 1 of one: +16 (drift over the milliseconds since is negligible)
    expect(best.body.lessons.map((l: Body) => [l.id, l.elo])).toEqual([[last?.id, expect.closeTo(1216, 3)]]);
  });

  test.each([
    [{ limit: '0' }, 'limit must be an integer from 1 to 100 (got "0")'],
    [{ limit: '101' }, 'limit must be an integer from 1 to 100 (got "101")'],
    [{ sort: 'best' }, 'sort must be one of newest, elo (got "best")'],
    [{ ids: 'L1' }, 'ids must be comma-separated UUIDs (got "L1")'],
  ])('GET /lessons refuses %j with a 400 naming it', async (query, error) => {
    expect(await call(handleGetScanLessons, get('/lessons', query))).toEqual({ status: 400, body: { error } });
  });

  test('GET /metrics/weekly: the weeks ending with the one holding now, oldest first', async () => {
    const answer = await call(handleGetWeeklyMetrics, get('/metrics/weekly', { weeks: '3', now: '2026-11-12T00:00:00Z', k: '5' }));
    expect(answer.status).toBe(200);
    expect(answer.body.k).toBe(5);
    expect(answer.body.series.map((w: Body) => [w.week_start.slice(0, 10), w.findings, w.false_positive_rate, w.precision_at_k, w.calibration_error])).toEqual([
      ['2026-10-26', 0, null, null, null],
      ['2026-11-02', 10, 0, 0, expect.closeTo(0.9, 12)],
      ['2026-11-09', 10, 0, null, null],
    ]);
    const byDefault = await call(handleGetWeeklyMetrics, get('/metrics/weekly'));
    expect(byDefault.body.series).toHaveLength(12);
    expect(byDefault.body.k).toBe(20);
  });

  test.each([
    [{ weeks: '0' }, 'weeks must be an integer from 1 to 52 (got "0")'],
    [{ weeks: '53' }, 'weeks must be an integer from 1 to 52 (got "53")'],
    [{ k: '0' }, 'k must be an integer from 1 to 100000 (got "0")'],
    [{ now: 'yesterday' }, 'now must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got "yesterday")'],
  ])('GET /metrics/weekly refuses %j with a 400 naming it', async (query, error) => {
    expect(await call(handleGetWeeklyMetrics, get('/metrics/weekly', query))).toEqual({ status: 400, body: { error } });
  });

  test('GET /trajectories takes a limit from 1 to 1000 and a before cursor', async () => {
    expect(await call(handleGetTrajectories, get('/trajectories', { limit: '0' }))).toEqual({ status: 400, body: { error: 'limit must be an integer from 1 to 1000 (got "0")' } });
    expect(await call(handleGetTrajectories, get('/trajectories', { limit: '1001' }))).toEqual({ status: 400, body: { error: 'limit must be an integer from 1 to 1000 (got "1001")' } });
    expect(await call(handleGetTrajectories, get('/trajectories', { limit: 'ten' }))).toEqual({ status: 400, body: { error: 'limit must be an integer from 1 to 1000 (got "ten")' } });
    expect(await call(handleGetTrajectories, get('/trajectories', { before: 'not a cursor' }))).toEqual({ status: 400, body: { error: 'before must be the next_before of a previous page (got "not a cursor")' } });
    expect(await call(handleGetTrajectories, get('/trajectories', { limit: '5' }))).toEqual({ status: 200, body: { count: 0, accepted: 0, paid_sats: 0, trajectories: [], next_before: null } });
  });

  test('a stored trajectory keeps its commands redacted, and GET /trajectories sends no transcript', async () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const service = await trajectoryServiceOf(agent.runtime);
    const { stored } = await service.submit([`$ npm test -- --api-key=${secret}`, 'Tests: 3 passed, 3 total'].join('\n'), 'cli', 'with-a-secret', { pay: false });
    // the commands are read from the raw text, and redacted before anything is stored
    expect(stored.evaluation.checks.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(secret);
    const memory = await agent.runtime.getMemoryById(stored.id);
    expect(JSON.stringify(memory?.metadata)).not.toContain(secret);
    const listed = await call(handleGetTrajectories, get('/trajectories'));
    expect(listed.body.count).toBe(1);
    const [only] = listed.body.trajectories as Body[];
    expect(only).not.toHaveProperty('transcript');
    expect(only?.evaluation.checks.length).toBe(stored.evaluation.checks.length);
    expect(only?.evaluation.checks.every((c: Body) => c.command.startsWith('npm test -- --api-key=[REDACTED:'))).toBe(true);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });
});
