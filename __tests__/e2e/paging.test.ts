// Paging and slicing through the packed plugin in the real ElizaOS 1.7.2 server: GET /metrics
// with `slices`, GET /lessons walked by `after`/`next_after` and sorted by `elo`, GET /trajectories walked by
// `before`/`next_before`. One server for the file; every outcome is posted before the tests, so
// the lessons learned from them settle while the metrics tests run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, type HttpAnswer, post, request } from './http';
import { type RealServer, startRealServer } from './real-server';

const NDJSON = 'application/x-ndjson';
const EXAMPLES = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8');
const EXAMPLE_ROWS = EXAMPLES.trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * Outcomes beside the examples' (projects payments-api 336 and mobile-app 264; scanners semgrep
 * 260, codeql 193, snyk-code 147; models anthropic/claude-3-5-haiku 324 and openai/gpt-4o-mini
 * 276), sized so that the two largest slices of each dimension are neither the examples' alone
 * nor the synthetic ones alone.
 */
const SYNTHETIC = [
  { project: 'paging-north', scanner: 'paging-scan-a', model_provider: 'paging', model_name: 'model-x', count: 300 },
  { project: 'paging-south', scanner: 'paging-scan-b', model_provider: 'paging', model_name: 'model-y', count: 120 },
  { project: 'paging-east', scanner: 'paging-scan-b', model_provider: 'paging', model_name: 'model-y', count: 40 },
];
const SYNTHETIC_ROWS = SYNTHETIC.flatMap(({ count, ...slice }) =>
  Array.from({ length: count }, (_, i) => ({ ...EXAMPLE_ROWS[i % EXAMPLE_ROWS.length], ...slice, finding_key: `${slice.project}-finding-${i}` })),
);
const OUTCOMES_POSTED = EXAMPLE_ROWS.length + SYNTHETIC_ROWS.length;

interface ListedLesson {
  id: string;
  last_seen: string;
  elo: number;
}

let server: RealServer;
let ingested: HttpAnswer[];

beforeAll(async () => {
  server = await startRealServer({ settings: { SELF_IMPROVE_POLL_INTERVAL_MS: '1000', SELF_IMPROVE_TRAJECTORY_REQUIRE_CI: 'false' } });
  ingested = [await post(server.agentUrl('/outcomes'), NDJSON, EXAMPLES)];
  // The synthetic outcomes go in once a learning pass has begun on the examples': their lessons
  // are learned by a later pass, with a later last_seen, so the lessons' pages cross two times.
  await eventually('a lesson learned from the examples', async () => ((await request(server.agentUrl('/lessons'))).json?.count > 0 ? true : undefined));
  ingested.push(await post(server.agentUrl('/outcomes'), NDJSON, SYNTHETIC_ROWS.map((r) => JSON.stringify(r)).join('\n')));
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/** GET of a plugin route under the agent, with `query` as its query string. */
const get = (route: string, query: Record<string, string> = {}) => request(`${server.agentUrl(route)}?${new URLSearchParams(query)}`);

describe('GET /metrics: slices, slice_totals, pending_outcomes; bad slices and k', () => {
  test('every outcome is stored, and once the rollup caught up the totals count each of them', async () => {
    expect(ingested.map((a) => [a.status, a.json])).toEqual([
      [200, { rows: EXAMPLE_ROWS.length, accepted: EXAMPLE_ROWS.length, duplicate: 0, rejected: [] }],
      [200, { rows: SYNTHETIC_ROWS.length, accepted: SYNTHETIC_ROWS.length, duplicate: 0, rejected: [] }],
    ]);
    const report = await eventually('metrics counting every outcome', async () => {
      const answer = await get('/metrics');
      return answer.status === 200 && answer.json.pending_outcomes === 0 ? answer.json : undefined;
    });
    expect(report.pending_outcomes).toBe(0);
    expect(report.overall.outcomes).toBe(OUTCOMES_POSTED);
    for (const dim of ['by_project', 'by_scanner', 'by_model']) {
      const slices = Object.values(report[dim] as Record<string, { outcomes: number }>);
      expect(slices.reduce((n, s) => n + s.outcomes, 0)).toBe(OUTCOMES_POSTED);
    }
  });

  test('without slices the limit is 50, so every slice is shown with its outcomes', async () => {
    const answer = await get('/metrics');
    expect(answer.status).toBe(200);
    expect(answer.json.slice_limit).toBe(50);
    expect(answer.json.slice_totals).toEqual({ project: 5, scanner: 5, model: 4 });
    const outcomesOf = (dim: string) => Object.fromEntries(Object.entries(answer.json[dim] as Record<string, { outcomes: number }>).map(([name, set]) => [name, set.outcomes]));
    expect(outcomesOf('by_project')).toEqual({ 'mobile-app': 264, 'paging-east': 40, 'paging-north': 300, 'paging-south': 120, 'payments-api': 336 });
    expect(outcomesOf('by_scanner')).toEqual({ codeql: 193, 'paging-scan-a': 300, 'paging-scan-b': 160, semgrep: 260, 'snyk-code': 147 });
    expect(outcomesOf('by_model')).toEqual({ 'anthropic/claude-3-5-haiku': 324, 'openai/gpt-4o-mini': 276, 'paging/model-x': 300, 'paging/model-y': 160 });
  });

  test('slices=2 shows the two slices with the most outcomes per dimension; slice_totals still counts them all', async () => {
    const answer = await get('/metrics', { slices: '2' });
    expect(answer.status).toBe(200);
    expect(answer.json.slice_limit).toBe(2);
    expect(answer.json.slice_totals).toEqual({ project: 5, scanner: 5, model: 4 });
    expect(Object.keys(answer.json.by_project).sort()).toEqual(['paging-north', 'payments-api']);
    expect(Object.keys(answer.json.by_scanner).sort()).toEqual(['paging-scan-a', 'semgrep']);
    expect(Object.keys(answer.json.by_model).sort()).toEqual(['anthropic/claude-3-5-haiku', 'paging/model-x']);
    expect(answer.json.by_project['paging-north'].outcomes).toBe(300);
    expect(answer.json.overall.outcomes).toBe(OUTCOMES_POSTED);
    expect(answer.json.pending_outcomes).toBe(0);
  });

  test.each(['0', '1001', 'abc', '2.5', '-1'])('slices=%p is a 400 naming the parameter and its range', async (slices) => {
    const answer = await get('/metrics', { slices });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: `slices must be an integer from 1 to 1000 (got ${JSON.stringify(slices)})` });
  });

  test.each(['0', '100001', '99999999999999999999', '0x10'])('k=%p is a 400 naming the parameter and its range', async (k) => {
    const answer = await get('/metrics', { k });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: `k must be an integer from 1 to 100000 (got ${JSON.stringify(k)})` });
  });
});

/** Every lesson, newest evidence first, in one page (at most 100, the largest page). */
async function allLessons(): Promise<{ count: number; lessons: ListedLesson[]; next_after: string | null }> {
  const answer = await get('/lessons', { limit: '100' });
  expect(answer.status).toBe(200);
  return answer.json;
}

/** What decides the lessons' pages: each one's id and last_seen, in order. */
const positions = (lessons: readonly ListedLesson[]) => JSON.stringify(lessons.map((l) => [l.id, l.last_seen]));

/** The lessons walked `limit` at a time, following `next_after`, and how many pages that took. */
async function walkLessons(limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const answer = await get('/lessons', { limit: String(limit), ...(after === null ? {} : { after }) });
    expect(answer.status).toBe(200);
    expect(answer.json.lessons.length).toBeLessThanOrEqual(limit);
    ids.push(...(answer.json.lessons as ListedLesson[]).map((l) => l.id));
    after = answer.json.next_after;
    pages++;
    expect(pages).toBeLessThanOrEqual(100);
  } while (after !== null);
  return { ids, pages };
}

describe('GET /lessons, walked by next_after', () => {
  test('pages of 2 list every lesson once, in the order of the one big page: newest evidence first, ties by id', async () => {
    // Lessons are learned in the background: walk once nothing changed for a few seconds, and again
    // when the lessons changed during the walk.
    let settled = { snapshot: '', since: Date.now() };
    const { whole, walked } = await eventually(
      'a walk over lessons that did not change meanwhile',
      async () => {
        const first = await allLessons();
        const snapshot = positions(first.lessons);
        if (snapshot !== settled.snapshot) settled = { snapshot, since: Date.now() };
        if (first.lessons.length < 5 || Date.now() - settled.since < 5_000) return undefined;
        const walk = await walkLessons(2);
        return positions((await allLessons()).lessons) === snapshot ? { whole: first, walked: walk } : undefined;
      },
      180_000,
    );
    expect(whole.next_after).toBeNull();
    expect(whole.count).toBe(whole.lessons.length);
    expect(whole.count).toBeGreaterThanOrEqual(5);
    expect(new Set(whole.lessons.map((l) => l.last_seen)).size).toBeGreaterThanOrEqual(2);
    expect(walked.ids.length).toBe(new Set(walked.ids).size);
    expect(walked.ids).toEqual(whole.lessons.map((l) => l.id));
    expect(walked.pages).toBe(Math.ceil(whole.count / 2));
    const documented = [...whole.lessons].sort((a, b) => (a.last_seen === b.last_seen ? (a.id < b.id ? -1 : 1) : a.last_seen > b.last_seen ? -1 : 1));
    expect(whole.lessons.map((l) => l.id)).toEqual(documented.map((l) => l.id));
  }, 240_000);

  test('a page of 3 after the first holds the lessons after it', async () => {
    const whole = await allLessons();
    const first = await get('/lessons', { limit: '3' });
    expect(first.json.lessons.map((l: ListedLesson) => l.id)).toEqual(whole.lessons.slice(0, 3).map((l) => l.id));
    const second = await get('/lessons', { limit: '3', after: first.json.next_after });
    expect(second.status).toBe(200);
    expect(second.json.lessons.map((l: ListedLesson) => l.id)).toEqual(whole.lessons.slice(3, 6).map((l) => l.id));
  });

  test.each(['not a cursor', 'abc', Buffer.from('2026-11-01T00:00:00.000Z|not-a-uuid').toString('base64url'), Buffer.from('yesterday|0d6f2c1e-8a4b-4f3e-9c2d-5b7a1e3f4c6d').toString('base64url')])(
    'after=%p is a 400 naming the parameter',
    async (after) => {
      const answer = await get('/lessons', { after });
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ error: `after must be the next_after of a previous page (got ${JSON.stringify(after)})` });
    },
  );
});

describe('GET /lessons?sort=elo', () => {
  test('every lesson held (all of them here), highest rating first, ties by id, in one page; ids keeps only those; after with it and an unknown sort are 400s', async () => {
    // Taken when the lessons did not change between two reads around it.
    const { whole, byElo } = await eventually(
      'the lessons by rating over lessons that did not change meanwhile',
      async () => {
        const before = await allLessons();
        const answer = await get('/lessons', { sort: 'elo', limit: '100' });
        const after = await allLessons();
        return answer.status === 200 && positions(before.lessons) === positions(after.lessons) ? { whole: after, byElo: answer.json as { count: number; lessons: ListedLesson[]; next_after: string | null } } : undefined;
      },
      180_000,
    );
    expect(whole.lessons.length).toBeGreaterThanOrEqual(5);
    expect(byElo.next_after).toBeNull();
    expect(byElo.count).toBe(whole.count);
    expect(byElo.lessons.map((l) => l.id).sort()).toEqual(whole.lessons.map((l) => l.id).sort());
    for (const l of byElo.lessons) expect(Number.isFinite(l.elo)).toBe(true);
    const documented = [...byElo.lessons].sort((a, b) => b.elo - a.elo || (a.id < b.id ? -1 : 1));
    expect(byElo.lessons.map((l) => l.id)).toEqual(documented.map((l) => l.id));
    const top2 = await get('/lessons', { sort: 'elo', limit: '2' });
    expect(top2.json.lessons.map((l: ListedLesson) => l.id)).toEqual(byElo.lessons.slice(0, 2).map((l) => l.id));

    const [a, b] = [whole.lessons[0] as ListedLesson, whole.lessons[whole.lessons.length - 1] as ListedLesson];
    const named = await get('/lessons', { sort: 'elo', ids: `${a.id},${b.id}` });
    expect(named.status).toBe(200);
    expect(named.json.lessons.map((l: ListedLesson) => l.id).sort()).toEqual([a.id, b.id].sort());

    const first = await get('/lessons', { limit: '1' });
    const paged = await get('/lessons', { sort: 'elo', after: first.json.next_after });
    expect([paged.status, paged.json]).toEqual([400, { error: 'after pages only sort=newest (sort=elo has one page)' }]);
    const unknown = await get('/lessons', { sort: 'best' });
    expect([unknown.status, unknown.json]).toEqual([400, { error: 'sort must be one of newest, elo (got "best")' }]);
  }, 240_000);
});

/** A session log that passes the checks; `n` makes its content, so its stored id, its own. */
const sessionLog = (n: number) => ['$ npm test', `Tests: ${12 + n} passed, ${12 + n} total`, `$ git commit -am "fix paging ${n}"`, `[main ${(0x9d8c7b0 + n).toString(16)}] fix paging ${n}`].join('\n');
const TRAJECTORIES = 7;

describe('GET /trajectories, walked by next_before', () => {
  let postedRunIds: string[];

  beforeAll(async () => {
    postedRunIds = [];
    for (let n = 0; n < TRAJECTORIES; n++) {
      const answer = await post(server.agentUrl(`/trajectories?id=paging-run-${n}`), 'text/plain', sessionLog(n));
      if (answer.status !== 200) throw new Error(`trajectory ${n} not stored: ${answer.status} ${answer.text}`);
      postedRunIds.push(answer.json.trajectory.run_id);
      // Storage times are milliseconds: keep each one after the last.
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }, 60_000);

  test('pages of 3 list every stored trajectory once, newest first', async () => {
    expect(postedRunIds).toEqual(Array.from({ length: TRAJECTORIES }, (_, n) => `paging-run-${n}`));
    const pages: { id: string; run_id: string }[][] = [];
    let before: string | null = null;
    do {
      const answer = await get('/trajectories', { limit: '3', ...(before === null ? {} : { before }) });
      expect(answer.status).toBe(200);
      expect(answer.json.count).toBe(TRAJECTORIES);
      pages.push(answer.json.trajectories);
      before = answer.json.next_before;
      expect(pages.length).toBeLessThanOrEqual(TRAJECTORIES);
    } while (before !== null);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((t) => t.run_id)).toEqual([...postedRunIds].reverse());

    const whole = await get('/trajectories', { limit: '50' });
    expect(whole.json.next_before).toBeNull();
    expect(whole.json.trajectories.map((t: { id: string }) => t.id)).toEqual(pages.flat().map((t) => t.id));
  });

  test('a cursor of another list, or none at all, is a 400 naming before', async () => {
    const lessonCursor = (await get('/lessons', { limit: '1' })).json.next_after as string;
    expect(typeof lessonCursor).toBe('string');
    expect(lessonCursor.length).toBeGreaterThan(80);
    for (const before of ['not a cursor', 'abc', lessonCursor]) {
      const answer = await get('/trajectories', { before });
      expect(answer.status).toBe(400);
      // The refused value is quoted up to its first 80 characters.
      expect(answer.json).toEqual({ error: `before must be the next_before of a previous page (got ${JSON.stringify(before.slice(0, 80))})` });
    }
    const trajectoryCursor = (await get('/trajectories', { limit: '1' })).json.next_before as string;
    expect(typeof trajectoryCursor).toBe('string');
    const asAfter = await get('/lessons', { after: trajectoryCursor });
    expect(asAfter.status).toBe(400);
    expect(asAfter.json.error).toStartWith('after must be the next_after of a previous page');
  });
});
