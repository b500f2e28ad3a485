import type { IAgentRuntime, Memory, Provider, ProviderResult } from '@elizaos/core';
import { RULE_KIND, type RuleBookService } from '../services/rule-book-service';
import { RULE_BOOK_SERVICE } from '../services/service-names';
import { recordShownInPrompt } from './prompt-retrieval';

const LOG_SRC = 'plugin:self-improve:rules';
const EMPTY: ProviderResult = { text: '', values: { topRuleIds: [] } };

/**
 * TOP_RULES (seed 003): the active, highest-confidence rules that apply to the current message
 * (`RuleBookService.promptRules`: active, not flagged for review, no MUST/NEVER conflict,
 * confidence ≥ 0.5 now; matched to the message text by meaning, category or tags; NEVER and
 * MUST first, then CHECK, then PREFER; each line `- [R-003 NEVER 0.90] <rule text escaped as
 * data>`; within `SELF_IMPROVE_RULE_TOKEN_BUDGET`). From the service's in-memory index, no I/O
 * for the text. The rules shown are recorded once per message in the ELO book (kind `rule`: rank
 * boosts, search log) and answer for the outcomes of the message and of the finding it names.
 * Never throws: a failure is logged and the prompt goes on without rules.
 */
export const topRulesProvider: Provider = {
  name: 'TOP_RULES',
  description: 'Rules the agent learned from corrections and outcomes that apply to the current message, hard constraints first, each with its id and confidence',
  dynamic: false,
  get: async (runtime: IAgentRuntime, message: Memory): Promise<ProviderResult> => {
    try {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      if (!book) return EMPTY;
      const text = message.content.text ?? '';
      const prompt = book.promptRules({ text, nowMs: Date.now() });
      if (prompt.selected.length === 0) return EMPTY;
      const ids = prompt.selected.map((s) => s.rule.id);
      await recordShownInPrompt(runtime, message, { tool: 'top_rules', items: ids.map((id) => ({ kind: RULE_KIND, id })) });
      return {
        text: prompt.text,
        values: { topRuleIds: ids },
        data: { rules: prompt.selected.map((s) => ({ id: s.rule.id, type: s.rule.type, category: s.rule.category, confidence: s.confidence })) },
      };
    } catch (error) {
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'TOP_RULES failed; the prompt goes on without rules');
      return EMPTY;
    }
  },
};

