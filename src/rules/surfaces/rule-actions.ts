import type { Action, ActionResult, HandlerCallback, IAgentRuntime, Memory } from '@elizaos/core';
import { parseRuleRequest, type RuleRequest, type RuleRequestVerb } from '../model/request';
import type { Rule, RuleStatus } from '../model/types';
import { refusalText, type TrustedDeed } from '../../shared/trust';
import type { RuleBookService, RuleChange } from '../rule-book-service';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { trustOf } from '../../shared/speaker-trust';

const ACTION_NAMES: Record<RuleRequestVerb, string> = { validate: 'VALIDATE_RULE', retire: 'RETIRE_RULE', approve: 'APPROVE_RULE', reject: 'REJECT_RULE' };
/** The status a rule must have for each verb to apply to it. */
const APPLIES_TO: Record<RuleRequestVerb, RuleStatus> = { validate: 'active', retire: 'active', approve: 'candidate', reject: 'candidate' };
const DEEDS: Record<RuleRequestVerb, TrustedDeed> = { validate: 'validate rules', retire: 'retire rules', approve: 'approve candidate rules', reject: 'reject candidate rules' };

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
  switch (verb) {
    case 'validate':
      return `Validated ${describe(rule)}: confidence ${rule.confidenceScore.toFixed(2)}, validated ${rule.validationCount} time${rule.validationCount === 1 ? '' : 's'}.`;
    case 'retire':
      return `Retired ${describe(rule)}: status ${rule.status}; it is no longer put into prompts or used by the action audit.`;
    case 'approve':
      return `Approved ${describe(rule)}: it is active now and goes into prompts where it applies: ${rule.rule}`;
    case 'reject':
      return `Rejected candidate ${describe(rule)}: it will not be used.`;
  }
}

function change(book: RuleBookService, verb: RuleRequestVerb, id: string, nowMs: number): Promise<RuleChange> {
  switch (verb) {
    case 'validate':
      return book.validateRule(id, nowMs);
    case 'retire':
      return book.retireRule(id, nowMs);
    case 'approve':
      return book.approveRule(id, nowMs);
    case 'reject':
      return book.rejectRule(id, nowMs);
  }
}

function refusedChangeText(id: string, refusal: Extract<RuleChange, { ok: false }>): string {
  switch (refusal.code) {
    case 'not_found':
      return `I do not know a rule ${id}; nothing changed.`;
    case 'retired':
      return `Rule ${id} is already retired; nothing changed.`;
    case 'not_active':
    case 'not_candidate':
      return `${refusal.message.charAt(0).toUpperCase()}${refusal.message.slice(1)}; nothing changed.`;
  }
}

/**
 * One action per verb, sharing everything but the verb: `validate` is true only for a message
 * whose words ask for this verb on a rule the rule book knows with the status the verb applies to
 * (active for validate and retire, candidate for approve and reject), so the action never acts on
 * an unknown id. The handler asks who is speaking first: only a trusted person (`trustOf`: the
 * agent's owner or admins, or people the operator lists) changes anything; anyone else is told
 * who may, and no rule, lesson or ledger entry changes. Then it calls the rule book and replies
 * with what it did.
 */
function ruleAction(verb: RuleRequestVerb, spec: Pick<Action, 'similes' | 'description' | 'examples'>): Action {
  return {
    name: ACTION_NAMES[verb],
    ...spec,
    validate: async (runtime: IAgentRuntime, message: Memory) => {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      const request = book ? requestFor(message, verb) : null;
      return request !== null && book?.rule(request.ruleId)?.status === APPLIES_TO[verb];
    },
    handler: async (runtime, message, _state, _options, callback) => {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      const request = requestFor(message, verb);
      if (!book || !request) {
        return reply(callback, verb, { success: false, text: `I could not tell which rule you mean. Say, for example, "${verb} rule R-003".` });
      }
      const trust = await trustOf(runtime, message);
      if (!trust.trusted) {
        return reply(callback, verb, { success: false, text: refusalText(DEEDS[verb]), values: { refused: 'not_trusted', ruleId: request.ruleId } });
      }
      const changed = await change(book, verb, request.ruleId, message.createdAt ?? Date.now());
      if (!changed.ok) return reply(callback, verb, { success: false, text: refusedChangeText(request.ruleId, changed) });
      const rule = changed.rule;
      return reply(callback, verb, {
        success: true,
        text: doneText(verb, rule),
        values: { ruleId: rule.id, ruleStatus: rule.status, ruleConfidence: rule.confidenceScore },
        data: { rule, trustedAs: trust.basis },
      });
    },
  };
}

/** VALIDATE_RULE: "validate rule R-003", "R-003 still holds", "R-003 is right": confidence back to 0.9, one more validation. Trusted people only. */
export const validateRuleAction: Action = ruleAction('validate', {
  similes: ['CONFIRM_RULE', 'REVALIDATE_RULE'],
  description: "Confirm a learned rule by its id (like R-003) when a person says it still holds: its confidence goes back to 0.9. Only the agent's owner or admins may.",
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

/** RETIRE_RULE: "retire rule R-002", "drop R-002": the rule is taken out of use (its conflicts are recomputed). Trusted people only. */
export const retireRuleAction: Action = ruleAction('retire', {
  similes: ['DROP_RULE', 'REMOVE_RULE'],
  description: "Take a learned rule out of use by its id (like R-002) when a person asks to retire or drop it. Only the agent's owner or admins may.",
  examples: [
    [
      { name: '{{user}}', content: { text: 'retire rule R-002' } },
      { name: '{{agent}}', content: { text: 'Retired NEVER rule R-002 (deploy): status retired; it is no longer put into prompts or used by the action audit.', actions: ['RETIRE_RULE'] } },
    ],
    [
      { name: '{{user}}', content: { text: 'drop R-002' } },
      { name: '{{agent}}', content: { text: 'Retired NEVER rule R-002 (deploy): status retired; it is no longer put into prompts or used by the action audit.', actions: ['RETIRE_RULE'] } },
    ],
  ],
});

/** APPROVE_RULE: "approve rule R-004", "approve candidate R-004": a candidate learned from conversation becomes active. Trusted people only. */
export const approveRuleAction: Action = ruleAction('approve', {
  similes: ['APPROVE_CANDIDATE_RULE', 'ACCEPT_RULE'],
  description: "Approve a candidate rule by its id (like R-004), learned from a conversation and waiting for approval: it becomes active. Only the agent's owner or admins may.",
  examples: [
    [
      { name: '{{user}}', content: { text: 'approve candidate R-004' } },
      { name: '{{agent}}', content: { text: 'Approved NEVER rule R-004 (shell): it is active now and goes into prompts where it applies: Never run rm -rf in deploy scripts', actions: ['APPROVE_RULE'] } },
    ],
  ],
});

/** REJECT_RULE: "reject rule R-005", "reject candidate R-005": a candidate is turned down and never used. Trusted people only. */
export const rejectRuleAction: Action = ruleAction('reject', {
  similes: ['REJECT_CANDIDATE_RULE', 'DECLINE_RULE'],
  description: "Reject a candidate rule by its id (like R-005), learned from a conversation and waiting for approval: it is never used. Only the agent's owner or admins may.",
  examples: [
    [
      { name: '{{user}}', content: { text: 'reject candidate R-005' } },
      { name: '{{agent}}', content: { text: 'Rejected candidate NEVER rule R-005 (communication): it will not be used.', actions: ['REJECT_RULE'] } },
    ],
  ],
});
