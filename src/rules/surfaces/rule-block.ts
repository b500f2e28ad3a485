import type { IAgentRuntime, Memory } from '@elizaos/core';
import { RULE_KIND, type RuleBookService } from '../rule-book-service';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { type ContextBlock, emptyBlock, itemKey } from '../../context/context-block';

const EMPTY = () => emptyBlock({ topRuleIds: [] });

/**
 * TOP_RULES' part of a message's context (`RuleBookService.promptRules`: active, unflagged, no
 * MUST/NEVER conflict, confidence ≥ 0.5 now; matched to the message by meaning, category or tags;
 * NEVER and MUST first), within `budgetTokens` and SELF_IMPROVE_RULE_TOKEN_BUDGET.
 */
export function rulesBlock(runtime: IAgentRuntime, message: Memory, nowMs: number, budgetTokens: number): ContextBlock {
  const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
  if (!book || budgetTokens <= 0) return EMPTY();
  const prompt = book.promptRules({ text: message.content.text ?? '', nowMs, tokenBudget: budgetTokens });
  if (prompt.selected.length === 0) return EMPTY();
  const ids = prompt.selected.map((s) => s.rule.id);
  return {
    result: {
      text: prompt.text,
      values: { topRuleIds: ids },
      data: { rules: prompt.selected.map((s) => ({ id: s.rule.id, type: s.rule.type, category: s.rule.category, confidence: s.ruleConfidence })) },
    },
    shown: { tool: 'top_rules', items: ids.map((id) => ({ kind: RULE_KIND, id })) },
    keys: ids.map((id) => itemKey(RULE_KIND, id)),
    related: ids.map((id) => itemKey(RULE_KIND, id)),
  };
}
