/** An item the agent had in front of it. */
export interface ItemRef {
  kind: string;
  id: string;
}

/** The context a finding's outcomes settle: items shown while the agent discussed the finding. */
export const findingContext = (findingKey: string) => `finding:${findingKey}`;
/** The context a message's run settles: items in that message's prompt. */
export const messageContextId = (messageId: string) => `message:${messageId}`;

/** The contexts whose outcomes the items in a message's prompt answer for: the message, and the finding it names. */
export function outcomeContextsOf(messageId: string, findingKey: string | undefined): string[] {
  return findingKey === undefined ? [messageContextId(messageId)] : [messageContextId(messageId), findingContext(findingKey)];
}

/** How long items stay attributable to an outcome that has not come back yet. */
export const EXPOSURE_HORIZON_MS = 7 * 86_400_000;
/** Contexts remembered at once (oldest forgotten first). */
export const MAX_EXPOSURE_CONTEXTS = 10_000;
/** Items remembered per context. */
export const MAX_ITEMS_PER_CONTEXT = 50;

/** An item shown under a context, with the rank boosts it got there that no outcome has settled yet. */
export interface ExposedItem extends ItemRef {
  boost: number;
}

interface Exposure {
  items: Map<string, ExposedItem>;
  atMs: number;
}

/** A context's state to store: its items and time, or `null` once it is forgotten. */
export interface ExposureChange {
  context: string;
  exposure: { atMs: number; items: ExposedItem[] } | null;
}

/**
 * Which items were in the agent's prompt for which context (a message, a finding), so that when
 * that context's outcome comes back the items can be credited (reward) or blamed (penalty).
 * Bounded: contexts older than `EXPOSURE_HORIZON_MS` or beyond `MAX_EXPOSURE_CONTEXTS` are
 * forgotten, so a late outcome moves nothing rather than the wrong items. Contexts changed since
 * the last `takeChanges()` are tracked, so the owner can store them (outcomes often come back
 * days later, after a restart) and `restore` them on start.
 */
export class Exposures {
  private readonly byContext = new Map<string, Exposure>();
  private readonly changed = new Set<string>();

  get contexts(): number {
    return this.byContext.size;
  }

  /** Notes that `items` were shown under each of `contexts` at `atMs`, with the boost each got for it. */
  add(contexts: readonly string[], items: readonly (ItemRef & { boost?: number })[], atMs: number): void {
    for (const context of contexts) {
      const existing = this.byContext.get(context);
      const exposure = existing ?? { items: new Map<string, ExposedItem>(), atMs };
      if (existing) this.byContext.delete(context);
      exposure.atMs = atMs;
      for (const { kind, id, boost = 0 } of items) {
        const key = `${kind}\u0000${id}`;
        const known = exposure.items.get(key);
        if (known) known.boost += boost;
        else if (exposure.items.size < MAX_ITEMS_PER_CONTEXT) exposure.items.set(key, { kind, id, boost });
      }
      this.byContext.set(context, exposure);
      this.changed.add(context);
    }
    while (this.byContext.size > MAX_EXPOSURE_CONTEXTS) {
      const oldest = this.byContext.keys().next().value as string;
      this.byContext.delete(oldest);
      this.changed.add(oldest);
    }
  }

  /** Puts back a stored context (at start), unless it is past the horizon at `nowMs`. */
  restore(context: string, atMs: number, items: readonly ExposedItem[], nowMs: number): void {
    if (nowMs - atMs > EXPOSURE_HORIZON_MS) return;
    this.byContext.set(context, { atMs, items: new Map(items.slice(0, MAX_ITEMS_PER_CONTEXT).map((i) => [`${i.kind}\u0000${i.id}`, { ...i }])) });
  }

  /** The contexts changed since the last call, each with its current state (null: forgotten). */
  takeChanges(): ExposureChange[] {
    const changes = [...this.changed].map((context) => {
      const exposure = this.byContext.get(context);
      return { context, exposure: exposure ? { atMs: exposure.atMs, items: [...exposure.items.values()].map((i) => ({ ...i })) } : null };
    });
    this.changed.clear();
    return changes;
  }

  /** Marks contexts changed again (their write failed): the next `takeChanges` gives their state as it is then. */
  requeue(changes: readonly ExposureChange[]): void {
    for (const c of changes) this.changed.add(c.context);
  }

  /**
   * The items shown under `context` within the horizon before `nowMs`, each with its unsettled
   * boost, which is then marked settled (a later outcome of the same context moves the item again
   * but cannot take the boost back twice). `forget` drops the context.
   */
  claim(context: string, nowMs: number, forget: boolean): ExposedItem[] {
    const exposure = this.byContext.get(context);
    if (!exposure) return [];
    const expired = nowMs - exposure.atMs > EXPOSURE_HORIZON_MS;
    if (forget || expired) this.byContext.delete(context);
    this.changed.add(context);
    if (expired) return [];
    return [...exposure.items.values()].map((item) => {
      const claimed = { ...item };
      item.boost = 0;
      return claimed;
    });
  }
}
