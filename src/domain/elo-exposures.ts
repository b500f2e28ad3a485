/** An item the agent had in front of it. */
export interface ItemRef {
  kind: string;
  id: string;
}

/** The context a finding's outcomes settle: items shown while the agent discussed the finding. */
export const findingContext = (findingKey: string) => `finding:${findingKey}`;
/** The context a message's run settles: items in that message's prompt. */
export const messageContext = (messageId: string) => `message:${messageId}`;

/** How long items stay attributable to an outcome that has not come back yet. */
export const EXPOSURE_HORIZON_MS = 7 * 86_400_000;
/** Contexts remembered at once (oldest forgotten first). */
export const MAX_EXPOSURE_CONTEXTS = 10_000;
/** Items remembered per context. */
export const MAX_ITEMS_PER_CONTEXT = 50;

interface Exposure {
  items: Map<string, ItemRef>;
  atMs: number;
}

/**
 * Which items were in the agent's prompt for which context (a message, a finding), so that when
 * that context's outcome comes back the items can be credited (reward) or blamed (penalty). Held in
 * memory, bounded: contexts older than `EXPOSURE_HORIZON_MS` or beyond `MAX_EXPOSURE_CONTEXTS`
 * are forgotten, so a late outcome moves nothing rather than the wrong items.
 */
export class Exposures {
  private readonly byContext = new Map<string, Exposure>();

  get contexts(): number {
    return this.byContext.size;
  }

  /** Notes that `items` were shown under each of `contexts` at `atMs`. */
  add(contexts: readonly string[], items: readonly ItemRef[], atMs: number): void {
    for (const context of contexts) {
      const existing = this.byContext.get(context);
      const exposure = existing ?? { items: new Map<string, ItemRef>(), atMs };
      if (existing) this.byContext.delete(context);
      exposure.atMs = atMs;
      for (const item of items) {
        if (exposure.items.size >= MAX_ITEMS_PER_CONTEXT) break;
        exposure.items.set(`${item.kind}\u0000${item.id}`, item);
      }
      this.byContext.set(context, exposure);
    }
    while (this.byContext.size > MAX_EXPOSURE_CONTEXTS) this.byContext.delete(this.byContext.keys().next().value as string);
  }

  /** The items shown under `context` within the horizon before `nowMs`; `take` forgets them. */
  itemsOf(context: string, nowMs: number, take: boolean): ItemRef[] {
    const exposure = this.byContext.get(context);
    if (!exposure) return [];
    if (take || nowMs - exposure.atMs > EXPOSURE_HORIZON_MS) this.byContext.delete(context);
    return nowMs - exposure.atMs > EXPOSURE_HORIZON_MS ? [] : [...exposure.items.values()];
  }
}
