import type { IAgentRuntime, Memory } from '@elizaos/core';
import type { ItemRef } from '../elo/model/exposures';
import type { ScanOutcomeService } from '../scan/scan-outcome-service';
import { eventsOf } from '../shared/events';
import { SCAN_OUTCOME_SERVICE } from '../shared/service-names';

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
 * Tells the agent what a provider put into a message's prompt (`itemsShown`), with the known
 * finding the message names (looked up when the provider did not say), so the items can answer
 * for the outcomes of the message and of that finding. Nothing when nobody listens or the message
 * has no id.
 */
export async function announceShownInPrompt(runtime: IAgentRuntime, message: Memory, shown: ShownInPrompt): Promise<void> {
  const events = eventsOf(runtime);
  if (!message.id || !events.hasHandlers('itemsShown')) return;
  const findingKey = shown.findingKey !== undefined ? shown.findingKey : (await runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE)?.findingNamedBy(message))?.finding_key;
  await events.emit('itemsShown', {
    tool: shown.tool,
    messageId: message.id,
    roomId: message.roomId,
    text: message.content.text ?? '',
    items: shown.items,
    findingKey: findingKey ?? null,
    ...(shown.logExtras ? { logExtras: shown.logExtras } : {}),
  });
}
