import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tierOf } from '../../src/elo/model/tiers';
import { HIGH_ELO_CONTEXT_HEADER } from '../../src/elo/model/context-text';
import { escapeForPrompt } from '../../src/shared/prompt-text';
import { type EloBookService, eloBookOf, SCAN_LESSON_KIND } from '../../src/elo/elo-book-service';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { makeRows } from '../helpers/rows';
import { chatMessage, promptSection, startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

const XSS = { project: 'payments', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' };
const SQL = { project: 'mobile', scanner: 'codeql', model_provider: 'openai', model_name: 'gpt-4o', category: 'sql-injection' };
// SCAN_LESSONS has room for the finding's prior only: the lesson behind it is shown (once) by HIGH_ELO_CONTEXT.
const SETTINGS = { SELF_IMPROVE_LESSON_MODEL: 'off', SELF_IMPROVE_LESSON_TOKEN_BUDGET: '100', SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET: '800' };

describe('ELO on a real runtime: outcomes move what was in the prompt, and HIGH items are shown in full', () => {
  let dir: string;
  let agent: TestAgent;
  let book: EloBookService;
  let xssLesson: ScanLesson;
  let sqlLesson: ScanLesson;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-elo-context-'));
    agent = await startAgent({ dataDir: dir, plugins: [createTestModelsPlugin().plugin], settings: SETTINGS });
    await agent.service.ingest(makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], ...XSS, keyPrefix: 'p-xss' }));
    await agent.service.ingest(makeRows({ n: 40, labels: ['fixed', 'fixed', 'accepted', 'fixed'], ...SQL, keyPrefix: 'p-sql' }));
    await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
    book = await eloBookOf(agent.runtime);
    const lessons = agent.service.listScanLessons();
    xssLesson = lessons.find((l) => l.metadata.finding_category === 'xss') as ScanLesson;
    sqlLesson = lessons.find((l) => l.metadata.finding_category === 'sql-injection') as ScanLesson;
  }, 60_000);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The agent talks about a new finding of `scope`, then the finding comes back with `label`. */
  async function round(scope: typeof XSS, key: string, label: 'fixed' | 'rejected_fp'): Promise<string> {
    await agent.service.recordFindings([{ finding_key: key, ts: '2026-11-20T10:00:00Z', ...scope }]);
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, `what do you make of finding ${key}?`));
    await agent.service.ingest([{ finding_key: key, label, ts: '2026-11-21T10:00:00Z', ...scope }]);
    return state.text;
  }

  test('both lessons are content candidates and start MEDIUM', () => {
    expect(book.content.get(SCAN_LESSON_KIND, xssLesson.id)?.text).toBe(xssLesson.text);
    expect(book.content.get(SCAN_LESSON_KIND, sqlLesson.id)?.text).toBe(sqlLesson.text);
    expect(book.currentElo(SCAN_LESSON_KIND, xssLesson.id)).toBe(1200);
  });

  test('a lesson shown while findings get fixed rises to HIGH and then appears in full; one shown while findings are false positives falls', async () => {
    let lastText = '';
    for (let i = 0; i < 24; i++) {
      lastText = await round(XSS, `payments:xss:${i}`, 'fixed');
      await round(SQL, `mobile:sql:${i}`, 'rejected_fp');
    }
    const xssElo = book.currentElo(SCAN_LESSON_KIND, xssLesson.id);
    const sqlElo = book.currentElo(SCAN_LESSON_KIND, sqlLesson.id);
    expect(tierOf(xssElo)).toBe('HIGH');
    expect(sqlElo).toBeLessThan(1200);
    expect(lastText).toContain(HIGH_ELO_CONTEXT_HEADER);
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, 'what do you make of finding payments:xss:99?'));
    const block = promptSection(state.text, HIGH_ELO_CONTEXT_HEADER);
    expect(block.split('\n')[1]).toMatch(new RegExp(`^- \\[lesson ${xssLesson.id}\\] \\(HIGH, elo 1[6-9]\\d\\d\\) `));
    expect(block).toContain(`: ${escapeForPrompt(xssLesson.text, 1200)}`);
    expect(state.values.highEloContextIds).toContain(`lesson:${xssLesson.id}`);
  }, 120_000);

  test('the logs tell the story in the seed formats', async () => {
    const updates = await book.updateLogEntries(5000);
    const reasons = new Set(updates.filter((u) => u.entity_id === sqlLesson.id).map((u) => u.reason));
    expect(reasons).toContain('finding_rejected_fp');
    expect(reasons).toContain('finding_rejected_fp_boost_revoked');
    expect(updates.filter((u) => u.entity_id === xssLesson.id).map((u) => u.reason)).toContain('finding_fixed');
    const [search] = await book.searchLogEntries(1);
    expect(search).toMatchObject({ tool: expect.stringMatching(/^(scan_lessons|high_elo_context)$/), results: expect.any(Array) });
    const retrievals = (await book.searchLogEntries(5000)).filter((s) => s.tool === 'high_elo_context');
    expect(retrievals.length).toBeGreaterThan(0);
    expect(retrievals[0]).toMatchObject({ tokens_full: expect.any(Number), tokens_packed: expect.any(Number) });
  });

  test('each provider records its retrieval once per message, however often the state is composed', async () => {
    const message = await chatMessage(agent.runtime, 'what do you make of finding payments:xss:5?');
    const before = book.currentElo(SCAN_LESSON_KIND, xssLesson.id);
    await agent.runtime.composeState(message, null, false, true);
    const once = book.currentElo(SCAN_LESSON_KIND, xssLesson.id);
    await agent.runtime.composeState(message, null, false, true);
    await agent.runtime.composeState(message, null, false, true);
    expect(once).toBeGreaterThan(before + 1);
    expect(book.currentElo(SCAN_LESSON_KIND, xssLesson.id)).toBeCloseTo(once, 2);
  });

  test('a restart keeps the scores, and the session that was open is in the audit log', async () => {
    const xss = book.currentElo(SCAN_LESSON_KIND, xssLesson.id);
    const sql = book.currentElo(SCAN_LESSON_KIND, sqlLesson.id);
    await agent.close();
    agent = await startAgent({ dataDir: dir, plugins: [createTestModelsPlugin().plugin], settings: SETTINGS });
    book = await eloBookOf(agent.runtime);
    expect(book.currentElo(SCAN_LESSON_KIND, xssLesson.id)).toBeCloseTo(xss, 2);
    expect(book.currentElo(SCAN_LESSON_KIND, sqlLesson.id)).toBeCloseTo(sql, 2);
    const [session] = await book.sessionLogEntries(1);
    expect(session).toMatchObject({ agent_id: agent.runtime.agentId, search_queries: expect.any(Number), items_used: { lesson: expect.arrayContaining([xssLesson.id]) } });
  }, 60_000);
});
