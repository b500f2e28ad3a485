import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type Action, type AgentRuntime, EventType, type Memory, type Plugin, stringToUuid, type UUID } from '@elizaos/core';
import { deployApp } from '../helpers/failing-deploy';
import { onActionCompletedAudit, onActionStartedAudit } from '../../src/rules/surfaces/rule-audit-events';
import { runEvents } from '../../src/trajectories/surfaces/run-events';
import { unwrapped } from '../../src/shared/plugin-start';
import { explicitFeedbackEvent } from '../../src/rules/model/feedback-detect';
import { RULES_PROMPT_HEADER } from '../../src/rules/model/prompt';
import type { LearningEvent } from '../../src/rules/model/types';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { isoDay } from '../../src/rules/model/dates';
import { chatMessage, emptyState, grantRole, promptSection, startAgent, TEST_USER, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

const BOOT_MS = 60_000;
const TEST_MS = 60_000;
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** 10:00 UTC three days ago: the messages of one test day share a UTC date, and rules made then are still in their grace period. */
const DAY0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY + 10 * HOUR;
/** A second trusted person: an ADMIN of the test world. */
const ADMIN = stringToUuid('test-admin');
/** Anyone else in the room. */
const STRANGER = stringToUuid('test-stranger');

const CORRECTION = 'No — never run rm -rf in deploy scripts.';
const CONFIRMATIONS = ['I told you: never run rm -rf in deploy scripts!', 'Again — never run rm -rf in deploy scripts.'];
const LATER = 'Never run rm -rf in deploy scripts.';

/** Test-only actions: a shell step that succeeds and a deploy that fails. */
const runShell: Action = { name: 'RUN_SHELL', description: 'runs a shell command', similes: [], examples: [], validate: async () => true, handler: async () => ({ success: true, text: 'done' }) };
const archiveBuilds: Action = { name: 'ARCHIVE_BUILDS', description: 'moves old builds to the archive', similes: [], examples: [], validate: async () => true, handler: async () => ({ success: true, text: 'moved 3 builds (rm -rf is not allowed in deploy scripts)' }) };
const toolsPlugin: Plugin = { name: 'test-rule-tools', description: 'test actions', actions: [runShell, archiveBuilds, deployApp] };

async function events(book: RuleBookService): Promise<LearningEvent[]> {
  return (await book.store.loadEvents()).items;
}

/** A person's message, evaluated as after a message the agent did not answer (only `alwaysRun` evaluators run). */
async function evaluateChat(runtime: AgentRuntime, text: string, options: { from?: UUID; createdAt?: number } = {}): Promise<{ message: Memory; ran: string[] }> {
  const message = await chatMessage(runtime, text, options);
  const ran = (await runtime.evaluate(message, emptyState(), false)) ?? [];
  return { message, ran: ran.map((e) => e.name) };
}

/** Runs `action` through the runtime as the agent's response to a stored request, with `thought` as the agent's reason. */
async function runAction(runtime: AgentRuntime, request: string, action: string, thought: string, from?: UUID): Promise<void> {
  const message = await chatMessage(runtime, request, from ? { from } : {});
  await runtime.createMemory(message, 'messages');
  const response = { ...message, id: undefined, entityId: runtime.agentId, content: { text: thought, thought, actions: [action] } };
  await runtime.processActions(message, [response as never], emptyState());
}

describe('rules from conversation and the action audit on a real runtime (no language model)', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [toolsPlugin] });
    book = await ruleBookOf(agent.runtime);
    // The test user owns the test world, as the owner of a server does; the second person is an admin.
    await grantRole(agent.runtime, TEST_USER, 'OWNER');
    await grantRole(agent.runtime, ADMIN, 'ADMIN');
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  test('FEEDBACK_EXTRACTOR runs only for feedback from a person', async () => {
    expect((await evaluateChat(agent.runtime, 'what time is the deploy tomorrow?')).ran).not.toContain('FEEDBACK_EXTRACTOR');
    const own = { ...(await chatMessage(agent.runtime, 'Never mind, I will never run that again.')), entityId: agent.runtime.agentId };
    expect(((await agent.runtime.evaluate(own, emptyState(), false)) ?? []).map((e) => e.name)).not.toContain('FEEDBACK_EXTRACTOR');
    expect(await events(book)).toEqual([]);
  }, TEST_MS);

  test('a correction in chat becomes a feedback event with the exact words and who said it, and a candidate rule, not an active one', async () => {
    const { message, ran } = await evaluateChat(agent.runtime, CORRECTION, { createdAt: DAY0 });
    expect(ran).toContain('FEEDBACK_EXTRACTOR');
    const stored = await events(book);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: 'feedback', category: 'shell', source: 'chat', feedback: CORRECTION, solution: 'Never run rm -rf in deploy scripts', tsMs: message.createdAt, teacher: { entityId: TEST_USER, trusted: true } });
    expect(stored[0]?.tags).toContain('negative');
    expect(book.rules({ status: 'active' })).toEqual([]);
    expect(book.rules().map((r) => [r.id, r.type, r.status])).toEqual([['R-001', 'NEVER', 'candidate']]);
    // the same message evaluated again is the same event
    await agent.runtime.evaluate(message, emptyState(), false);
    expect(await events(book)).toHaveLength(1);
  }, TEST_MS);

  test('the owner repeating the correction the same day is one confirmation: no promotion, nothing in the prompt', async () => {
    for (const [i, text] of CONFIRMATIONS.entries()) await evaluateChat(agent.runtime, text, { createdAt: DAY0 + (i + 1) * HOUR });
    expect(await events(book)).toHaveLength(3);
    const [lesson] = book.ruleLessons();
    expect([lesson?.sourceEventIds.length, lesson?.trustedConfirmations, lesson?.candidateRule]).toEqual([3, [`${TEST_USER}@${isoDay(DAY0)}`], 'R-001']);
    expect(book.rule('R-001')?.status).toBe('candidate');
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, 'write the cleanup step of the deploy script'));
    expect(state.text).not.toContain(RULES_PROMPT_HEADER);
    expect(state.values.topRuleIds).toEqual([]);
  }, TEST_MS);

  test('confirmations on another day and from another trusted person promote it: a NEVER rule composeState shows with its id and confidence', async () => {
    await evaluateChat(agent.runtime, LATER, { createdAt: DAY0 + DAY });
    expect(book.rule('R-001')?.status).toBe('candidate');
    await evaluateChat(agent.runtime, LATER, { from: ADMIN, createdAt: DAY0 + DAY + HOUR });
    expect(await events(book)).toHaveLength(5);
    expect(book.ruleLessons()[0]?.trustedConfirmations).toEqual([`${TEST_USER}@${isoDay(DAY0)}`, `${TEST_USER}@${isoDay(DAY0 + DAY)}`, `${ADMIN}@${isoDay(DAY0 + DAY)}`]);
    const [rule] = book.rules();
    expect(rule).toMatchObject({ id: 'R-001', type: 'NEVER', category: 'shell', rule: 'Never run rm -rf in deploy scripts', confidenceScore: 0.9, status: 'active' });
    const message = await chatMessage(agent.runtime, 'write the cleanup step of the deploy script');
    const state = await agent.runtime.composeState(message);
    expect(promptSection(state.text, RULES_PROMPT_HEADER)).toBe(`${RULES_PROMPT_HEADER}\n- [R-001 NEVER 0.90] Never run rm -rf in deploy scripts`);
    expect(state.values.topRuleIds).toEqual(['R-001']);
    // shown rules are one retrieval per message in the ELO book, however often the state is composed
    await agent.runtime.composeState(message, null, false, true);
    const elo = await eloBookOf(agent.runtime);
    await elo.flush();
    const retrievals = (await elo.searchLogEntries(100)).filter((s) => s.tool === 'top_rules');
    expect(retrievals).toHaveLength(1);
    expect(retrievals[0]).toMatchObject({ session_id: message.roomId, results: [{ hash: 'R-001', entity_type: 'rule', rank: 1 }] });
  }, TEST_MS);

  test('the action audit\'s handlers are registered next to the trajectory recorder\'s', () => {
    for (const [event, audit] of [[EventType.ACTION_STARTED, onActionStartedAudit], [EventType.ACTION_COMPLETED, onActionCompletedAudit]] as const) {
      // Each waits for the services' start (`eventsAfterStart`); behind that, the recorder's, then the audit's.
      expect((agent.runtime.getEvent(event) ?? []).map(unwrapped)).toEqual([...(runEvents[event] ?? []), audit] as never);
    }
  });

  test('an action the owner asked for that does what a NEVER rule forbids is audited, logged and counted as a violation in the ledger', async () => {
    await runAction(agent.runtime, 'please clean the build folder of the deploy scripts', 'RUN_SHELL', 'I will run rm -rf build/ in the deploy scripts folder');
    const [entry] = await book.guardLog(1);
    expect(entry).toMatchObject({ matchedRules: ['R-001'], outcome: 'success', saveLogged: false });
    expect(entry?.action).toStartWith('RUN_SHELL (run shell): I will run rm -rf build/ in the deploy scripts folder. Request: please clean the build folder');
    expect(entry?.scores['R-001']).toBeGreaterThanOrEqual(book.settings.guardThreshold);
    expect(book.rule('R-001')).toMatchObject({ violations: 1, validationCount: 0 });
    const [tx] = await (await rewardLedgerOf(agent.runtime)).history({ limit: 1, category: 'rule_violated' });
    expect(tx).toMatchObject({ type: 'penalty', source: 'rule', source_ref: 'R-001#1' });
    expect(tx?.action).toContain(entry?.id as string);
  }, TEST_MS);

  test('an action in the rule\'s scope that does not do the forbidden thing validates it: a save (the request and the tool output naming it do not count)', async () => {
    await runAction(agent.runtime, 'tidy up the deploy scripts, rm -rf is not allowed there', 'ARCHIVE_BUILDS', 'Move the old builds out of the deploy scripts folder into the archive');
    const [entry] = await book.guardLog(1);
    expect(entry).toMatchObject({ matchedRules: ['R-001'], outcome: 'success', saveLogged: true });
    expect(book.rule('R-001')).toMatchObject({ violations: 1, validationCount: 1, confidenceScore: 0.9 });
    const [tx] = await (await rewardLedgerOf(agent.runtime)).history({ limit: 1, category: 'rule_validated' });
    expect(tx).toMatchObject({ type: 'reward', source: 'rule', source_ref: 'R-001#1' });
  }, TEST_MS);

  test('an action run for someone who may not teach is audited and logged, but moves no rule and no ledger entry', async () => {
    const before = book.rule('R-001');
    const ledger = await rewardLedgerOf(agent.runtime);
    const entries = (await ledger.history({ limit: 1_000 })).length;
    await runAction(agent.runtime, 'please clean the build folder of the deploy scripts', 'RUN_SHELL', 'I will run rm -rf build/ in the deploy scripts folder', STRANGER);
    const [entry] = await book.guardLog(1);
    expect(entry).toMatchObject({ matchedRules: ['R-001'], outcome: 'success', saveLogged: false });
    expect(entry?.action).toContain('I will run rm -rf build/');
    expect(book.rule('R-001')).toEqual(before);
    expect(await ledger.history({ limit: 1_000 })).toHaveLength(entries);
  }, TEST_MS);

  test('a failed action settles its guard entry as a failure and becomes a mistake event from the action, taught by the person it answered', async () => {
    const before = (await events(book)).length;
    await runAction(agent.runtime, 'ship the new version', 'DEPLOY_APP', 'Deploying the app to production');
    const [entry] = await book.guardLog(1);
    expect(entry).toMatchObject({ matchedRules: [], outcome: 'failure' });
    const stored = await events(book);
    expect(stored).toHaveLength(before + 1);
    const failure = stored.find((e) => e.source === 'action');
    expect(failure).toMatchObject({ type: 'mistake', problem: 'The action DEPLOY_APP failed: exit code 1: permission denied on /srv/app', solution: '', teacher: { entityId: TEST_USER, trusted: true } });
    expect(book.rule('R-001')).toMatchObject({ violations: 1, validationCount: 1 });
  }, TEST_MS);

  test('the audit handlers never throw, whatever the payload', async () => {
    const runtime = agent.runtime;
    for (const content of [undefined, {}, { actionId: 'unknown-action', actionStatus: 'failed', actionResult: null }]) {
      const payload = { runtime, source: 'test', roomId: undefined, world: undefined, content } as never;
      expect(await onActionStartedAudit(payload)).toBeUndefined();
      expect(await onActionCompletedAudit(payload)).toBeUndefined();
    }
  }, TEST_MS);

  test('a rule flagged for review (decayed below 0.5) is not in composeState', async () => {
    const decay = await book.applyDecay(Date.now() + 3650 * DAY);
    expect(decay.flagged).toBe(1);
    expect(book.rule('R-001')?.reviewFlagged).toBe(true);
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, 'write the cleanup step of the deploy script'));
    expect(state.text).not.toContain(RULES_PROMPT_HEADER);
    expect(state.text).not.toContain('R-001');
    expect(state.values.topRuleIds).toEqual([]);
  }, TEST_MS);
});

/** The person's message inside a feedback prompt (`buildFeedbackPrompt`), or null for any other prompt. */
const personMessageIn = (prompt: string) => /<person_message>\n([\s\S]*?)\n<\/person_message>/.exec(prompt)?.[1] ?? null;

const PREFERENCE = "I'd rather you use pnpm instead of npm in this repo.";
/** Matches the instruction pattern ("next time …"), but teaches nothing: the model says so. */
const QUESTION = "Next time we meet, let's plan the sprint.";
const FAILED = "That didn't work.";
/** The test model fails on this one, as a provider outage would. */
const OUTAGE = 'You broke the build again.';
/** What the test model answers for each message of a feedback prompt. */
const MODEL_ANSWERS: Record<string, string> = {
  [PREFERENCE]: 'Here is the classification:\n{"type":"Feedback","problem":"ran npm install in a pnpm workspace","solution":"Use pnpm, not npm, in this repository","category":"tooling","tags":["pnpm","npm"],"polarity":"negative"}',
  [QUESTION]: '{"type":"none"}',
  [FAILED]: 'Sure! The person seems unhappy with the result.',
};

describe('FEEDBACK_EXTRACTOR with a language model', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  let calls: ReturnType<typeof createTestModelsPlugin>['calls'];
  beforeAll(async () => {
    const models = createTestModelsPlugin({
      textSmall: (prompt) => {
        if (personMessageIn(prompt) === OUTAGE) throw new Error('model provider unavailable');
        return MODEL_ANSWERS[personMessageIn(prompt) ?? ''] ?? 'unexpected prompt';
      },
    });
    calls = models.calls;
    agent = await startAgent({ plugins: [models.plugin] });
    book = await ruleBookOf(agent.runtime);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  test('the model classifies and extracts what the patterns cannot; the recent conversation is in its prompt', async () => {
    const earlier = { ...(await chatMessage(agent.runtime, 'I ran npm install for you.')), entityId: agent.runtime.agentId, createdAt: Date.now() - 1000 };
    await agent.runtime.createMemory(earlier, 'messages');
    const { message, ran } = await evaluateChat(agent.runtime, PREFERENCE);
    expect(ran).toContain('FEEDBACK_EXTRACTOR');
    expect(calls.textSmall).toHaveLength(1);
    expect(calls.textSmall[0]?.prompt).toContain('agent: I ran npm install for you.');
    const stored = await events(book);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      type: 'feedback',
      category: 'tooling',
      tags: ['negative', 'npm', 'pnpm'],
      problem: 'ran npm install in a pnpm workspace',
      solution: 'Use pnpm, not npm, in this repository',
      feedback: PREFERENCE,
      source: 'chat',
      tsMs: message.createdAt,
    });
  }, TEST_MS);

  test('a message the model calls none records nothing, though the patterns alone would have', async () => {
    expect(explicitFeedbackEvent(QUESTION, { nowMs: 0, source: 'chat' })).not.toBeNull();
    const { ran } = await evaluateChat(agent.runtime, QUESTION);
    expect(ran).toContain('FEEDBACK_EXTRACTOR');
    expect(calls.textSmall.map((c) => personMessageIn(c.prompt))).toContain(QUESTION);
    expect(await events(book)).toHaveLength(1);
  }, TEST_MS);

  test('an answer that does not parse, or a failed model call, falls back to the explicit patterns', async () => {
    for (const text of [FAILED, OUTAGE]) {
      await evaluateChat(agent.runtime, text);
      expect(calls.textSmall.map((c) => personMessageIn(c.prompt))).toContain(text);
      expect((await events(book)).find((e) => e.feedback === text)).toMatchObject({ type: 'mistake', problem: text, solution: '' });
    }
  }, TEST_MS);

  test('with SELF_IMPROVE_LESSON_MODEL=off the model is not asked', async () => {
    agent.runtime.setSetting('SELF_IMPROVE_LESSON_MODEL', 'off');
    try {
      const asked = calls.textSmall.length;
      const text = 'Good job, that worked.';
      await evaluateChat(agent.runtime, text);
      expect(calls.textSmall).toHaveLength(asked);
      expect((await events(book)).find((e) => e.feedback === text)).toMatchObject({ type: 'success', tags: expect.arrayContaining(['positive']) });
    } finally {
      agent.runtime.setSetting('SELF_IMPROVE_LESSON_MODEL', 'auto');
    }
  }, TEST_MS);
});
