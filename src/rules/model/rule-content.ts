import type { Rule } from './types';

/** The item kind of rules wherever items are rated or shown (the ELO book, HIGH_ELO_CONTEXT). */
export const RULE_KIND = 'rule';

/**
 * A rule as content that may be put into prompts (kind `rule`, titled by type, id and category),
 * or null when it may not reach a prompt: not active, flagged for review, or in conflict.
 */
export function ruleAsContent(rule: Rule): { kind: string; id: string; title: string; text: string } | null {
  if (rule.status !== 'active' || rule.reviewFlagged || rule.conflictsWith.length > 0) return null;
  return { kind: RULE_KIND, id: rule.id, title: `${rule.type} rule ${rule.id} (${rule.category})`, text: rule.rule };
}
