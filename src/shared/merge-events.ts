import type { PluginEvents } from '@elizaos/core';

/**
 * Several sets of event handlers as one: the handler lists of each event are concatenated, in
 * order, so every set's handlers are registered (the runtime runs them all, concurrently).
 * Spreading the objects instead would keep only the last set's list for an event.
 */
export function mergePluginEvents(...sets: PluginEvents[]): PluginEvents {
  const merged: Record<string, unknown[]> = {};
  for (const set of sets) {
    for (const [event, handlers] of Object.entries(set)) merged[event] = [...(merged[event] ?? []), ...((handlers ?? []) as unknown[])];
  }
  return merged as PluginEvents;
}
