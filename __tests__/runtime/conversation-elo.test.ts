// What a person says about the agent's previous answer settles the items that were in that
// answer's prompt in the ELO book (issue 17, item 4): praise is a win, a correction a loss, only
// from trusted speakers, once per answer. A chat run's own end (no commits, no CI) moves nothing
// and leaves the answer to be judged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type AgentRuntime, createUniqueUuid, EventType, type Memory, stringToUuid, type UUID } from '@elizaos/core';
import { type EloBookService, eloBookOf, SCAN_LESSON_KIND } from '../../src/elo/elo-book-service';
import { makeRows } from '../helpers/rows';
import { chatMessage, emptyState, grantRole, startAgent, TEST_USER, type TestAgent } from '../helpers/runtime';

const STRANGER = stringToUuid('conversation-elo-stranger');
const ROWS = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'conv' });
const QUESTION = 'Is the semgrep xss finding on payments a real problem?';
const MINUTE = 60_000;

interface Answered {
  question: Memory;
  /** The lessons that were in the answer's prompt. */
  shown: string[];
  /** When the answer was stored: a person's next message comes after it. */
  answeredAt: number;
}

describe('praise and corrections settle the items of the answer they judge', () => {
  let agent: TestAgent;
  let book: EloBookService;
  let clock = Date.now() - 60 * MINUTE;
  const tick = () => (clock += MINUTE);

  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
    book = await eloBookOf(agent.runtime);
    await grantRole(agent.runtime, TEST_USER, 'OWNER');
    await agent.service.ingest(ROWS);
    await agent.service.learnPending({ asOf: Date.parse('2026-11-15T00:00:00Z') });
    expect(agent.service.listScanLessons().length).toBeGreaterThan(0);
  }, 60_000);
  afterAll(async () => {
    await agent.close();
  }, 60_000);

  /** A person asks, the providers put lessons into the prompt, the chat run ends, the agent's reply is stored (as bootstrap stores it). */
  async function askAndAnswer(from: UUID = TEST_USER, runStatus: 'completed' | 'timeout' = 'completed'): Promise<Answered> {
    const runtime = agent.runtime as AgentRuntime;
    const question = await chatMessage(runtime, QUESTION, { from, createdAt: tick() });
    await runtime.createMemory(question, 'messages');
    const composedAt = Date.now();
    await runtime.composeState(question);
    const shown = await lessonsRetrievedSince(composedAt);
    const runId = runtime.startRun(question.roomId) as UUID;
    const run = { runtime, source: 'test', runId, messageId: question.id, roomId: question.roomId, entityId: question.entityId, startTime: clock };
    await runtime.emitEvent(EventType.RUN_STARTED, { ...run, status: 'started' });
    await runtime.emitEvent(EventType.RUN_ENDED, { ...run, status: runStatus, endTime: clock + 1, duration: 1 });
    runtime.endRun();
    const answeredAt = tick();
    await runtime.createMemory(
      { id: stringToUuid(`answer-${question.id}`), entityId: runtime.agentId, agentId: runtime.agentId, roomId: question.roomId, content: { text: 'Probably a false positive.', inReplyTo: createUniqueUuid(runtime, question.id as string) }, createdAt: answeredAt },
      'messages',
    );
    return { question, shown, answeredAt };
  }

  /** A person's message evaluated as after the agent answered it (FEEDBACK_EXTRACTOR runs; no prompt is composed for it). */
  async function say(text: string, from: UUID = TEST_USER): Promise<Memory> {
    const message = await chatMessage(agent.runtime as AgentRuntime, text, { from, createdAt: tick() });
    await agent.runtime.createMemory(message, 'messages');
    await agent.runtime.evaluate(message, emptyState(), false);
    return message;
  }

  /** The lessons the providers recorded as shown in a prompt since `sinceMs` (the ELO book's search log). */
  async function lessonsRetrievedSince(sinceMs: number): Promise<string[]> {
    const entries = (await book.searchLogEntries(100)) as { timestamp: string; results: { hash: string; entity_type: string }[] }[];
    const results = entries.filter((e) => Date.parse(e.timestamp) >= sinceMs).flatMap((e) => e.results);
    return [...new Set(results.filter((r) => r.entity_type === SCAN_LESSON_KIND).map((r) => r.hash))].sort();
  }

  /** Stored ratings (as of each item's last change: no drift between two reads). */
  const ratings = (ids: readonly string[]) => ids.map((id) => ({ elo: book.rating(SCAN_LESSON_KIND, id)?.elo, updates: book.rating(SCAN_LESSON_KIND, id)?.updates }));

  test('an item shown in a praised answer gains ELO (one outcome update each), logged as answer_praised', async () => {
    const { shown } = await askAndAnswer();
    expect(shown.length).toBeGreaterThan(0);
    const before = ratings(shown);
    await say('Good job, that worked.');
    const after = ratings(shown);
    after.forEach((a, i) => {
      expect(a.elo).toBeGreaterThan(before[i]?.elo as number);
      expect(a.updates).toBe((before[i]?.updates as number) + 1);
    });
    const praised = (await book.updateLogEntries(200)).filter((u) => u.reason === 'answer_praised').map((u) => u.entity_id);
    expect(new Set(praised)).toEqual(new Set(shown));
  }, 60_000);

  test('praise twice (the same message evaluated again, then another praise) settles the answer once', async () => {
    const { shown } = await askAndAnswer();
    const first = await say('Good job, that worked.');
    const once = ratings(shown);
    await agent.runtime.evaluate(first, emptyState(), false);
    await say('Thanks, that is exactly what I wanted.');
    expect(ratings(shown)).toEqual(once);
  }, 60_000);

  test('an item shown in a corrected answer loses ELO, its rank boosts taken back', async () => {
    const { shown } = await askAndAnswer();
    const before = ratings(shown);
    await say("No, that's wrong.");
    const after = ratings(shown);
    after.forEach((a, i) => {
      expect(a.elo).toBeLessThan(before[i]?.elo as number);
      expect(a.updates).toBe((before[i]?.updates as number) + 1);
    });
    const reasons = new Set((await book.updateLogEntries(200)).map((u) => u.reason));
    expect([reasons.has('answer_corrected'), reasons.has('answer_corrected_boost_revoked')]).toEqual([true, true]);
  }, 60_000);

  test("an untrusted speaker's praise moves nothing; the answer is still there for a trusted verdict", async () => {
    const { shown } = await askAndAnswer(STRANGER);
    const before = ratings(shown);
    await say('Good job, that worked.', STRANGER);
    expect(ratings(shown)).toEqual(before);
    await say('Good job, that worked.');
    ratings(shown).forEach((a, i) => expect(a.elo).toBeGreaterThan(before[i]?.elo as number));
  }, 60_000);

  test('a chat run that timed out (no commits, no CI) is not a loss: its items are judged by what the person says', async () => {
    const { shown } = await askAndAnswer(TEST_USER, 'timeout');
    const settled = (await book.updateLogEntries(500)).filter((u) => u.reason === 'run_failed');
    expect(settled).toEqual([]);
    const before = ratings(shown);
    await say('Good job, that worked.');
    ratings(shown).forEach((a, i) => expect(a.elo).toBeGreaterThan(before[i]?.elo as number));
  }, 60_000);
});
