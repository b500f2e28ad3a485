import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type Action, type Content, EventType, type IAgentRuntime, ModelType, type Plugin } from '@elizaos/core';
import { RULES_PROMPT_HEADER } from '../../src/rules/model/prompt';
import { topRulesProvider } from '../../src/rules/surfaces/top-rules-provider';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { chatMessage, emptyState, grantRole, promptSection, startAgent, TEST_USER, type TestAgent } from '../helpers/runtime';
import { rmEvent, thrice } from '../helpers/seed-events';
import { createTestModelsPlugin } from '../helpers/test-models';

const BOOT_MS = 60_000;
const TEST_MS = 60_000;

/**
 * What ElizaOS 1.7.2 lets a plugin do about an action it has a rule against, shown on a real
 * runtime: it cannot veto the action (the ACTION_STARTED event is awaited, but what a handler
 * returns is ignored; a handler that throws rejects `processActions` itself, so the message fails
 * with no reply), so the plugin audits; what can keep the agent from the action is the rule in the
 * prompt it plans its actions from.
 */
describe('the action audit, and the rules in the planning prompt', () => {
  let agent: TestAgent;
  let book: RuleBookService;
  const plannerPrompts: string[] = [];
  const ran: string[] = [];
  const cleanup: Action = {
    name: 'RUN_CLEANUP',
    description: 'runs a cleanup script',
    similes: [],
    examples: [],
    validate: async () => true,
    handler: async () => {
      ran.push('RUN_CLEANUP');
      return { success: true, text: 'cleaned' };
    },
  };
  /** TEXT_LARGE as the message handler calls it: records the prompt, answers with a plan that only replies. */
  const planner: Plugin = {
    name: 'test-planner',
    description: 'records the message-handler prompt',
    priority: 100,
    models: {
      [ModelType.TEXT_LARGE]: async (_rt: IAgentRuntime, params: { prompt: string }) => {
        plannerPrompts.push(params.prompt);
        return '<response><thought>Answer without running anything.</thought><actions>REPLY</actions><providers></providers><text>Noted.</text></response>';
      },
    },
    actions: [cleanup],
  };

  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin, planner] });
    book = await ruleBookOf(agent.runtime);
    expect((await book.ingestEvents(thrice(rmEvent, 1), 'test')).rulesPromoted).toEqual(['R-001']);
    // the person asking owns the test world, so the audit's verdicts count
    await grantRole(agent.runtime, TEST_USER, 'OWNER');
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  test('TOP_RULES is not dynamic, so a NEVER rule that matches the message is in the prompt the message handler plans actions from', async () => {
    expect(topRulesProvider.dynamic).toBe(false);
    const message = await chatMessage(agent.runtime, 'write a script that runs rm -rf on a path built from a variable');
    const replies: Content[] = [];
    await agent.runtime.messageService?.handleMessage(agent.runtime, message, async (content) => {
      replies.push(content);
      return [];
    });
    expect(replies.map((r) => r.text)).toEqual(['Noted.']);
    expect(plannerPrompts).toHaveLength(1);
    const [prompt] = plannerPrompts;
    expect(promptSection(prompt ?? '', RULES_PROMPT_HEADER).split('\n').slice(0, 2)).toEqual([RULES_PROMPT_HEADER, '- [R-001 NEVER 0.90] Never run rm -rf on a path built from a ‹b›variable‹/b› in a script']);
    expect(prompt).toContain('decide what actions to take');
  }, TEST_MS);

  test('core runs the action whatever an ACTION_STARTED handler answers: the plugin can only audit it', async () => {
    const vetoes: string[] = [];
    agent.runtime.registerEvent(EventType.ACTION_STARTED, async () => {
      vetoes.push('asked to stop');
      return false as never;
    });
    const message = await chatMessage(agent.runtime, 'run rm -rf on a path built from a variable in the cleanup script');
    await agent.runtime.createMemory(message, 'messages');
    const response = { ...message, id: undefined, entityId: agent.runtime.agentId, content: { text: '', thought: 'I will run rm -rf on a path built from a variable in the cleanup script', actions: ['RUN_CLEANUP'] } };
    await agent.runtime.processActions(message, [response as never], emptyState());
    expect(vetoes).toEqual(['asked to stop']);
    expect(ran).toEqual(['RUN_CLEANUP']);
    const [entry] = await book.guardLog(1);
    expect(entry).toMatchObject({ matchedRules: ['R-001'], outcome: 'success' });
    expect(book.rule('R-001')?.violations).toBe(1);
  }, TEST_MS);

  test('a handler that throws keeps the action from running only by failing the whole run: no reply can say why, later actions and evaluators do not run', async () => {
    agent.runtime.registerEvent(EventType.ACTION_STARTED, async () => {
      throw new Error('stop');
    });
    const message = await chatMessage(agent.runtime, 'clean up again');
    const response = { ...message, id: undefined, entityId: agent.runtime.agentId, content: { text: '', thought: 'cleaning', actions: ['RUN_CLEANUP'] } };
    await expect(agent.runtime.processActions(message, [response as never], emptyState())).rejects.toThrow('stop');
    expect(ran).toEqual(['RUN_CLEANUP']);
  }, TEST_MS);
});
