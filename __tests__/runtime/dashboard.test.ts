import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { utcWeekStartMs } from '../../src/scan/model/weekly-triage';
import selfImprovePlugin from '../../src/index';
import { eloBookOf } from '../../src/elo/elo-book-service';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { ruleBookOf } from '../../src/rules/rule-book-service';
import { trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { openPage } from '../helpers/browser-page';
import { ensureChromium, renderedDom } from '../helpers/chromium';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { eventRow, mergeEvent, mustDeploy, neverDeploy, rmEvent, thrice } from '../helpers/seed-events';

const DAY = 86_400_000;
const API_KEY = 'dashboard-test-key';
const STRANGER = '3c6e4c1a-7c3d-4e3a-9f5d-3b4a5f6e7d8c';
/** A CHECK rule promoted 20 days ago: confidence now 0.9 × 0.5^((20 − 7) / 30) ≈ 0.67 (not yet flagged). */
const lintEvent = (minute: number) =>
  eventRow(minute, { type: 'debug_session', category: 'ci', tags: ['lint'], problem: 'the build failed on formatting after the push', solution: 'run the linter locally before pushing' });
/** Monday 00:00 UTC of last week and of the week before. */
const LAST_WEEK = utcWeekStartMs(Date.now()) - 7 * DAY;
const TWO_WEEKS_AGO = LAST_WEEK - 7 * DAY;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const chromium = ensureChromium();
const skip = 'skip' in chromium ? chromium.skip : null;
if (skip) process.stderr.write(`[dashboard test] skipped: ${skip}\n`);
const chromiumPath = () => (chromium as { path: string }).path;

const requests = new Map<string, number>();
/** Every query string each path was asked with, in order of arrival. */
const queries = new Map<string, string[]>();
const queriesOf = (path: string) => queries.get(`/self-improve${path}`) ?? [];

/** `/rules/:id/approve` as a pattern with its parameter names. */
function pattern(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/:([a-z]+)/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { regex: new RegExp(`^/self-improve${source}$`), names };
}

/**
 * Serves the plugin's routes (with their access rule) under /self-improve, as the agent's HTTP
 * server would — path parameters, headers and methods included — plus `extra` routes and without
 * the paths in `omit`.
 */
function serveRoutes(agent: TestAgent, options: { extra?: Route[]; omit?: string[] } = {}) {
  const routes = [...((selfImprovePlugin.routes ?? []) as Route[]), ...(options.extra ?? [])].filter((r) => !(options.omit ?? []).includes(r.path));
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
      queries.set(url.pathname, [...(queries.get(url.pathname) ?? []), url.search]);
      let params: Record<string, string> = {};
      const route = routes.find((r) => {
        const { regex, names } = pattern(r.path);
        const match = r.type === request.method ? regex.exec(url.pathname) : null;
        if (match) params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] as string)]));
        return match !== null;
      });
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
      const req: RouteRequest = { query: Object.fromEntries(url.searchParams), params, headers: Object.fromEntries(request.headers), method: request.method, path: url.pathname };
      await route.handler(req, res, agent.runtime);
      return new Response(body, { status, headers });
    },
  });
}

/** The cells' inner HTML of each row of the tbody with this id. */
function tableRows(dom: string, id: string): string[][] {
  const body = new RegExp(`<tbody id="${id}">(.*?)</tbody>`, 's').exec(dom)?.[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => [...(m[1] as string).matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1] as string));
}

describe('the dashboard about learning in a real headless Chromium', () => {
  let agent: TestAgent;
  let server: ReturnType<typeof serveRoutes>;
  let lesson: ScanLesson;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_API_TOKEN: API_KEY } });
    // last week: 4 fixed (+100 each) and 2 false positives (-70 each): total 260
    await agent.service.ingest(makeRows({ n: 6, labels: ['fixed', 'fixed', 'rejected_fp'], keyPrefix: 'dash', startIso: new Date(LAST_WEEK + DAY).toISOString() }));
    // the week before: ten ignored findings (no ledger entry) the scanner was 90% sure of, enough for a lesson
    await agent.service.ingest(makeRows({ n: 10, labels: ['ignored'], keyPrefix: 'calib', project: 'billing', confidence: 0.9, startIso: new Date(TWO_WEEKS_AGO + DAY).toISOString() }));
    await agent.service.learnPending();
    expect(agent.service.listScanLessons()).toHaveLength(1);
    lesson = agent.service.listScanLessons()[0] as ScanLesson;
    expect(lesson.metadata.project).toBe('billing');
    const book = await eloBookOf(agent.runtime);
    // AGENTS.md starts HIGH (1600); the lesson, L2 and L3 start at 1200 and get +16, +8, +8 (ranks 1, 2, 3)
    book.recordAccess('file', 'AGENTS.md', { title: 'Agents guide' });
    book.recordRetrieval({ tool: 'semantic_search', query: 'deploy', results: [lesson.id, 'L2', 'L3'].map((id, i) => ({ kind: 'lesson', id, rank: i + 1 })) });
    // rules: R-001 CHECK (old), R-002 CHECK, R-003 NEVER, R-004 MUST and R-005 NEVER (in conflict, both flagged); R-006 a stranger's candidate
    const rules = await ruleBookOf(agent.runtime);
    await rules.ingestEvents(thrice(lintEvent, 0), 'test', { nowMs: Date.now() - 20 * DAY });
    const promoted = await rules.ingestEvents([...thrice(mergeEvent, 10), ...thrice(rmEvent, 20), ...thrice(mustDeploy, 30), ...thrice(neverDeploy, 40)], 'test');
    expect(promoted.rulesPromoted).toEqual(['R-002', 'R-003', 'R-004', 'R-005']);
    const candidate = await rules.recordDraft(
      { tsMs: Date.now(), type: 'feedback', category: 'docs', tags: [], problem: 'the changelog was not updated', solution: 'Always update the <i>changelog</i>', evidenceLevel: 'testing', source: 'chat', polarity: 'negative' },
      'chat',
      { teacher: { entityId: STRANGER, trusted: false } },
    );
    expect(candidate.candidates).toEqual(['R-006']);
    const trajectories = await trajectoryServiceOf(agent.runtime);
    await trajectories.submit(['$ npm test', 'Tests: 12 passed, 12 total', '$ git commit -am "fix rounding"', '[main 9d8c7b6] fix rounding'].join('\n'), 'http', 'dash-run-1', { pay: false });
    // the NEVER rule was used once: rated, and titled by its text in the ELO panel
    book.recordAccess('rule', 'R-003');
    server = serveRoutes(agent);
  });
  afterAll(async () => {
    server?.stop(true);
    await agent?.close();
  });
  const page = (query = '') => `http://127.0.0.1:${server.port}/self-improve/dashboard${query}`;

  test.skipIf(skip !== null)('is about learning: title and heading, lessons first, the ledger last', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    expect(/<title>([^<]*)<\/title>/.exec(dom)?.[1]).toBe('Self-improve: what the agent learned');
    expect(/<h1>([^<]*)<\/h1>/.exec(dom)?.[1]).toBe('What the agent learned');
    expect([...dom.matchAll(/<section id="([a-z]+)"/g)].map((m) => m[1])).toEqual(['lessons', 'triage', 'rules', 'trajectories', 'elo', 'ledger']);
  }, 120_000);

  test.skipIf(skip !== null)('shows the score widget, the chart, the categories and the refresh status', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    expect((await ledger.totals()).total_score).toBe(260);
    requests.clear();
    const dom = await renderedDom(chromiumPath(), page(`?agentId=${agent.runtime.agentId}`));
    const text = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom)?.[1];
    expect(text('total')).toBe('260');
    expect(text('rewards')).toBe('+400');
    expect(text('penalties')).toBe('-140');
    // 400 / (400 + 140) = 74.1 %
    expect(text('efficiency')).toBe('74.1%');
    expect(text('session')).toBe('+260');
    expect(text('trend')).toBe('▲ up this session');
    expect(dom).toMatch(/<path d="M60\.0 [0-9.]+ L/);
    // the axis names the lowest (0) and highest running totals: +100 +100 −70 +100 +100 reaches +330, then −70
    const chart = /<svg id="chart"[^>]*>(.*?)<\/svg>/s.exec(dom)?.[1] ?? '';
    expect([...chart.matchAll(/text-anchor="end">([^<]*)<\/text>/g)].map((t) => t[1])).toEqual(['0', '+330', 'newest']);
    expect(tableRows(dom, 'categories')).toEqual([
      ['finding_fixed', 'reward', '+400'],
      ['false_positive', 'penalty', '-140'],
    ]);
    expect(dom).toContain('<td>finding_fixed</td><td>reward</td><td class="points">+400</td>');
    expect(text('status')).toMatch(/^Updated .* · 6 transactions · checksum valid$/);
    // one request per panel on the first load, carrying the agent id the page was opened with
    expect(requests.get('/self-improve/ledger/score')).toBe(1);
    expect(queriesOf('/ledger/history')).toContain(`?agentId=${agent.runtime.agentId}&limit=1000`);
    expect(queriesOf('/lessons')).toContain(`?agentId=${agent.runtime.agentId}&limit=20`);
  }, 120_000);

  test.skipIf(skip !== null)('shows the lessons: text, scope, category, confidence, n, window, evidence, last seen, ELO', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    const m = lesson.metadata;
    const rows = tableRows(dom, 'lessons-list');
    expect(rows).toHaveLength(agent.service.listScanLessons().length);
    expect(rows[0]).toEqual([
      `<div>${lesson.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</div><div class="scope">billing · semgrep · openai/gpt-4o</div>`,
      m.category,
      m.confidence.toFixed(2),
      String(m.sample_size),
      `${m.window_start.slice(0, 10)} – ${m.window_end.slice(0, 10)}`,
      String(m.evidence_count),
      m.last_seen.slice(0, 10),
      '1216',
    ]);
    expect(m.sample_size).toBe(10);
    expect(/id="lessons-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe(`${rows.length} lessons · the ${rows.length} with the newest evidence shown`);
  }, 120_000);

  test.skipIf(skip !== null)('shows triage quality by week: a point per labelled week and metric, labelled axes, and the table', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    const chart = /<svg id="triage-chart"[^>]*>(.*?)<\/svg>/s.exec(dom)?.[1] ?? '';
    // 12 weeks labelled by their Monday, the last two of them the labelled ones
    const weeks = [...chart.matchAll(/<text [^>]*class="week-label">([^<]*)<\/text>/g)].map((w) => w[1]);
    expect(weeks).toHaveLength(12);
    expect(weeks.slice(-3)).toEqual([isoDay(TWO_WEEKS_AGO).slice(5), isoDay(LAST_WEEK).slice(5), isoDay(LAST_WEEK + 7 * DAY).slice(5)]);
    expect([...chart.matchAll(/text-anchor="end">([^<]*)<\/text>/g)].map((t) => t[1])).toEqual(['0%', '25%', '50%', '75%', '100%']);
    expect([...chart.matchAll(/<circle [^>]*><title>([^<]*)<\/title>/g)].map((c) => c[1])).toEqual([
      `False-positive rate, week of ${isoDay(TWO_WEEKS_AGO)}: 0% (10 findings)`,
      `False-positive rate, week of ${isoDay(LAST_WEEK)}: 33% (6 findings)`,
      `Precision@k, week of ${isoDay(TWO_WEEKS_AGO)}: 0% (10 findings)`,
      `Calibration error, week of ${isoDay(TWO_WEEKS_AGO)}: 90% (10 findings)`,
    ]);
    expect(tableRows(dom, 'triage-weeks')).toEqual([
      [isoDay(LAST_WEEK), '6', '33%', '–', '–'],
      [isoDay(TWO_WEEKS_AGO), '10', '0%', '0%', '90%'],
    ]);
    expect(/id="triage-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe(`12 weeks to ${isoDay(Date.now())} · precision@k with k = 20 · 2 weeks with labelled findings; the others have no points`);
    expect(queriesOf('/metrics/weekly')).toContain('?weeks=12');
  }, 120_000);

  test.skipIf(skip !== null)('shows the trajectories: run, quality, reward, paid sats and whether accepted, never a transcript', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    const stored = (await (await trajectoryServiceOf(agent.runtime)).page({ limit: 1 })).trajectories[0];
    const ev = stored?.evaluation;
    expect(tableRows(dom, 'trajectories-list').map((r) => [r[0], r[1], r[3], r[4], r[5], r[6]])).toEqual([['dash-run-1', 'submitted over HTTP', ev?.quality.quality.toFixed(2), String(ev?.reward.total_sats), '0', ev?.accepted ? 'yes' : 'no']]);
    expect(dom).not.toContain('fix rounding');
    expect(queriesOf('/trajectories')).toContain('?limit=20');
  }, 120_000);

  test.skipIf(skip !== null)('shows the ELO panel: tier counts, one bar per non-empty bucket with room for its count, top items titled by their texts', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    const text = (id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom)?.[1];
    const ruleElo = (await eloBookOf(agent.runtime)).currentElo('rule', 'R-003');
    expect(['HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'].map((t) => text(`elo-tier-${t}`))).toEqual(['1', '4', '0', '0']);
    // buckets 1200–1300 (3 lessons and the rule) and 1600–1700 (AGENTS.md): the taller bar is theirs
    expect(ruleElo).toBeGreaterThanOrEqual(1200);
    expect(ruleElo).toBeLessThan(1300);
    expect([...dom.matchAll(/<rect [^>]*width="([0-9.]+)" height="([0-9.]+)"[^>]*><title>([^<]*)<\/title>/g)].map((m) => [m[3], m[1], m[2]])).toEqual([
      ['1200–1300: 4', '90.0', '130.0'],
      ['1600–1700: 1', '90.0', '32.5'],
    ]);
    // the tallest bar's count sits inside the chart, above the bar
    expect(dom).toMatch(/<text x="[0-9.]+" y="29\.0" text-anchor="middle">4<\/text>/);
    expect(dom).toContain('<h3>Top file</h3>');
    expect(tableRows(dom, 'elo-top-file')).toEqual([['1604.3', 'HIGH', 'Agents guide (AGENTS.md)']]);
    const lessons = tableRows(dom, 'elo-top-lesson');
    expect(lessons.map((r) => r.slice(0, 2))).toEqual([
      ['1216.0', 'MEDIUM'],
      ['1208.0', 'MEDIUM'],
      ['1208.0', 'MEDIUM'],
    ]);
    const shown = lesson.text.length > 140 ? `${lesson.text.slice(0, 139)}…` : lesson.text;
    expect(lessons.map((r) => r[2])).toEqual([shown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'), 'L2', 'L3']);
    expect(dom).not.toContain(`>${lesson.id}<`);
    expect(tableRows(dom, 'elo-top-rule')).toEqual([[ruleElo.toFixed(1), 'MEDIUM', 'NEVER: Never run rm -rf on a path built from a &lt;b&gt;variable&lt;/b&gt; in a script']]);
    expect(text('elo-status')).toBe('5 rated items · 100-point buckets, empty ones not shown');
    expect(queriesOf('/elo')).toContain('?k=5');
    expect(queriesOf('/lessons')).toContain(`?ids=${lesson.id}&limit=1`);
    expect(queriesOf('/rules')).toContain('?status=all');
  }, 120_000);

  test.skipIf(skip !== null)('shows the top rules: unflagged active ones by type priority then confidence, text as text; flagged and conflict counts', async () => {
    const dom = await renderedDom(chromiumPath(), page());
    expect(tableRows(dom, 'rules-top')).toEqual([
      ['R-003', 'NEVER', '0.90', 'Never run rm -rf on a path built from a &lt;b&gt;variable&lt;/b&gt; in a script'],
      ['R-002', 'CHECK', '0.90', 'Check: search the diff for conflict markers before committing'],
      ['R-001', 'CHECK', '0.67', 'Check: run the linter locally before pushing'],
    ]);
    expect(dom).not.toContain('<b>variable</b>');
    expect(/id="rules-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('5 active rules · 2 flagged for review · 1 conflicts');
    expect(queriesOf('/rules')).toContain('?status=active');
    expect(queriesOf('/rules')).toContain('?status=candidate');
  }, 120_000);

  test.skipIf(skip !== null)('without the ELO route the panel says so and the others still show', async () => {
    const bare = serveRoutes(agent, { omit: ['/elo'] });
    try {
      const dom = await renderedDom(chromiumPath(), `http://127.0.0.1:${bare.port}/self-improve/dashboard`);
      expect(/id="elo-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('ELO not available: elo answered 404');
      expect(/id="total"[^>]*>([^<]*)</.exec(dom)?.[1]).toBe('260');
      expect(tableRows(dom, 'lessons-list').length).toBeGreaterThan(0);
    } finally {
      bare.stop(true);
    }
  }, 120_000);

  test.skipIf(skip !== null)('refreshes every 5 seconds', async () => {
    requests.clear();
    await renderedDom(chromiumPath(), page(), 11_000);
    // the first load, then at 5 s and 10 s of page time (rules: candidates and active ones for the rules panel, all for the ELO panel's titles; lessons: the panel and the ELO panel's titles)
    expect(requests.get('/self-improve/ledger/score')).toBe(3);
    expect(requests.get('/self-improve/lessons')).toBe(6);
    expect(requests.get('/self-improve/metrics/weekly')).toBe(3);
    expect(requests.get('/self-improve/trajectories')).toBe(3);
    expect(requests.get('/self-improve/rules')).toBe(9);
  }, 120_000);

  test.skipIf(skip !== null)('lists the candidate with approve and reject buttons; without the key the 401 is shown, with it the rule is approved', async () => {
    const browser = await openPage(chromiumPath(), page());
    try {
      const candidateRow = await browser.waitFor<string[]>('the candidate row', `(() => { const r = document.querySelector('#rules-candidates tr'); return r && [...r.children].map((c) => c.textContent); })()`);
      expect(candidateRow).toEqual(['R-006', 'MUST', 'docs', 'Always update the <i>changelog</i>', 'ApproveReject']);
      expect(await browser.evaluate<string[]>(`[...document.querySelectorAll('#rules-candidates button')].map((b) => b.className + ':' + b.dataset.rule)`)).toEqual(['approve:R-006', 'reject:R-006']);
      await browser.evaluate(`document.querySelector('#rules-candidates button.approve').click()`);
      const refused = await browser.waitFor<string>('the refusal', `(() => { const m = document.getElementById('rules-message'); return m.className.includes('error') && m.textContent; })()`);
      expect(refused).toStartWith('R-006 was not approved: this agent needs its API key for that. Paste the key');
      expect(refused).toContain('The agent answered 401: POST /self-improve/rules/:id/approve needs a key');
      expect((await ruleBookOf(agent.runtime)).rule('R-006')?.status).toBe('candidate');

      await browser.evaluate(`(() => { const input = document.getElementById('api-key'); input.value = '${API_KEY}'; input.dispatchEvent(new Event('input')); })()`);
      await browser.evaluate(`document.querySelector('#rules-candidates button.approve').click()`);
      const approved = await browser.waitFor<string>('the approval', `(() => { const m = document.getElementById('rules-message'); return m.className.includes('ok') && m.textContent.includes('approved') && m.textContent; })()`);
      expect(approved).toBe('R-006 approved: it is an active rule now.');
      expect((await ruleBookOf(agent.runtime)).rule('R-006')?.status).toBe('active');
      await browser.waitFor('the candidates list to empty', `document.getElementById('candidates-status').textContent === 'No rules are waiting for approval.'`);
      expect(await browser.evaluate<number>(`document.querySelectorAll('#rules-candidates tr').length`)).toBe(0);
      // the key stays in the page: nothing in its storage
      expect(await browser.evaluate<number>('localStorage.length + sessionStorage.length')).toBe(0);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
