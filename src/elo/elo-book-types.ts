import type { ItemRef } from './model/exposures';

/** An item a retrieval returned, at its rank (1 = first). */
export interface RetrievedItem extends ItemRef {
  rank: number;
  similarity?: number;
}

export interface Retrieval {
  tool: string;
  query: string;
  results: readonly RetrievedItem[];
  /** The session (run, conversation) it belongs to; default the agent's own session. */
  sessionId?: string;
  searchType?: 'semantic' | 'keyword';
  /** Contexts whose outcome these items should answer for (see `settle`). */
  exposeUnder?: readonly string[];
  /** Extra fields for the search-log entry (e.g. token counts). */
  logExtras?: Record<string, unknown>;
  /** A retrieval with a key already recorded (e.g. the same provider for the same message) is not recorded again. */
  onceKey?: string;
}

export interface AccessOptions {
  /** The path the starting tier is chosen by (default: the id). */
  path?: string;
  title?: string;
  /** Content to keep with the item: it makes the item a candidate for HIGH_ELO_CONTEXT. */
  text?: string;
  /** Reason in the ELO update log; default `<kind>_access`. */
  reason?: string;
  sessionId?: string;
  exposeUnder?: readonly string[];
}
