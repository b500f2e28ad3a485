import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '@elizaos/core';
import { expectedScore } from '../../src/elo/model/elo';
import { handleEloReport } from '../../src/elo/surfaces/elo-routes';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import { eloReport, refreshDefaultReport, REPORT_REUSE_MS } from '../../src/elo/elo-report';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { runCli as spawnCli } from '../helpers/cli';

/** No disuse drift, so every rating below is exact at any time. */
const SETTINGS = { SELF_IMPROVE_ELO_DRIFT_PER_DAY: '0' };
const T = Date.parse('2026-11-22T10:00:00Z');
const MIN = 60_000;

// The ratings the calls below must produce (seed 002 formulas, K = 16 while new)
const AGENTS_MD = 1600 + 16 * (1 - expectedScore(1600)) + 8; // HIGH start, one use, then rank 3 (+8)
const LAB_IDEA = 800 + 16 * (1 - expectedScore(800)); // LOW start, one use
const L1 = 1216; // rank 1
const L2 = 1208 - 16 * expectedScore(1208); // rank 2, then a penalty

async function runCli(...args: string[]) {
  return spawnCli(args, { ...process.env, ...SETTINGS, LOG_LEVEL: 'info' });
}

const request = (query: Record<string, string>): RouteRequest => ({ query, headers: {}, method: 'GET', path: '/self-improve/elo' });

describe('ELO stats on a real runtime: report, route and CLI', () => {
  let dir: string;
  let agent: TestAgent;
  let book: EloBookService;
  let closed = false;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-stats-'));
    agent = await startAgent({ dataDir: dir, settings: SETTINGS });
    book = await eloBookOf(agent.runtime);
    book.recordAccess('file', 'AGENTS.md', { title: 'Agents guide', sessionId: 'S1' }, T);
    book.recordAccess('file', 'THOUGHT/LAB/idea.md', { sessionId: 'S1' }, T + MIN);
    book.recordRetrieval(
      {
        tool: 'semantic_search',
        query: 'how do we deploy',
        sessionId: 'S1',
        results: [
          { kind: 'lesson', id: 'L1', rank: 1 },
          { kind: 'lesson', id: 'L2', rank: 2 },
          { kind: 'file', id: 'AGENTS.md', rank: 3 },
        ],
        logExtras: { tokens_full: 1000, tokens_packed: 100 },
      },
      T + 2 * MIN,
    );
    book.recordOutcome([{ kind: 'lesson', id: 'L2' }], 0, 'outcome_penalty', T + 3 * MIN);
    book.endSession('S1', T + 4 * MIN);
  }, 60_000);
  afterAll(async () => {
    if (!closed) await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('eloReport: tiers, histogram, top items, convergence and success metrics from the book and its logs', async () => {
    const report = await eloReport(book, { k: 2, nowMs: T + 5 * MIN });
    expect(report.as_of).toBe('2026-11-22T10:05:00.000Z');
    expect(report.distribution.overall).toEqual({
      count: 4,
      tiers: { HIGH: 1, MEDIUM: 1, LOW: 2, VERY_LOW: 0 },
      histogram: [
        { from: 800, to: 900, count: 1 },
        { from: 1100, to: 1200, count: 1 },
        { from: 1200, to: 1300, count: 1 },
        { from: 1600, to: 1700, count: 1 },
      ],
    });
    expect(report.top).toEqual({
      file: [
        { id: 'AGENTS.md', elo: 1612.3, tier: 'HIGH', updates: 1, title: 'Agents guide' },
        { id: 'THOUGHT/LAB/idea.md', elo: 811.7, tier: 'LOW', updates: 1 },
      ],
      lesson: [
        { id: 'L1', elo: 1216, tier: 'MEDIUM', updates: 0 },
        { id: 'L2', elo: 1199.9, tier: 'LOW', updates: 1 },
      ],
    });
    // every update lies in S1's window, so each item's net change is its rating minus its start
    const nets = [AGENTS_MD - 1600, LAB_IDEA - 800, L1 - 1200, L2 - 1200];
    const rms = Math.sqrt(nets.reduce((s, d) => s + d * d, 0) / nets.length);
    expect(report.convergence).toMatchObject({ window: { sessions: 1, since: '2026-11-22T10:00:00.000Z' }, drift: { count: 0, mean_abs: 0 }, items_moved: 4, stable: true });
    expect(report.convergence.deltas.count).toBe(6);
    expect(report.convergence.relative_change).toBe(Math.round((rms / 400) * 1e4) / 1e4);
    expect(report.success_metrics).toEqual({
      // top-5 results: L1 MEDIUM, L2 LOW, AGENTS.md HIGH
      search_efficiency: { value: 0.3333, target: 0.8, comparison: '>=', met: false, n: 3 },
      // S1 used AGENTS.md (HIGH), the lab idea (LOW), L1 (MEDIUM), L2 (LOW)
      context_accuracy: { value: 0.5, target: 0.9, comparison: '>=', met: false, n: 4 },
      token_savings: { value: 0.9, target: 0.8, comparison: '>=', met: true, n: 1 },
      convergence_after_100_sessions: { value: null, target: 0.1, comparison: '<', met: null, n: 1 },
    });
    expect(report.sample).toEqual({ updates: 6, searches: 1, sessions: 1 });
    expect(report.skipped).toEqual({ updates: 0, searches: 0, sessions: 0 });
  }, 30_000);

  test('GET /self-improve/elo answers the same report; a bad k is a 400 naming k and its range', async () => {
    const ok = recordingResponse();
    await handleEloReport(request({ k: '1' }), ok.res, agent.runtime);
    expect(ok.sent.status).toBe(200);
    const { as_of: _asOf, ...body } = ok.sent.body as Awaited<ReturnType<typeof eloReport>>;
    const { as_of: _expectedAsOf, ...expected } = await eloReport(book, { k: 1, nowMs: T });
    expect(body).toEqual(expected);
    expect(Object.values(body.top).map((items) => items.length)).toEqual([1, 1]);

    for (const k of ['0', '101', 'ten', '2.5']) {
      const bad = recordingResponse();
      await handleEloReport(request({ k }), bad.res, agent.runtime);
      expect(bad.sent).toEqual({ status: 400, body: { error: `k must be an integer from 1 to 100 (got ${JSON.stringify(k)})` } });
    }
  }, 30_000);


  test('CLI: elo stats --json prints the report as one JSON document; elo log lists the newest updates', async () => {
    const expected = await eloReport(book, { k: 2, nowMs: T + 5 * MIN });
    await agent.close();
    closed = true;
    const stats = await runCli('elo', 'stats', '--db', dir, '--json', '--k', '2', '--now', '2026-11-22T10:05:00Z');
    expect(stats.code).toBe(0);
    expect(stats.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stats.stdout)).toEqual(expected);

    const text = await runCli('elo', 'stats', '--db', dir, '--now', '2026-11-22T10:05:00Z');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('tiers: HIGH 1 · MEDIUM 1 · LOW 2 · VERY_LOW 0');
    expect(text.stdout).toContain('  1612.3  HIGH     AGENTS.md  "Agents guide"  (1 updates)');

    const log = await runCli('elo', 'log', '--db', dir, '--limit', '2', '--json');
    expect(log.code).toBe(0);
    expect(JSON.parse(log.stdout).updates.map((u: { entity_id: string; reason: string }) => [u.entity_id, u.reason])).toEqual([
      ['L2', 'outcome_penalty'],
      ['AGENTS.md', 'semantic_search_rank_3'],
    ]);

    const badK = await runCli('elo', 'stats', '--db', dir, '--k', '0', '--json');
    expect(badK.code).toBe(1);
    expect(JSON.parse(badK.stdout)).toEqual({ error: '--k must be an integer from 1 to 100 (got "0")' });
  }, 120_000);

});

describe('the ELO report cache', () => {
  test('a report is reused while the book has not changed, and rebuilt once it has', async () => {
    const agent = await startAgent();
    try {
      const book = await eloBookOf(agent.runtime);
      book.recordAccess('file', 'src/a.ts', {});
      const first = await eloReport(book, { k: 3 });
      expect(await eloReport(book, { k: 3 })).toBe(first);
      expect(await eloReport(book, { k: 4 })).not.toBe(first);
      book.recordAccess('file', 'src/b.ts', {});
      const after = await eloReport(book, { k: 3 });
      expect(after).not.toBe(first);
      expect(after.top.file?.map((t) => t.id).sort()).toEqual(['src/a.ts', 'src/b.ts']);
    } finally {
      await agent.close();
    }
  }, 60_000);
});

describe('the default ELO report made ready ahead of reads', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-ahead-'));
    agent = await startAgent({ dataDir: dir, settings: SETTINGS });
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('computed when none is kept or the book changed, and before it expires while someone reads it; a read then gets it', async () => {
    const book = await eloBookOf(agent.runtime);
    book.recordAccess('file', 'AGENTS.md', { title: 'Agents guide', sessionId: 'S1' }, T);
    await book.flush();
    const ready = await refreshDefaultReport(book, 0);
    expect(ready?.distribution.overall.count).toBe(1);
    expect(await eloReport(book)).toBe(ready as NonNullable<typeof ready>);
    // The same figures as a report computed at its time.
    expect(await eloReport(book, { nowMs: Date.parse((ready as NonNullable<typeof ready>).as_of) })).toEqual(ready as NonNullable<typeof ready>);
    // Unchanged and far from expiry: it stands.
    expect(await refreshDefaultReport(book, 0)).toBeUndefined();
    // Read just now and within the margin of its expiry: computed again, and that one is read.
    const renewed = await refreshDefaultReport(book, REPORT_REUSE_MS);
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(ready);
    expect(await eloReport(book)).toBe(renewed as NonNullable<typeof renewed>);
    // A change to the book: the kept report is of the old book, so the next refresh computes one of the new.
    book.recordAccess('file', 'THOUGHT/LAB/idea.md', { sessionId: 'S1' }, T + MIN);
    await book.flush();
    const changed = await refreshDefaultReport(book, 0);
    expect(changed?.distribution.overall.count).toBe(2);
    expect(await eloReport(book)).toBe(changed as NonNullable<typeof changed>);
  }, 30_000);
});
