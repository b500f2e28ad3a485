import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Action, ActionResult, Content, Memory } from '@elizaos/core';
import { retireRuleAction, validateRuleAction } from '../../src/rules/surfaces/rule-actions';
import { type RuleBookService, ruleBookOf } from '../../src/rules/rule-book-service';
import { chatMessage, emptyState, grantRole, startAgent, TEST_USER, type TestAgent } from '../helpers/runtime';
import { DAY, T0 } from '../helpers/rule-fixtures';
import { mergeEvent, rmEvent, thrice } from '../helpers/seed-events';

const BOOT_MS = 60_000;
const TEST_MS = 60_000;
/** When the rules were promoted, and when the person speaks: 40 days later, so R-001 has decayed below 0.5 by then. */
const PROMOTED_AT = T0 + 3_600_000;
const SAID_AT = T0 + 40 * DAY;

describe('VALIDATE_RULE and RETIRE_RULE on a real runtime, asked by the owner', () => {
  let agent: TestAgent;
  let book: RuleBookService;

  async function say(text: string): Promise<Memory> {
    return { ...(await chatMessage(agent.runtime, text)), createdAt: SAID_AT };
  }

  /** Runs the handler the way the runtime does, recording every reply it sends. */
  async function handle(action: Action, text: string): Promise<{ result: ActionResult; replies: Content[] }> {
    const replies: Content[] = [];
    const returned = await action.handler(agent.runtime, await say(text), emptyState(), {}, async (response) => {
      replies.push(response);
      return [];
    });
    expect(returned).toBeDefined();
    return { result: returned as ActionResult, replies };
  }

  beforeAll(async () => {
    agent = await startAgent();
    book = await ruleBookOf(agent.runtime);
    // The person speaking owns the test world (ElizaOS roles), as a server's owner does: only such people may change rules.
    await grantRole(agent.runtime, TEST_USER, 'OWNER');
    const ingested = await book.ingestEvents([...thrice(mergeEvent, 1), ...thrice(rmEvent, 10)], 'test', { nowMs: PROMOTED_AT });
    expect(ingested.rulesPromoted).toEqual(['R-001', 'R-002']);
    await book.applyDecay(SAID_AT);
  }, BOOT_MS);
  afterAll(async () => {
    await agent.close();
  }, BOOT_MS);

  test('the rule actions are registered with the runtime', () => {
    expect(agent.runtime.actions.map((a) => a.name)).toEqual(expect.arrayContaining(['VALIDATE_RULE', 'RETIRE_RULE', 'APPROVE_RULE', 'REJECT_RULE']));
  });

  test('validate: true only for its own verb on a known active rule; negated, unknown or two-verb sentences match neither', async () => {
    const table: [string, boolean, boolean][] = [
      // text, VALIDATE_RULE, RETIRE_RULE
      ['validate rule R-001', true, false],
      ['R-001 still holds', true, false],
      ['r-1 is right', true, false],
      ['retire rule R-002', false, true],
      ['drop R-002', false, true],
      ["don't retire R-002", false, false],
      ['R-001 no longer holds', false, false],
      ['R-001 is not right', false, false],
      ['validate rule R-404', false, false],
      ['drop R-404', false, false],
      ['validate R-001, then retire it', false, false],
      ['what does R-001 say?', false, false],
      // approving is for candidates (APPROVE_RULE), not a way to validate an active rule
      ['approve rule R-001', false, false],
    ];
    const answers: [string, boolean, boolean][] = [];
    for (const [text] of table) {
      const message = await say(text);
      answers.push([text, await validateRuleAction.validate(agent.runtime, message), await retireRuleAction.validate(agent.runtime, message)]);
    }
    expect(answers).toEqual(table);
  }, TEST_MS);

  test('"R-001 still holds" validates it: confidence back to 0.9, one validation, flag cleared; the reply says so', async () => {
    expect(book.rule('R-001')).toMatchObject({ reviewFlagged: true, validationCount: 0 });
    expect(book.rule('R-001')?.confidenceScore).toBeLessThan(0.5);
    const { result, replies } = await handle(validateRuleAction, 'R-001 still holds');
    expect(result).toMatchObject({ success: true, text: 'Validated CHECK rule R-001 (git): confidence 0.90, validated 1 time.', values: { ruleId: 'R-001', ruleStatus: 'active', ruleConfidence: 0.9 } });
    expect(replies).toEqual([{ text: result.text ?? '', actions: ['VALIDATE_RULE'] }]);
    expect(book.rule('R-001')).toMatchObject({ confidenceScore: 0.9, validationCount: 1, reviewFlagged: false, lastValidatedMs: SAID_AT });
  }, TEST_MS);

  test('a negated sentence or an unknown id changes nothing and the reply says why', async () => {
    const before = book.rule('R-002');
    const negated = await handle(retireRuleAction, "please don't drop R-002");
    expect(negated.result).toMatchObject({ success: false, text: 'I could not tell which rule you mean. Say, for example, "retire rule R-003".' });
    const unknown = await handle(retireRuleAction, 'drop R-404');
    expect(unknown.result).toMatchObject({ success: false, text: 'I do not know a rule R-404; nothing changed.' });
    expect(unknown.replies).toEqual([{ text: 'I do not know a rule R-404; nothing changed.', actions: ['RETIRE_RULE'] }]);
    expect(book.rule('R-002')).toEqual(before);
    expect(book.rule('R-404')).toBeUndefined();
  }, TEST_MS);

  test('"drop R-002" retires it; again, it is already retired', async () => {
    const { result } = await handle(retireRuleAction, 'drop R-002');
    expect(result).toMatchObject({ success: true, text: 'Retired NEVER rule R-002 (shell): status retired; it is no longer put into prompts or used by the action audit.' });
    expect(book.rule('R-002')?.status).toBe('retired');
    expect(await retireRuleAction.validate(agent.runtime, await say('drop R-002'))).toBe(false);
    expect((await handle(retireRuleAction, 'retire rule R-002')).result).toMatchObject({ success: false, text: 'Rule R-002 is already retired; nothing changed.' });
  }, TEST_MS);

  test('runtime.processActions dispatches VALIDATE_RULE to the handler, which replies through the callback', async () => {
    const message = await say('validate rule R-001');
    const replies: Content[] = [];
    const response: Memory = { ...message, id: undefined, entityId: agent.runtime.agentId, content: { text: '', actions: ['VALIDATE_RULE'] } };
    await agent.runtime.processActions(message, [response], emptyState(), async (content) => {
      replies.push(content);
      return [];
    });
    expect(replies.map(({ text, actions }) => ({ text, actions }))).toEqual([{ text: 'Validated CHECK rule R-001 (git): confidence 0.90, validated 2 times.', actions: ['VALIDATE_RULE'] }]);
    expect(book.rule('R-001')?.validationCount).toBe(2);
  }, TEST_MS);
});
