import type { ProviderResult } from '@elizaos/core';
import type { ShownInPrompt } from './prompt-retrieval';

/** One provider's part of a message's context: what it returns, and what it showed. */
export interface ContextBlock {
  result: ProviderResult;
  /** The retrieval to record in the ELO book, or null when the block shows no item. */
  shown: ShownInPrompt | null;
  /** The items shown, as `kind:id`: later blocks leave them out. */
  keys: string[];
  /** Items the block found related to the message, shown or not (`kind:id`); for SCAN_LESSONS, the lessons ELO context may show. */
  related: string[];
}

export const emptyBlock = (values: Record<string, unknown>): ContextBlock => ({ result: { text: '', values }, shown: null, keys: [], related: [] });

export const itemKey = (kind: string, id: string) => `${kind}:${id}`;

/**
 * Where composeState puts the plugin's blocks (it sorts providers by `position`, 0 by default):
 * the rules that apply, then the finding's prior and its lessons, then ELO context, all before
 * bootstrap's RECENT_MESSAGES (100).
 */
export const TOP_RULES_POSITION = 50;
export const SCAN_LESSONS_POSITION = 51;
export const HIGH_ELO_CONTEXT_POSITION = 52;
