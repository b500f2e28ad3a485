import type { IAgentRuntime, Memory, Provider, ProviderResult } from '@elizaos/core';
import { assembleContext } from '../../context/context-assembly';
import { TOP_RULES_POSITION } from '../../context/context-block';

/**
 * TOP_RULES (seed 003): the active, highest-confidence rules that apply to the current message
 * (active, not flagged for review, no MUST/NEVER conflict, confidence ≥ 0.5 now; matched to the
 * message text by meaning, category or tags; NEVER and MUST first, then CHECK, then PREFER; each
 * line `- [R-003 NEVER 0.90] <rule text escaped as data>`), first in the plugin's context and
 * within SELF_IMPROVE_RULE_TOKEN_BUDGET. Part of the message's one context assembly; never throws
 * (a failure is logged and the prompt goes on without rules). `state.values.topRuleIds`.
 */
export const topRulesProvider: Provider = {
  name: 'TOP_RULES',
  description: 'Rules the agent learned from corrections and outcomes that apply to the current message, hard constraints first, each with its id and confidence',
  dynamic: false,
  position: TOP_RULES_POSITION,
  get: async (runtime: IAgentRuntime, message: Memory): Promise<ProviderResult> => assembleContext(runtime, message).rules(),
};
