// The runtime starts the plugin's services after `initialize` returns, while the server already
// routes requests and messages to the agent. Every surface waits for the start (bounded) instead of
// answering 503 or leaving the prompt without what the agent has learned.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Memory, type RouteRequest, stringToUuid } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { ruleBookOf } from '../../src/rules/rule-book-service';
import { PLUGIN_SERVICES } from '../../src/shared/service-names';
import { emptyState, startAgent } from '../helpers/runtime';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { mergeEvent, thrice } from '../helpers/seed-events';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-before-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (route: string): RouteRequest => ({ query: {}, headers: {}, method: 'GET', path: `/self-improve${route}` });

describe('surfaces used while the services are starting', () => {
  test('routes of every service answer 200 with the stored data, and the prompt carries the stored rule', async () => {
    const dataDir = path.join(dir, 'db');
    const first = await startAgent({ dataDir });
    await first.service.ingest(makeRows({ n: 12, labels: ['fixed', 'rejected_fp'], category: 'xss' }));
    const book = await ruleBookOf(first.runtime);
    await book.ingestEvents(thrice(mergeEvent, 1), 'test');
    expect(book.rule('R-001')?.status).toBe('active');
    await first.close();

    const booted = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: { EMBEDDING_DIMENSION: '384' } });
    const runtime = booted.runtime;
    try {
      // The window: initialize has returned, no service of the plugin has started yet.
      expect(PLUGIN_SERVICES.filter((type) => runtime.hasService(type))).toEqual([]);
      const route = (p: string) => {
        const found = (selfImprovePlugin.routes ?? []).find((r) => r.type === 'GET' && r.path === p);
        if (!found?.handler) throw new Error(`no GET ${p}`);
        const { res, sent } = recordingResponse();
        return Promise.resolve(found.handler(get(p), res, runtime)).then(() => sent);
      };
      const message: Memory = {
        id: stringToUuid('before-start-message'),
        entityId: stringToUuid('before-start-user'),
        agentId: runtime.agentId,
        roomId: stringToUuid('before-start-room'),
        content: { text: 'I am about to merge the release branch into main' },
        createdAt: Date.now(),
      };
      const rulesProvider = (selfImprovePlugin.providers ?? []).find((p) => p.name === 'TOP_RULES');
      if (!rulesProvider) throw new Error('no TOP_RULES provider');
      // Everything asked at once, inside the window.
      const [score, rules, elo, trajectories, lessons, prompt] = await Promise.all([
        route('/ledger/score'),
        route('/rules'),
        route('/elo'),
        route('/trajectories'),
        route('/lessons'),
        rulesProvider.get(runtime, message, emptyState()),
      ]);
      expect([score.status, rules.status, elo.status, trajectories.status, lessons.status]).toEqual([200, 200, 200, 200, 200]);
      expect(score.body).toMatchObject({ lifetime_score: 180, checksum: { is_valid: true } });
      expect(((rules.body as { rules: { id: string }[] }).rules ?? []).map((r) => r.id)).toEqual(['R-001']);
      expect(prompt.text).toContain('[R-001');
    } finally {
      await booted.close();
    }
  }, 90_000);
});
