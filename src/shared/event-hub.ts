/** A handler of one event; it may be async. */
export type EventHandler<P> = (payload: P) => void | Promise<void>;

/** What the hub does with a handler's failure (it never reaches the emitter). */
export type HandlerFailure = (event: string, error: unknown) => void;

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * A typed publish/subscribe hub over a fixed map of events (`Events`: event name to payload).
 *
 * - `emit` calls the event's handlers one after another in the order they subscribed. A handler
 *   that returns nothing has run when `emit` returns (even before its promise is awaited); an async
 *   handler is awaited before the next one starts, and `emit` resolves once all have run.
 * - A handler that throws or rejects is reported to `onFailure` and the others still run: `emit`
 *   never rejects.
 * - `announce` makes an event a state feed: the source's `current()` payload (everything it holds)
 *   goes to every handler subscribed now and to every handler that subscribes later, so a
 *   subscriber that starts after its source still learns what the source already had.
 *
 * `on` and `announce` return the function that undoes them.
 */
export class EventHub<Events extends object> {
  private readonly handlers = new Map<keyof Events, EventHandler<never>[]>();
  private readonly sources = new Map<keyof Events, (() => unknown)[]>();

  constructor(private readonly onFailure: HandlerFailure) {}

  on<K extends keyof Events>(event: K, handler: EventHandler<Events[K]>): () => void {
    const list = this.listOf(this.handlers, event);
    list.push(handler as EventHandler<never>);
    for (const current of this.listOf(this.sources, event)) void this.deliver(event, [handler as EventHandler<never>], current() as never, 0);
    return () => remove(list, handler);
  }

  /** Calls every handler of `event` with `payload`, in order; resolves when all have run. Never rejects. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): Promise<void> {
    return this.deliver(event, [...this.listOf(this.handlers, event)], payload as never, 0);
  }

  /** Registers `current` as a source of `event`'s state and delivers it to the handlers subscribed now. */
  announce<K extends keyof Events>(event: K, current: () => Events[K]): () => void {
    const list = this.listOf(this.sources, event);
    list.push(current);
    void this.emit(event, current());
    return () => remove(list, current);
  }

  /** Whether anything subscribes to `event`: an emitter may skip building a payload nobody reads. */
  hasHandlers(event: keyof Events): boolean {
    return (this.handlers.get(event)?.length ?? 0) > 0;
  }

  private deliver(event: keyof Events, handlers: readonly EventHandler<never>[], payload: never, from: number): Promise<void> {
    for (let i = from; i < handlers.length; i++) {
      let result: unknown;
      try {
        result = (handlers[i] as EventHandler<never>)(payload);
      } catch (error) {
        this.onFailure(String(event), error);
        continue;
      }
      if (isPromiseLike(result)) {
        return Promise.resolve(result).then(
          () => this.deliver(event, handlers, payload, i + 1),
          (error: unknown) => {
            this.onFailure(String(event), error);
            return this.deliver(event, handlers, payload, i + 1);
          },
        );
      }
    }
    return Promise.resolve();
  }

  private listOf<T>(map: Map<keyof Events, T[]>, event: keyof Events): T[] {
    let list = map.get(event);
    if (!list) {
      list = [];
      map.set(event, list);
    }
    return list;
  }
}

function remove<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}
