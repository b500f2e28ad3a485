// Requests that reach the real server while the agent's services are still starting: the runtime
// starts the services after `initialize`, and the server routes to the agent from when its plugins
// are registered. They wait for the start (README, Surfaces: HTTP) instead of answering 503, and a
// text body is read whole though it arrived before the handler read it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { request } from './http';
import { type RealServer, startRealServer } from './real-server';

const ROW = { finding_key: 'early-1', label: 'fixed', ts: '2026-11-20T10:00:00Z', project: 'p', scanner: 's', model_provider: 'm', model_name: 'n' };
const EVENT = { ts: '2026-11-20T10:00:00Z', type: 'mistake', category: 'git', tags: [], problem: 'pushed to main', solution: 'push to a branch' };
const EARLY = [
  { method: 'GET', path: '/self-improve/ledger/score' },
  { method: 'GET', path: '/self-improve/rules' },
  { method: 'GET', path: '/self-improve/elo' },
  { method: 'GET', path: '/self-improve/trajectories' },
  { method: 'GET', path: '/self-improve/lessons' },
  { method: 'POST', path: '/self-improve/outcomes', contentType: 'application/x-ndjson', body: JSON.stringify(ROW) },
  { method: 'POST', path: '/self-improve/events', contentType: 'text/plain', body: JSON.stringify(EVENT) },
];

interface EarlyAnswers {
  missed?: true;
  startedWhenSent: string[];
  answers: { path: string; status: number; text: string }[];
}

describe('requests sent while the services are starting (the packed plugin in the real server)', () => {
  let server: RealServer;
  let early: EarlyAnswers;
  beforeAll(async () => {
    server = await startRealServer({ env: { E2E_EARLY_REQUESTS: JSON.stringify(EARLY) } });
    const line = server
      .output()
      .split('\n')
      .find((l) => l.startsWith('E2E_EARLY '));
    early = JSON.parse(line?.slice('E2E_EARLY '.length) ?? '{"missed":true}') as EarlyAnswers;
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('were sent before the ledger service had started, and every one was answered as once it had', async () => {
    expect(early.missed).toBeUndefined();
    expect(early.startedWhenSent).not.toContain('reward-ledger');
    expect(early.answers.map((a) => [a.path, a.status])).toEqual(EARLY.map((r) => [r.path, 200]));
    const byPath = Object.fromEntries(early.answers.map((a) => [`${a.path}`, JSON.parse(a.text)]));
    expect(byPath['/self-improve/ledger/score']).toMatchObject({ checksum: { is_valid: true } });
    expect(byPath['/self-improve/outcomes']).toMatchObject({ rows: 1, accepted: 1, rejected: [] });
    expect(byPath['/self-improve/events']).toMatchObject({ rows: 1, accepted: 1, rejected: [] });
  });

  test('what the early writes sent is stored: the outcome is paid in the ledger', async () => {
    const history = await request(server.rootUrl('/ledger/history?category=finding_fixed&limit=10'));
    expect(history.status).toBe(200);
    expect(history.json.transactions).toHaveLength(1);
  });
});
