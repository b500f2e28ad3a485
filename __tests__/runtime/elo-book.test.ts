import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import { eloItems } from '../../src/elo/tables';
import { dbOf, queryRows } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

describe('the ELO book on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  let book: EloBookService;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-'));
    agent = await startAgent({ dataDir: dir });
    book = await eloBookOf(agent.runtime);
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  const storedRows = async () =>
    Number((await queryRows<{ n: number }>(dbOf(agent.runtime), sql`SELECT count(*)::int AS n FROM ${eloItems} WHERE agent_id = ${agent.runtime.agentId}::uuid`))[0]?.n ?? 0);

  test('retrievals give rank boosts (+16, +8, +4, 0) from 1200, in memory first, then written as one batch', async () => {
    book.recordRetrieval({ tool: 'scan_lessons', query: 'xss on payments', results: [1, 2, 6, 11].map((rank) => ({ kind: 'lesson', id: `L${rank}`, rank })) }, Date.parse('2026-11-22T10:00:00Z'));
    expect(['L1', 'L2', 'L6', 'L11'].map((id) => book.rating('lesson', id)?.elo)).toEqual([1216, 1208, 1204, 1200]);
    expect(await storedRows()).toBe(0);
    expect(book.pendingChanges).toBe(4);
    await book.flush();
    expect(await storedRows()).toBe(4);
    const [update] = await book.updateLogEntries(1);
    expect(update).toEqual({ timestamp: '2026-11-22T10:00:00.000Z', entity_type: 'lesson', entity_id: 'L6', elo_old: 1200, elo_new: 1204, delta: 4, reason: 'scan_lessons_rank_6' });
    const [search] = await book.searchLogEntries(1);
    expect(search).toMatchObject({ tool: 'scan_lessons', query: 'xss on payments', results: [{ hash: 'L1', rank: 1 }, { hash: 'L2', rank: 2 }, { hash: 'L6', rank: 6 }, { hash: 'L11', rank: 11 }] });
  });

  test('a rewarded outcome raises the items in use, a penalised one lowers them', async () => {
    const before = book.rating('lesson', 'L1')?.elo as number;
    book.recordOutcome([{ kind: 'lesson', id: 'L1' }], 1, 'outcome_reward');
    const afterWin = book.rating('lesson', 'L1')?.elo as number;
    expect(afterWin).toBeGreaterThan(before);
    book.recordOutcome([{ kind: 'lesson', id: 'L1' }], 0, 'outcome_penalty');
    expect(book.rating('lesson', 'L1')?.elo as number).toBeLessThan(afterWin);
    expect(book.rating('lesson', 'L1')?.updates).toBe(2);
  });

  test('a restart keeps the ratings: pending changes are written when the agent stops', async () => {
    book.recordOutcome([{ kind: 'file', id: 'src/db.ts' }], 1, 'outcome_reward');
    const expected = book.rating('file', 'src/db.ts')?.elo;
    const l1 = book.rating('lesson', 'L1')?.elo;
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    book = await eloBookOf(agent.runtime);
    expect(book.rating('file', 'src/db.ts')?.elo).toBe(expected as number);
    expect(book.rating('lesson', 'L1')?.elo).toBe(l1 as number);
    expect(book.rating('lesson', 'L1')?.updates).toBe(2);
  });

  test('recordAccess: a new item starts in the tier the map gives its path, each access is a use; content makes it a candidate', async () => {
    const t0 = Date.parse('2026-11-22T12:00:00Z');
    const canon = book.recordAccess('file', 'LAW/CANON/constitution.md', { title: 'Constitution', text: 'The canon. It rules.' }, t0);
    expect(canon.startElo).toBe(1600);
    // K 16 × (1 − sigmoid(400/400)) = 16 × 0.26894 = 4.303
    expect(canon.elo).toBeCloseTo(1600 + 16 * (1 - 1 / (1 + Math.exp(-1))), 9);
    expect(book.recordAccess('file', 'THOUGHT/LAB/idea.md', {}, t0).startElo).toBe(800);
    expect(book.recordAccess('file', 'x', { path: 'src/fixtures/a.json' }, t0).startElo).toBe(800);
    expect(book.recordAccess('symbol', '@Parse', {}, t0).startElo).toBe(1200);
    expect(book.searchContent('what does the canon say', 5).map((m) => m.item.id)).toEqual(['LAW/CANON/constitution.md']);
    const [update] = await book.updateLogEntries(1);
    expect(update).toMatchObject({ entity_type: 'symbol', entity_id: '@Parse', reason: 'symbol_access', elo_old: 1200 });
  });

  test('an unused item drifts back toward its start, computed from timestamps (1% of the gap a day)', () => {
    const t0 = Date.parse('2026-11-22T12:00:00Z');
    const item = book.recordAccess('file', 'src/hot.ts', {}, t0);
    for (let i = 1; i <= 20; i++) book.recordAccess('file', 'src/hot.ts', {}, t0 + i);
    const used = book.currentElo('file', 'src/hot.ts', t0 + 20);
    expect(used).toBeGreaterThan(item.elo);
    const day = 86_400_000;
    expect(book.currentElo('file', 'src/hot.ts', t0 + 20 + 69 * day)).toBeCloseTo(1200 + (used - 1200) * 0.99 ** 69, 6);
    expect(book.currentElo('file', 'src/hot.ts', t0 + 20 + 3650 * day)).toBeGreaterThanOrEqual(1200);
    // Touching it later first applies the drift (logged), then the use.
    const later = book.recordAccess('file', 'src/hot.ts', {}, t0 + 20 + 30 * day);
    expect(later.elo).toBeLessThan(used);
  });

  test('integrator content survives a restart with its rating', async () => {
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    book = await eloBookOf(agent.runtime);
    expect(book.rating('file', 'LAW/CANON/constitution.md')).toMatchObject({ title: 'Constitution', body: 'The canon. It rules.', startElo: 1600 });
    expect(book.searchContent('canon', 5).map((m) => m.item.id)).toEqual(['LAW/CANON/constitution.md']);
  });

  test('what was shown under a finding survives a restart: its later penalty still takes back the boost and counts a loss', async () => {
    const t0 = Date.now();
    book.recordRetrieval({ tool: 'scan_lessons', query: 'finding k-restart', results: [{ kind: 'lesson', id: 'L-restart', rank: 1 }], exposeUnder: ['finding:k-restart'] }, t0);
    const shown = book.rating('lesson', 'L-restart')?.elo as number;
    expect(shown).toBe(1216);
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    book = await eloBookOf(agent.runtime);
    expect(book.settle('finding:k-restart', -1, 'finding_rejected_fp', { atMs: t0 + 1 })).toEqual([{ kind: 'lesson', id: 'L-restart' }]);
    // boost taken back (1216 -> 1200), then a loss from 1200: 16 × (0 − 0.5) = −8
    expect(book.rating('lesson', 'L-restart')?.elo).toBeCloseTo(1192, 6);
    // settled: the boost cannot be taken back twice, even after another restart
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    book = await eloBookOf(agent.runtime);
    book.settle('finding:k-restart', -1, 'finding_rejected_fp', { atMs: t0 + 2 });
    const [last] = await book.updateLogEntries(1);
    expect(last).toMatchObject({ entity_id: 'L-restart', reason: 'finding_rejected_fp' });
    expect((await book.updateLogEntries(10)).filter((u) => u.reason === 'finding_rejected_fp_boost_revoked')).toHaveLength(1);
  }, 60_000);
});
