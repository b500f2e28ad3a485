import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { eloBookOf, EloBookService } from '../../src/elo/elo-book-service';
import { SCAN_LESSON_KIND } from '../../src/elo/elo-listeners';
import { EloStore } from '../../src/elo/elo-store';
import { applyRankBoost } from '../../src/elo/model/elo';
import { findingContext } from '../../src/elo/model/exposures';
import { eventsOf } from '../../src/shared/events';
import { eloExposures } from '../../src/elo/tables';
import { dbOf } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const MINUTE = 60_000;

describe('the ELO book\'s start: exposures read back, and what happens while it reads', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  test('2,600 exposures over 40 contexts, read a page at a time: the expired deleted, the rest grouped by context in order of first exposure, each in order of exposure', async () => {
    const db = dbOf(agent.runtime);
    const rows: { context: string; kind: string; id: string; boost: number; at: number }[] = [];
    for (let c = 0; c < 40; c++) {
      // Contexts whose names do not follow their times; two share a first exposure time.
      const context = `ctx-${String((c * 17) % 40).padStart(2, '0')}`;
      const first = NOW - (c === 7 ? 30 : c) * MINUTE;
      for (let i = 0; i < 65; i++) rows.push({ context, kind: i % 3 === 0 ? 'symbol' : 'file', id: `item-${(i * 7) % 65}`, boost: i % 4, at: first + (i % 5) * 1000 });
    }
    // Expired: older than the horizon asked for.
    rows.push({ context: 'old', kind: 'file', id: 'gone', boost: 16, at: NOW - 10 * 86_400_000 });
    for (let start = 0; start < rows.length; start += 500) {
      const values = rows
        .slice(start, start + 500)
        .map((r) => sql`(${agent.runtime.agentId}::uuid, ${r.context}, ${r.kind}, ${r.id}, ${r.boost}, ${new Date(r.at).toISOString()}::timestamptz)`);
      await db.execute(sql`INSERT INTO ${eloExposures} (agent_id, context, kind, item_id, boost, exposed_at) VALUES ${sql.join(values, sql`, `)}`);
    }
    const store = new EloStore(db, agent.runtime.agentId, 0.01);
    const loaded = await store.loadExposures(NOW - 86_400_000);

    const kept = rows.filter((r) => r.context !== 'old');
    const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const contexts = [...new Set(kept.map((r) => r.context))]
      .map((context) => ({ context, atMs: Math.min(...kept.filter((r) => r.context === context).map((r) => r.at)) }))
      .sort((a, b) => a.atMs - b.atMs || byCode(a.context, b.context));
    const expected = contexts.map(({ context, atMs }) => ({
      context,
      atMs,
      items: kept
        .filter((r) => r.context === context)
        .sort((a, b) => a.at - b.at || byCode(a.kind, b.kind) || byCode(a.id, b.id))
        .map((r) => ({ kind: r.kind, id: r.id, boost: r.boost })),
    }));
    expect(loaded).toEqual(expected);
    expect(loaded.reduce((n, c) => n + c.items.length, 0)).toBe(2_600);
    expect(Number((await db.execute(sql`SELECT count(*)::int AS n FROM ${eloExposures} WHERE context = 'old'`)).rows[0]?.n)).toBe(0);
  });

  test('what a provider showed, and the outcome judged on it, while the book read its items and exposures are made on it once it is open', async () => {
    // The agent's own book steps aside; a new one starts on the same database, as after a restart.
    await (await eloBookOf(agent.runtime)).stop();
    const starting = EloBookService.start(agent.runtime);
    const hub = eventsOf(agent.runtime);
    const shownAt = Date.now();
    hub.emit('itemsShown', { tool: 'scan_lessons', messageId: 'message-during-start', roomId: 'room-1', text: 'is this sql injection real?', items: [{ kind: SCAN_LESSON_KIND, id: 'lesson-shown' }], findingKey: 'finding-1' });
    hub.emit('workJudged', { judgements: [{ context: findingContext('finding-1'), reward: 1, reason: 'fixed' }] });
    const book = await starting;
    try {
      const shown = book.rating(SCAN_LESSON_KIND, 'lesson-shown');
      expect(shown).toBeDefined();
      // The retrieval's rank boost (not counted as an update), then the win of the outcome settled on its exposure.
      expect(shown?.updates).toBe(1);
      expect(shown?.lastUsedMs).toBeGreaterThanOrEqual(shownAt);
      expect(shown?.elo).toBeGreaterThan((shown?.startElo as number) + applyRankBoost(0, 1).delta);
    } finally {
      await book.stop();
    }
  });
});
