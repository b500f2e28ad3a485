import type { IAgentRuntime, Memory } from '@elizaos/core';
import { type ItemRef, outcomeContextsOf } from '../elo/model/exposures';
import type { EloBookService } from '../elo/elo-book-service';
import type { ScanOutcomeService } from '../scan/scan-outcome-service';
import { ELO_BOOK_SERVICE, SCAN_OUTCOME_SERVICE } from '../shared/service-names';

/** Characters of the message kept as the query in the search log. */
export const MAX_LOGGED_QUERY = 500;

export interface ShownInPrompt {
  /** The provider, as the search log's `tool` (e.g. `scan_lessons`). */
  tool: string;
  /** What the provider put into the prompt, best first (rank = position + 1). */
  items: readonly ItemRef[];
  /** The finding the message names, when the provider already knows it; looked up otherwise. */
  findingKey?: string | null;
  logExtras?: Record<string, unknown>;
}

/**
 * Records what a provider put into a message's prompt in the ELO book: one retrieval per provider
 * per message (providers run several times per message), rank boosts, the search log, and the
 * items noted under the message and the finding it names, whose outcomes they then answer for.
 * Nothing when the ELO book is not running or the message has no id.
 */
export async function recordShownInPrompt(runtime: IAgentRuntime, message: Memory, shown: ShownInPrompt): Promise<void> {
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  if (!book || !message.id) return;
  const findingKey = shown.findingKey !== undefined ? shown.findingKey : (await runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE)?.findingNamedBy(message))?.finding_key;
  book.recordRetrieval({
    tool: shown.tool,
    query: (message.content.text ?? '').slice(0, MAX_LOGGED_QUERY),
    results: shown.items.map((item, i) => ({ kind: item.kind, id: item.id, rank: i + 1 })),
    sessionId: message.roomId,
    onceKey: `${shown.tool}:${message.id}`,
    exposeUnder: outcomeContextsOf(message.id, findingKey ?? undefined),
    ...(shown.logExtras ? { logExtras: shown.logExtras } : {}),
  });
}
