import { estimateTokens } from '../shared/prompt-text';

/**
 * One token budget for the plugin's context in a prompt, spent block by block in prompt order
 * (rules, then the finding's prior and lessons, then ELO context). Each block may take
 * `min(capTokens, totalTokens − usedTokens)`, never less than 0, where `usedTokens` is what the
 * blocks before it took (`estimateTokens` of their text) and `capTokens` is the block's own budget.
 */
export function blockBudget(totalTokens: number, capTokens: number, usedTokens: number): number {
  return Math.max(0, Math.min(capTokens, totalTokens - usedTokens));
}

/** Tokens a block's text takes in the prompt (0 for an empty block). */
export function blockTokens(text: string): number {
  return text === '' ? 0 : estimateTokens(text);
}
