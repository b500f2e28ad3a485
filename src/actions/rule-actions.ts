import type { Action, ActionResult, HandlerCallback, IAgentRuntime, Memory } from '@elizaos/core';
import { parseRuleRequest, type RuleRequest, type RuleRequestVerb } from '../domain/rule-request';
import type { Rule } from '../domain/rule-types';
import type { RuleBookService } from '../services/rule-book-service';
import { RULE_BOOK_SERVICE } from '../services/service-names';

const ACTION_NAMES: Record<RuleRequestVerb, string> = { validate: 'VALIDATE_RULE', retire: 'RETIRE_RULE' };

/** The request in the message when it is for `verb`; null otherwise. */
function requestFor(message: Memory, verb: RuleRequestVerb): RuleRequest | null {
  const request = parseRuleRequest(message.content.text ?? '');
  return request?.verb === verb ? request : null;
}

async function reply(callback: HandlerCallback | undefined, verb: RuleRequestVerb, result: ActionResult): Promise<ActionResult> {
  await callback?.({ text: result.text ?? '', actions: [ACTION_NAMES[verb]] });
  return result;
}

const describe = (rule: Rule) => `${rule.type} rule ${rule.id} (${rule.category})`;

function doneText(verb: RuleRequestVerb, rule: Rule): string {
  if (verb === 'validate') {
    return `Validated ${describe(rule)}: confidence ${rule.confidenceScore.toFixed(2)}, validated ${rule.validationCount} time${rule.validationCount === 1 ? '' : 's'}.`;
  }
  return `Retired ${describe(rule)}: status ${rule.status}; it is no longer put into prompts or used by the guard.`;
}

/**
 * One action per verb, sharing everything but the verb: `validate` is true only for a message
 * whose words ask for this verb on a rule the rule book knows (and that is not retired), so the
 * action never acts on an unknown id; the handler calls the rule book and replies with what it did.
 */
function ruleAction(verb: RuleRequestVerb, spec: Pick<Action, 'similes' | 'description' | 'examples'>): Action {
  return {
    name: ACTION_NAMES[verb],
    ...spec,
    validate: async (runtime: IAgentRuntime, message: Memory) => {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      const request = book ? requestFor(message, verb) : null;
      return request !== null && book?.rule(request.ruleId)?.status === 'active';
    },
    handler: async (runtime, message, _state, _options, callback) => {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      const request = requestFor(message, verb);
      if (!book || !request) {
        return reply(callback, verb, { success: false, text: `I could not tell which rule you mean. Say, for example, "${verb} rule R-003".` });
      }
      const change = verb === 'validate' ? await book.validateRule(request.ruleId, message.createdAt ?? Date.now()) : await book.retireRule(request.ruleId, message.createdAt ?? Date.now());
      if (!change.ok) {
        const why = change.code === 'not_found' ? `I do not know a rule ${request.ruleId}` : `Rule ${request.ruleId} is already retired`;
        return reply(callback, verb, { success: false, text: `${why}; nothing changed.` });
      }
      const rule = change.rule;
      return reply(callback, verb, {
        success: true,
        text: doneText(verb, rule),
        values: { ruleId: rule.id, ruleStatus: rule.status, ruleConfidence: rule.confidenceScore },
        data: { rule },
      });
    },
  };
}

/** VALIDATE_RULE: "validate rule R-003", "R-003 still holds", "R-003 is right": confidence back to 0.9, one more validation. */
export const validateRuleAction: Action = ruleAction('validate', {
  similes: ['CONFIRM_RULE', 'REVALIDATE_RULE'],
  description: 'Confirm a learned rule by its id (like R-003) when a person says it still holds: its confidence goes back to 0.9.',
  examples: [
    [
      { name: '{{user}}', content: { text: 'validate rule R-003' } },
      { name: '{{agent}}', content: { text: 'Validated CHECK rule R-003 (git): confidence 0.90, validated 1 time.', actions: ['VALIDATE_RULE'] } },
    ],
    [
      { name: '{{user}}', content: { text: 'R-003 still holds' } },
      { name: '{{agent}}', content: { text: 'Validated CHECK rule R-003 (git): confidence 0.90, validated 2 times.', actions: ['VALIDATE_RULE'] } },
    ],
  ],
});

/** RETIRE_RULE: "retire rule R-002", "drop R-002": the rule is taken out of use (its conflicts are recomputed). */
export const retireRuleAction: Action = ruleAction('retire', {
  similes: ['DROP_RULE', 'REMOVE_RULE'],
  description: 'Take a learned rule out of use by its id (like R-002) when a person asks to retire or drop it.',
  examples: [
    [
      { name: '{{user}}', content: { text: 'retire rule R-002' } },
      { name: '{{agent}}', content: { text: 'Retired NEVER rule R-002 (deploy): status retired; it is no longer put into prompts or used by the guard.', actions: ['RETIRE_RULE'] } },
    ],
    [
      { name: '{{user}}', content: { text: 'drop R-002' } },
      { name: '{{agent}}', content: { text: 'Retired NEVER rule R-002 (deploy): status retired; it is no longer put into prompts or used by the guard.', actions: ['RETIRE_RULE'] } },
    ],
  ],
});
