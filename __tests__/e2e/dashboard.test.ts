import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPage } from '../helpers/browser-page';
import { ensureChromium, renderedDom } from '../helpers/chromium';
import { jsonl, mergeEvent, rmEvent, thrice } from '../helpers/seed-events';
import { openSession, say } from './chat';
import { eventually, post, request } from './http';
import { type RealServer, startRealServer } from './real-server';

const WEEK_MS = 7 * 86_400_000;
const API_KEY = 'e2e-dashboard-key';
const KEYED = { 'x-api-key': API_KEY };
/**
 * Where to copy the screenshot of the dashboard with real data (the README's docs/dashboard.png is
 * made with SELF_IMPROVE_DASHBOARD_SCREENSHOT=docs/dashboard.png); by default it stays in a temporary folder.
 */
const SCREENSHOT_TO = process.env.SELF_IMPROVE_DASHBOARD_SCREENSHOT;

/** The example outcomes moved forward by whole weeks so the newest is within the last seven days: the weekly panel shows recent weeks. */
function recentExamples(): string {
  const rows = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { ts: string });
  const newest = Math.max(...rows.map((r) => Date.parse(r.ts)));
  const shift = Math.floor((Date.now() - newest) / WEEK_MS) * WEEK_MS;
  return rows.map((r) => JSON.stringify({ ...r, ts: new Date(Date.parse(r.ts) + shift).toISOString() })).join('\n');
}

const chromium = ensureChromium();
const skip = 'skip' in chromium ? chromium.skip : null;
if (skip) process.stderr.write(`[dashboard e2e] skipped: ${skip}\n`);
const chromiumPath = () => (chromium as { path: string }).path;

let server: RealServer;
let panelUrl: string;
let candidate: { id: string; rule: string };

beforeAll(async () => {
  server = await startRealServer({ settings: { SELF_IMPROVE_POLL_INTERVAL_MS: '1000', SELF_IMPROVE_TRAJECTORY_REQUIRE_CI: 'false', SELF_IMPROVE_API_TOKEN: API_KEY } });
  const panels = await request(`${server.origin}/api/agents/${server.agentId}/panels`);
  const listed = (panels.json?.data ?? panels.json) as { name: string; path: string }[];
  const panel = listed.find((p) => p.path.includes('/plugins/self-improve/dashboard'));
  if (!panel) throw new Error(`no dashboard panel in ${panels.text}`);
  panelUrl = `${server.origin}${panel.path}`;

  const outcomes = await post(server.agentUrl('/outcomes'), 'application/x-ndjson', recentExamples(), KEYED);
  if (outcomes.status !== 200) throw new Error(`outcomes: ${outcomes.status} ${outcomes.text}`);
  await eventually('lessons learned from the examples', async () => ((await request(server.agentUrl('/lessons'))).json?.count > 0 ? true : undefined), 120_000);
  // the operator's events: two active rules; a stranger's correction in chat: a candidate
  const events = await post(server.agentUrl('/events'), 'text/plain', jsonl([...thrice(mergeEvent, 0), ...thrice(rmEvent, 10)]), KEYED);
  if (events.status !== 200) throw new Error(`events: ${events.status} ${events.text}`);
  const stranger = await openSession(server);
  for (let i = 0; i < 3; i++) await say(server, stranger, 'Never paste a production database password into a chat message.');
  candidate = await eventually('the candidate rule', async () => {
    const rules = ((await request(server.agentUrl('/rules?status=candidate'))).json?.rules ?? []) as { id: string; rule: string }[];
    return rules.find((r) => /password/i.test(r.rule));
  });
  const log = ['$ git rev-parse HEAD', '4f2a9c1d0e', '$ npm test', 'Tests: 48 passed, 48 total', '$ git commit -am "fix: escape the SARIF message"', '[main 7b3e2f1] fix: escape the SARIF message'].join('\n');
  const trajectory = await post(server.agentUrl('/trajectories?id=e2e-dashboard-run'), 'text/plain', log, KEYED);
  if (trajectory.status !== 200) throw new Error(`trajectory: ${trajectory.status} ${trajectory.text}`);
}, 400_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/** The cells' text of each row of the tbody with this id, tags inside cells removed. */
function tableRows(dom: string, id: string): string[][] {
  const body = new RegExp(`<tbody id="${id}">(.*?)</tbody>`, 's').exec(dom)?.[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => [...(m[1] as string).matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => (c[1] as string).replace(/<[^>]+>/g, '')));
}
const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

describe('the dashboard through the real server panel URL', () => {
  test.skipIf(skip !== null)('shows lessons with their text, weekly triage points, the candidate with its buttons and the trajectory', async () => {
    const dom = await renderedDom(chromiumPath(), panelUrl, 8_000);
    expect(/<h1>([^<]*)<\/h1>/.exec(dom)?.[1]).toBe('What the agent learned');

    const lessons = (await request(server.agentUrl('/lessons?limit=20'))).json as { count: number; lessons: { text: string; category: string }[] };
    const lessonRows = tableRows(dom, 'lessons-list');
    expect(lessonRows.length).toBe(lessons.lessons.length);
    expect(lessonRows.length).toBeGreaterThan(0);
    expect(unescape(lessonRows[0]?.[0] ?? '')).toStartWith(lessons.lessons[0]?.text as string);
    expect(lessonRows[0]?.[1]).toBe(lessons.lessons[0]?.category);
    expect(/id="lessons-status"[^>]*>([^<]*)</.exec(dom)?.[1]).toStartWith(`${lessons.count} lessons`);

    const chart = /<svg id="triage-chart"[^>]*>(.*?)<\/svg>/s.exec(dom)?.[1] ?? '';
    expect([...chart.matchAll(/class="week-label">([0-9]{2}-[0-9]{2})</g)]).toHaveLength(12);
    expect([...chart.matchAll(/<circle /g)].length).toBeGreaterThanOrEqual(3);
    expect(chart).toContain('<title>False-positive rate, week of ');
    const weeks = tableRows(dom, 'triage-weeks');
    expect(weeks.length).toBeGreaterThanOrEqual(3);
    expect(weeks.every((w) => /^\d{4}-\d{2}-\d{2}$/.test(w[0] as string) && /^\d+%$/.test(w[2] as string))).toBe(true);

    expect(tableRows(dom, 'rules-candidates')).toContainEqual([candidate.id, expect.any(String), expect.any(String), expect.stringMatching(/password/i), 'ApproveReject']);
    expect(dom).toContain(`<button type="button" class="approve" data-rule="${candidate.id}">Approve</button><button type="button" class="reject" data-rule="${candidate.id}">Reject</button>`);
    expect(tableRows(dom, 'rules-top').map((r) => r[0])).toEqual(['R-002', 'R-001']);

    // the submitted one, beside the agent's own runs (one per chat message)
    const stored = (await request(server.agentUrl('/trajectories'))).json as { trajectories: { run_id: string | null; paid_sats: number; evaluation: { accepted: boolean; reward: { total_sats: number } } }[] };
    const submitted = stored.trajectories.find((t) => t.run_id === 'e2e-dashboard-run');
    const row = tableRows(dom, 'trajectories-list').find((r) => r[0] === 'e2e-dashboard-run');
    expect(row?.slice(4)).toEqual([String(submitted?.evaluation.reward.total_sats), String(submitted?.paid_sats), submitted?.evaluation.accepted ? 'yes' : 'no']);
    expect(tableRows(dom, 'trajectories-list')).toHaveLength(stored.trajectories.length);
    expect(dom).not.toContain('escape the SARIF message');
    // ELO top lessons and rules are titled by their texts, never by a bare id
    for (const kind of ['lesson', 'rule']) for (const r of tableRows(dom, `elo-top-${kind}`)) expect(r[2]).not.toMatch(/^(R-\d+|[0-9a-f-]{36})$/);
    expect(/id="status"[^>]*>([^<]*)</.exec(dom)?.[1]).toMatch(/transactions · checksum valid$/);
  }, 120_000);

  test.skipIf(skip !== null)('a screenshot of it with real data: nothing wider than the page', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'self-improve-shot-'));
    const browser = await openPage(chromiumPath(), panelUrl, { width: 1280, height: 900 });
    try {
      await browser.waitFor('the panels to load', `document.querySelectorAll('#lessons-list tr').length > 0 && document.querySelectorAll('#triage-chart circle').length > 0 && document.querySelectorAll('#rules-candidates tr').length > 0 && document.getElementById('status').textContent.startsWith('Updated')`);
      // every section fits the page's width: no table or chart pushed past it
      expect(await browser.evaluate<string[]>(`[...document.querySelectorAll('section')].filter((s) => s.scrollWidth > s.clientWidth).map((s) => s.id)`)).toEqual([]);
      const file = path.join(dir, 'dashboard.png');
      await browser.screenshot(file, 1280);
      expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(statSync(file).size).toBeGreaterThan(20_000);
      if (SCREENSHOT_TO) copyFileSync(file, path.resolve(SCREENSHOT_TO));
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test.skipIf(skip !== null)('approving the candidate: without the key the 401 is shown; with it the rule becomes active', async () => {
    const browser = await openPage(chromiumPath(), panelUrl);
    try {
      const approve = `document.querySelector('#rules-candidates button.approve[data-rule="${candidate.id}"]')`;
      await browser.waitFor('the approve button', `${approve} !== null`);
      await browser.evaluate(`${approve}.click()`);
      const refused = await browser.waitFor<string>('the refusal', `(() => { const m = document.getElementById('rules-message'); return m.className.includes('error') && m.textContent; })()`);
      expect(refused).toStartWith(`${candidate.id} was not approved: this agent needs its API key for that.`);
      expect(refused).toContain('The agent answered 401: POST /self-improve/rules/:id/approve needs a key');
      expect(((await request(server.agentUrl('/rules?status=candidate'))).json.rules as { id: string }[]).map((r) => r.id)).toContain(candidate.id);

      await browser.evaluate(`(() => { const input = document.getElementById('api-key'); input.value = '${API_KEY}'; input.dispatchEvent(new Event('input')); })()`);
      await browser.waitFor('the approve button', `${approve} !== null`);
      await browser.evaluate(`${approve}.click()`);
      const approved = await browser.waitFor<string>('the approval', `(() => { const m = document.getElementById('rules-message'); return m.className.includes('ok') && m.textContent.includes('approved:') && m.textContent; })()`);
      expect(approved).toBe(`${candidate.id} approved: it is an active rule now.`);
      const active = (await request(server.agentUrl('/rules?status=active'))).json.rules as { id: string }[];
      expect(active.map((r) => r.id)).toContain(candidate.id);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
