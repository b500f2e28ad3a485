import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { post, request } from './http';
import { type RealServer, startRealServer } from './real-server';

const SERVER_KEY = 'e2e-server-key-0123456789abcdef';
const PLUGIN_TOKEN = 'e2e-plugin-token-0123456789abcdef';
const ROW = { finding_key: 'access-1', label: 'fixed', ts: '2026-11-20T10:00:00Z', project: 'p', scanner: 's', model_provider: 'm', model_name: 'n' };

/** A session log that scores high: two commits, 25 tool steps, a passing test run (the shape of a made-up log someone might send to mint rewards). */
function sessionLog(variant: string): string {
  const steps = Array.from({ length: 25 }, (_, i) => `$ grep -n "total" src/module${i}.ts`);
  return [
    ...steps,
    '$ npm test',
    'Tests: 120 passed, 120 total',
    `$ git commit -am "Fix rounding in totals ${variant}"`,
    '[main 9d8c7b6] Fix rounding in totals',
    '$ git commit -am "Cover the rounding edge cases"',
    '[main 1a2b3c4] Cover the rounding edge cases',
  ].join('\n');
}

async function trajectoryEntries(server: RealServer, headers: Record<string, string> = {}): Promise<unknown[]> {
  const history = await request(server.rootUrl('/ledger/history?category=trajectory_accepted&limit=1000'), { headers });
  expect(history.status).toBe(200);
  return history.json.transactions;
}

describe('with no key configured', () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer();
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('an anonymous trajectory is scored and stored but pays nothing, under any id', async () => {
    const first = await post(server.rootUrl('/trajectories?id=made-up-1'), 'text/plain', sessionLog('a'));
    expect(first.status).toBe(200);
    expect(first.json.trajectory.evaluation.accepted).toBe(true);
    expect(first.json.trajectory.evaluation.reward.total_sats).toBeGreaterThan(0);
    expect(first.json.trajectory.paid_sats).toBe(0);
    const again = await post(server.agentUrl('/trajectories?id=made-up-2'), 'text/plain', sessionLog('a'));
    expect(again.json.trajectory.id).toBe(first.json.trajectory.id);
    expect(await trajectoryEntries(server)).toEqual([]);
  });
});

describe('with ELIZA_SERVER_AUTH_TOKEN and SELF_IMPROVE_API_TOKEN set', () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer({ env: { ELIZA_SERVER_AUTH_TOKEN: SERVER_KEY }, settings: { SELF_IMPROVE_API_TOKEN: PLUGIN_TOKEN, SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: '100000' } });
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('every write route refuses an anonymous caller at the server root too, naming what to send', async () => {
    const writes: [string, string, string][] = [
      ['/outcomes', 'application/json', JSON.stringify([ROW])],
      ['/outcomes', 'application/x-ndjson', JSON.stringify(ROW)],
      ['/events', 'text/plain', '{"type":"mistake","problem":"p","solution":"s"}'],
      ['/trajectories', 'text/plain', sessionLog('anon')],
      ['/triage', 'application/json', JSON.stringify([ROW])],
    ];
    for (const [route, type, body] of writes) {
      const atRoot = await post(server.rootUrl(route), type, body);
      expect([route, atRoot.status]).toEqual([route, 401]);
      expect(atRoot.json.error).toContain('needs a key: send X-API-KEY');
      const underApi = await post(server.agentUrl(route), type, body);
      expect([route, underApi.status]).toEqual([route, 401]);
    }
    const wrongKey = await post(server.rootUrl('/outcomes'), 'application/json', JSON.stringify([ROW]), { 'x-api-key': 'not-the-key-0123456789' });
    expect(wrongKey.status).toBe(401);
    expect((await request(server.rootUrl('/metrics'))).json.overall.outcomes).toBe(0);
  });

  test('the server key and the plugin token are accepted; reads stay public (the documented default)', async () => {
    const withServerKey = await post(server.agentUrl('/outcomes'), 'application/json', JSON.stringify([ROW]), { 'x-api-key': SERVER_KEY });
    expect(withServerKey.status).toBe(200);
    const withPluginToken = await post(server.rootUrl('/outcomes'), 'application/json', JSON.stringify([{ ...ROW, finding_key: 'access-2' }]), { authorization: `Bearer ${PLUGIN_TOKEN}` });
    expect(withPluginToken.status).toBe(200);
    expect(withPluginToken.json.accepted).toBe(1);
    expect((await request(server.rootUrl('/ledger/score'))).status).toBe(200);
    expect((await request(server.agentUrl('/ledger/score'))).status).toBe(401);
  });

  test('a trajectory sent with a key pays once, whatever id it is sent under', async () => {
    const headers = { 'x-api-key': SERVER_KEY };
    const first = await post(server.agentUrl('/trajectories?id=real-1'), 'text/plain', sessionLog('b'), headers);
    expect(first.status).toBe(200);
    const earned = first.json.trajectory.evaluation.reward.total_sats;
    expect(earned).toBeGreaterThan(0);
    expect(first.json.trajectory.paid_sats).toBe(earned);
    const again = await post(server.agentUrl('/trajectories?id=real-2'), 'text/plain', sessionLog('b'), headers);
    expect(again.json.trajectory).toMatchObject({ id: first.json.trajectory.id, paid_sats: earned });
    const entries = (await trajectoryEntries(server)) as { points: number; source_ref: string }[];
    expect(entries.map((e) => [e.points, e.source_ref])).toEqual([[earned, first.json.trajectory.id]]);
  });
});
