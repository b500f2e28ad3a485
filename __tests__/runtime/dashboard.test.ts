import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Route, RouteRequest, RouteResponse } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { eloBookOf } from '../../src/services/elo-book-service';
import { rewardLedgerOf } from '../../src/services/reward-ledger-service';
import { ruleBookOf } from '../../src/services/rule-book-service';
import { ensureChromium, renderedDom } from '../helpers/chromium';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { eventRow, mergeEvent, mustDeploy, neverDeploy, rmEvent, thrice } from '../helpers/seed-events';

const DAY = 86_400_000;
/** A CHECK rule promoted 20 days ago: confidence now 0.9 × 0.5^((20 − 7) / 30) ≈ 0.67 (not yet flagged). */
const lintEvent = (minute: number) =>
  eventRow(minute, { type: 'debug_session', category: 'ci', tags: ['lint'], problem: 'the build failed on formatting after the push', solution: 'run the linter locally before pushing' });

const chromium = ensureChromium();
const skip = 'skip' in chromium ? chromium.skip : null;
if (skip) process.stderr.write(`[dashboard test] skipped: ${skip}\n`);

/**
 * Serves the plugin's GET routes under /self-improve, as the agent's HTTP server would, plus
 * `extra` routes and without the paths in `omit`.
 */
const requests = new Map<string, number>();
const lastQuery = new Map<string, string>();

function serveRoutes(agent: TestAgent, options: { extra?: Route[]; omit?: string[] } = {}) {
  const routes = [...((selfImprovePlugin.routes ?? []) as Route[]), ...(options.extra ?? [])].filter((r) => !(options.omit ?? []).includes(r.path));
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
      lastQuery.set(url.pathname, url.search);
      const route = routes.find((r) => r.type === request.method && `/self-improve${r.path}` === url.pathname);
      if (!route?.handler) return new Response('not found', { status: 404 });
      let status = 200;
      const headers = new Headers();
      let body = '';
      const res: RouteResponse = {
        status(code) {
          status = code;
          return res;
        },
        json(data) {
          headers.set('Content-Type', 'application/json');
          body = JSON.stringify(data);
          return res;
        },
        send(data) {
          body = String(data);
          return res;
        },
        end() {
          return res;
        },
        setHeader(name, value) {
          headers.set(name, String(value));
          return res;
        },
      };
      const req: RouteRequest = { query: Object.fromEntries(url.searchParams), headers: {}, method: request.method, path: url.pathname };
      await route.handler(req, res, agent.runtime);
      return new Response(body, { status, headers });
    },
  });
}

describe('the reward ledger dashboard in a real headless Chromium', () => {
  let agent: TestAgent;
  let server: ReturnType<typeof serveRoutes>;
  beforeAll(async () => {
    agent = await startAgent();
    // 4 fixed (+100 each) and 2 false positives (-70 each): total 260
    await agent.service.ingest(makeRows({ n: 6, labels: ['fixed', 'fixed', 'rejected_fp'], keyPrefix: 'dash' }));
    const book = await eloBookOf(agent.runtime);
    // AGENTS.md starts HIGH (1600); the lessons start at 1200 and get +16, +8, +8 (ranks 1, 2, 3)
    book.recordAccess('file', 'AGENTS.md', { title: 'Agents guide' });
    book.recordRetrieval({ tool: 'semantic_search', query: 'deploy', results: ['L1', 'L2', 'L3'].map((id, i) => ({ kind: 'lesson', id, rank: i + 1 })) });
    // rules: R-001 CHECK (old), R-002 CHECK, R-003 NEVER, R-004 MUST and R-005 NEVER (in conflict, both flagged)
    const rules = await ruleBookOf(agent.runtime);
    await rules.ingestEvents(thrice(lintEvent, 0), 'test', { nowMs: Date.now() - 20 * DAY });
    const promoted = await rules.ingestEvents([...thrice(mergeEvent, 10), ...thrice(rmEvent, 20), ...thrice(mustDeploy, 30), ...thrice(neverDeploy, 40)], 'test');
    expect(promoted.rulesPromoted).toEqual(['R-002', 'R-003', 'R-004', 'R-005']);
    server = serveRoutes(agent);
  });
  afterAll(async () => {
    server?.stop(true);
    await agent?.close();
  });

  test.skipIf(skip !== null)('shows the score widget, the chart, the categories and the refresh status', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    expect((await ledger.totals()).total_score).toBe(260);
    const dom = await renderedDom((chromium as { path: string }).path, `http://127.0.0.1:${server.port}/self-improve/dashboard?agentId=${agent.runtime.agentId}`);
    const text = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom)?.[1];
    expect(text('total')).toBe('260');
    expect(text('rewards')).toBe('+400');
    expect(text('penalties')).toBe('-140');
    // 400 / (400 + 140) = 74.1 %
    expect(text('efficiency')).toBe('74.1%');
    expect(text('session')).toBe('+260');
    expect(text('trend')).toBe('▲ up this session');
    expect(dom).toMatch(/<path d="M0\.0 [0-9.]+ L/);
    expect(dom).toContain('<td>finding_fixed</td><td>reward</td><td class="points">+400</td>');
    expect(dom).toContain('<td>false_positive</td><td>penalty</td><td class="points">-140</td>');
    expect(text('status')).toMatch(/^Updated .* · 6 transactions · checksum valid$/);
    // one request per panel on the first load, carrying the agent id the page was opened with
    expect(requests.get('/self-improve/ledger/score')).toBe(1);
    expect(lastQuery.get('/self-improve/ledger/history')).toBe(`?agentId=${agent.runtime.agentId}&limit=1000`);
  }, 120_000);

  test.skipIf(skip !== null)('shows the ELO panel: tier counts, one bar per non-empty bucket, top items per kind', async () => {
    const dom = await renderedDom((chromium as { path: string }).path, `http://127.0.0.1:${server.port}/self-improve/dashboard`);
    const text = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom)?.[1];
    expect(['HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'].map((t) => text(`elo-tier-${t}`))).toEqual(['1', '3', '0', '0']);
    // buckets 1200–1300 (3 lessons) and 1600–1700 (AGENTS.md): the taller bar is the lessons'
    expect([...dom.matchAll(/<rect [^>]*height="([0-9.]+)"[^>]*><title>([^<]*)<\/title>/g)].map((m) => [m[2], m[1]])).toEqual([
      ['1200–1300: 3', '140.0'],
      ['1600–1700: 1', '46.7'],
    ]);
    expect(dom).toContain('<h3>Top file</h3>');
    expect(dom).toMatch(/<td class="points">1604\.3<\/td><td class="tier-HIGH">HIGH<\/td><td>Agents guide \(AGENTS\.md\)<\/td>/);
    expect(dom).toContain('<td class="points">1216.0</td><td class="tier-MEDIUM">MEDIUM</td><td>L1</td>');
    expect(text('elo-status')).toBe('4 rated items · 100-point buckets, empty ones not shown');
    expect(lastQuery.get('/self-improve/elo')).toBe('?k=5');
  }, 120_000);

  test.skipIf(skip !== null)('shows the top rules: unflagged active ones by type priority then confidence, text as text; flagged and conflict counts', async () => {
    const dom = await renderedDom((chromium as { path: string }).path, `http://127.0.0.1:${server.port}/self-improve/dashboard`);
    const body = /<tbody id="rules-top">(.*?)<\/tbody>/s.exec(dom)?.[1] ?? '';
    const rows = [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => [...(m[1] as string).matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]));
    expect(rows).toEqual([
      ['R-003', 'NEVER', '0.90', 'Never run rm -rf on a path built from a &lt;b&gt;variable&lt;/b&gt; in a script'],
      ['R-002', 'CHECK', '0.90', 'Check: search the diff for conflict markers before committing'],
      ['R-001', 'CHECK', '0.67', 'Check: run the linter locally before pushing'],
    ]);
    expect(dom).not.toContain('<b>variable</b>');
    expect(/id="rules-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('5 active rules · 2 flagged for review · 1 conflicts');
    expect(lastQuery.get('/self-improve/rules')).toBe('?status=active');
  }, 120_000);

  test.skipIf(skip !== null)('without the ELO route the panel says so and the ledger still shows', async () => {
    const bare = serveRoutes(agent, { omit: ['/elo'] });
    try {
      const dom = await renderedDom((chromium as { path: string }).path, `http://127.0.0.1:${bare.port}/self-improve/dashboard`);
      expect(/id="elo-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('ELO not available: elo answered 404');
      expect(/id="total"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('260');
    } finally {
      bare.stop(true);
    }
  }, 120_000);

  test.skipIf(skip !== null)('refreshes every 5 seconds', async () => {
    requests.clear();
    await renderedDom((chromium as { path: string }).path, `http://127.0.0.1:${server.port}/self-improve/dashboard`, 11_000);
    // the first load, then at 5 s and 10 s of page time
    expect(requests.get('/self-improve/ledger/score')).toBe(3);
    expect(requests.get('/self-improve/rules')).toBe(3);
  }, 120_000);
});
