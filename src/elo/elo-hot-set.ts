import type { ItemRef } from './model/exposures';
import type { EloItemState } from './elo-store';

export const ratingKey = (kind: string, id: string) => `${kind}\u0000${id}`;

/** Items a lookup found never stored, remembered so the next lookups do not read them again (oldest forgotten first). */
const ABSENT_KEYS = 20_000;
/**
 * How long a lookup takes an item it found never stored as still never stored. Another process
 * may store it meanwhile: rankings here see that rating within this delay (updates always read).
 */
export const ABSENT_FOR_MS = 30_000;

/** Told when an item comes into memory or leaves it (the book keeps the content of what is in memory searchable). */
export interface HotSetListener {
  admitted(item: EloItemState): void;
  evicted(item: EloItemState): void;
}

/** Where items not in memory are read from: the ELO store. */
export interface EloItemSource {
  loadItems(refs: readonly ItemRef[]): Promise<EloItemState[]>;
}

/**
 * The items of the ELO book held in memory: at most `bound` of them, least recently used evicted
 * first (nearly: `evict`), except items with changes not yet written (`pinned`), which stay until
 * written, and the items `kept` names (the content prompts rank: the lessons held and the rules),
 * which stay while named and count beside the bound (at most `bound` + `kept.size` items). Others
 * are read from the database when an operation needs them, all of an operation's missing items in
 * one query. While every stored item is in memory (`complete`: start-up read fewer than the bound
 * and nothing was evicted since), an item not in memory has never been stored and an operation runs
 * at once; otherwise an operation that needs an item not in memory waits for it to be read, and
 * every operation after it waits its turn, so operations apply in the order they were made.
 */
export class EloHotSet {
  /** By `ratingKey`, in the order they came into memory or were last passed over by an eviction. */
  private readonly items = new Map<string, Held>();
  /** Stamps uses: each use of an item gives it the next number. */
  private clock = 0;
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  /** Items evicted so far. */
  evictions = 0;
  /** Items a lookup found never stored, with when that answer expires (`ABSENT_FOR_MS`), oldest answer first. */
  private readonly absent = new Map<string, { ref: ItemRef; until: number }>();

  constructor(
    readonly bound: number,
    private readonly source: EloItemSource,
    /** Items that must stay in memory: changed and not yet written. */
    private readonly pinned: (key: string) => boolean,
    /** Whether every stored item is in memory. */
    private complete: boolean,
    /** Called when an operation failed (it never throws out of `run`). */
    private readonly onError: (error: unknown) => void,
    private readonly listener?: HotSetListener,
    /** Keys of items that stay in memory once read, beside the bound (the book's registered content). */
    private readonly kept: ReadonlySet<string> = new Set(),
  ) {}

  /** Whether every stored item is in memory. */
  get allInMemory(): boolean {
    return this.complete;
  }

  /** Items in memory now. */
  get size(): number {
    return this.items.size;
  }

  /**
   * The item in memory, marked used; undefined when not in memory. Marking it writes a number into
   * the item's own record, not into the map of up to 100,000 items: a map written to is scanned
   * whole by the next young-generation collection of Bun's collector, and every prompt marks the
   * items it shows (before 2026-11-26, by moving each to the end of the map).
   */
  get(key: string): EloItemState | undefined {
    const held = this.items.get(key);
    if (!held) return undefined;
    held.used = ++this.clock;
    return held.item;
  }

  /** The item in memory, its place in the eviction order unchanged. */
  peek(key: string): EloItemState | undefined {
    return this.items.get(key)?.item;
  }

  /** Puts the item in memory (replacing the one held under `key`), marked used. */
  set(key: string, item: EloItemState): void {
    this.absent.delete(key);
    const held = this.items.get(key);
    if (held) {
      held.item = item;
      held.used = ++this.clock;
    } else {
      const stamp = ++this.clock;
      this.items.set(key, { item, used: stamp, chance: stamp });
    }
    this.listener?.admitted(item);
  }

  *values(): IterableIterator<EloItemState> {
    for (const held of this.items.values()) yield held.item;
  }

  /**
   * Runs `op` once the items it names are in memory (or known never stored), after every operation
   * made before it. Returns whether it ran at once; a failed read is reported to `onError`.
   */
  run(refs: readonly ItemRef[], op: () => void): boolean {
    if (this.waiting === 0 && refs.every((r) => this.available(r))) {
      op();
      this.evict();
      return true;
    }
    this.enqueue(refs, op).catch(this.onError);
    return false;
  }

  /** Resolves once every operation made so far has applied. */
  async settled(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.tail;
      await tail;
    } while (tail !== this.tail);
  }

  /**
   * After every operation made so far, a lookup of these items' states: from memory, else read from
   * the database in one query and kept as recently used. The lookup holds the states it found, so
   * an eviction does not change its answers. Undefined for an item never stored; such an item is
   * not read again for ABSENT_FOR_MS (at most ABSENT_KEYS of them), unless this process stores it
   * (`readAgain` reads them again before that time is up).
   */
  async lookup(refs: readonly ItemRef[], nowMs = Date.now()): Promise<(kind: string, id: string) => EloItemState | undefined> {
    await this.settled();
    const known = new Map<string, EloItemState>();
    const cold: ItemRef[] = [];
    for (const [key, r] of byRatingKey(refs)) {
      const item = this.items.get(key)?.item;
      if (item) known.set(key, item);
      else if (!this.complete && !((this.absent.get(key)?.until ?? 0) > nowMs)) cold.push(r);
    }
    if (cold.length > 0) for (const [key, item] of await this.readCold(cold, nowMs)) known.set(key, item);
    return (kind, id) => {
      const key = ratingKey(kind, id);
      return this.items.get(key)?.item ?? known.get(key);
    };
  }

  /** The items taken as never stored whose answer expires by `byMs`, oldest answer first: what `readAgain` keeps answering from memory. */
  absentDue(byMs: number): ItemRef[] {
    const due: ItemRef[] = [];
    for (const { ref, until } of this.absent.values()) if (until <= byMs) due.push(ref);
    return due;
  }

  /**
   * Reads these items now, whatever a lookup found before: those another process stored since come
   * into memory, the others are taken as never stored for ABSENT_FOR_MS from `nowMs`. Lookups of
   * items read again before their answer expires keep answering from memory, and still see another
   * process's rating within ABSENT_FOR_MS.
   */
  async readAgain(refs: readonly ItemRef[], nowMs: number): Promise<void> {
    await this.readCold(refsWhere(refs, (key) => !this.items.has(key)), nowMs);
  }

  /** Items taken as never stored now. */
  get absentCount(): number {
    return this.absent.size;
  }

  /** Reads these items: those stored come into memory as recently used (unless memory has them already), the others are remembered as never stored. */
  private async readCold(cold: readonly ItemRef[], nowMs: number): Promise<Map<string, EloItemState>> {
    const found = new Map<string, EloItemState>();
    if (cold.length === 0) return found;
    for (const row of await this.source.loadItems(cold)) {
      const key = ratingKey(row.kind, row.id);
      // Kept as recently used (the next message's candidates are often the same), unless memory has it already.
      if (!this.items.has(key)) this.set(key, row);
      found.set(key, (this.items.get(key) as Held).item);
    }
    for (const r of cold) {
      const key = ratingKey(r.kind, r.id);
      if (!this.items.has(key)) this.rememberAbsent(key, r, nowMs);
    }
    this.evict();
    return found;
  }

  /**
   * Brings `refs` into memory in turn with the operations and puts them at the end of the map in
   * this order, as if they came in now: the book's warm-up after start, oldest first, so the
   * eviction comes to the newest last.
   */
  warm(refs: readonly ItemRef[]): Promise<void> {
    return this.enqueue(refs, () => {
      for (const r of refs) this.renew(ratingKey(r.kind, r.id));
    });
  }

  /** Every stored item is in memory now (a warm-up read them all, and none was evicted since it began). */
  markComplete(): void {
    this.complete = true;
  }

  private enqueue(refs: readonly ItemRef[], op: () => void): Promise<void> {
    this.waiting++;
    const job = this.tail.then(async () => {
      try {
        await this.bringIn(refs);
        op();
      } finally {
        this.waiting--;
        this.evict();
      }
    });
    this.tail = job.catch(() => undefined);
    return job;
  }

  /**
   * Reads the items not in memory and admits them; again for any evicted while the read was under
   * way (admitting and checking happen together, after the read, so none can be evicted between).
   */
  private async bringIn(refs: readonly ItemRef[]): Promise<void> {
    const absent = new Set<string>();
    for (;;) {
      const missing = this.complete ? [] : refsWhere(refs, (key) => !this.items.has(key) && !absent.has(key));
      if (missing.length === 0) return;
      const rows = await this.source.loadItems(missing);
      for (const r of missing) absent.add(ratingKey(r.kind, r.id));
      for (const row of rows) {
        const key = ratingKey(row.kind, row.id);
        absent.delete(key);
        // Memory is never older than the database: a row for an item already in memory is not taken.
        if (!this.items.has(key)) this.set(key, row);
      }
    }
  }

  /** Moves the item to the end of the map, as if it came in now (the warm-up's order, not a use). */
  private renew(key: string): void {
    const held = this.items.get(key);
    if (!held) return;
    this.items.delete(key);
    held.used = held.chance = ++this.clock;
    this.items.set(key, held);
  }

  private rememberAbsent(key: string, ref: ItemRef, nowMs: number): void {
    this.absent.delete(key);
    this.absent.set(key, { ref: { kind: ref.kind, id: ref.id }, until: nowMs + ABSENT_FOR_MS });
    if (this.absent.size > ABSENT_KEYS) this.absent.delete(this.absent.keys().next().value as string);
  }

  /**
   * Evicts items neither pinned nor kept until at most `bound` + `kept.size` remain (or only such
   * items do), oldest in memory first, but with a second chance (the clock algorithm, close to least
   * recently used): an item used since it came in or since its last chance, and a pinned or kept
   * one, goes to the end of the map instead, and is evicted when the eviction comes round to it
   * again unused. So the map is written to when items are evicted, never when they are used.
   */
  evict(): void {
    const limit = this.bound + this.kept.size;
    if (this.items.size <= limit) return;
    // Every item can be looked at twice: once to give it its chance, once to evict it.
    let looks = 2 * this.items.size;
    for (const [key, held] of this.items) {
      if (this.items.size <= limit || looks-- <= 0) break;
      this.items.delete(key);
      if (held.used > held.chance || this.kept.has(key) || this.pinned(key)) {
        held.chance = held.used;
        this.items.set(key, held);
        continue;
      }
      this.complete = false;
      this.evictions++;
      this.listener?.evicted(held.item);
    }
  }

  private available(ref: ItemRef): boolean {
    return this.complete || this.items.has(ratingKey(ref.kind, ref.id));
  }
}

/** An item in memory, the stamp of its last use, and the stamp it had when it came in or was last passed over by an eviction. */
interface Held {
  item: EloItemState;
  used: number;
  chance: number;
}

/** The refs by rating key, one per item (the last ref naming it): each key computed once. */
function byRatingKey(refs: readonly ItemRef[]): Map<string, ItemRef> {
  const byKey = new Map<string, ItemRef>();
  for (const r of refs) byKey.set(ratingKey(r.kind, r.id), r);
  return byKey;
}

/** One ref per item (`byRatingKey`), those whose key `keep` accepts. */
function refsWhere(refs: readonly ItemRef[], keep: (key: string) => boolean): ItemRef[] {
  const kept: ItemRef[] = [];
  for (const [key, r] of byRatingKey(refs)) if (keep(key)) kept.push(r);
  return kept;
}
