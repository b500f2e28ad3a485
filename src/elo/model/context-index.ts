import { TopK } from '../../scan/model/scan-lesson-ranking';
import { lexicalTokens } from '../../shared/lexical-vector';
import { grown } from '../../shared/typed-arrays';

/** A piece of content the agent can be given: a lesson, a rule, a file, a record. */
export interface ContextItem {
  kind: string;
  id: string;
  title: string;
  text: string;
}

export interface ContextMatch {
  item: ContextItem;
  /** Cosine of idf-weighted token sets, in [0, 1]. */
  similarity: number;
}

/** Distinct tokens an item is indexed by (its title and the start of its text); bounds memory per item. */
const MAX_TOKENS_PER_ITEM = 64;
/** Distinct tokens of a query that are looked up. */
const MAX_QUERY_TOKENS = 32;

/** A word in more than this share of the items (and more than COMMON_MIN_DF of them) finds no candidates. */
const COMMON_SHARE = 0.02;
const COMMON_MIN_DF = 200;
/** Share by which the item count may move before item norms are recomputed. */
const NORM_REFRESH_SHARE = 0.1;
/** Item norms recomputed per change while a recomputation is under way (a search never recomputes any). */
const NORM_SWEEP_STEP = 64;

/**
 * An inverted index over item words, for finding candidates by meaning without scanning every item:
 * a query visits only the posting lists of its own words. Similarity is the cosine of the two
 * token sets with each token weighted by `idf(t) = ln(1 + N / df(t))` (N items, df(t) items with t):
 * `sim(q, d) = Σ_{t ∈ q∩d} idf(t)² / (√Σ_{t∈q} idf(t)² · √Σ_{t∈d} idf(t)²)`. Words shared by
 * everything weigh little, rare shared words a lot. Cost is bounded: a word found in more than 2%
 * of the items (and more than 200 of them) counts in the norms but is not used to find candidates,
 * and item norms are kept: once the item count has moved by a tenth, every put or remove recomputes
 * the next 64 of them until all are done (between refreshes they use slightly older idf weights),
 * so no search and no single change pays for all the items. Deterministic: ties go to kind, then id.
 *
 * An item takes no object of its own in memory (the ELO book holds one entry per item with content,
 * 55,000 of them in the scale bench at 1M): its fields sit at its slot in four arrays, its tokens
 * in one shared pool of token ids (`TokenPool`), its norm in a typed array, and it is found by kind,
 * then id, with no key string built. A search builds the items it returns.
 */
export class ContextIndex {
  private readonly tokenIds = new Map<string, number>();
  private readonly postings: number[][] = [];
  /** By slot; a free slot has no kind. */
  private readonly kinds: (string | undefined)[] = [];
  private readonly ids: string[] = [];
  private readonly titles: string[] = [];
  private readonly texts: string[] = [];
  /** By slot: `√Σ idf(t)²` over the item's tokens, as of the last refresh. */
  private norms = new Float64Array(16);
  private readonly tokens = new TokenPool();
  private readonly slotByKind = new Map<string, Map<string, number>>();
  private readonly freeSlots: number[] = [];
  private live = 0;
  private dots = new Float64Array(0);
  private normsAtCount = 0;
  /** The next slot whose norm a recomputation under way refreshes; -1 when none is under way. */
  private sweepAt = -1;

  private changes = 0;

  get size(): number {
    return this.live;
  }

  /** Grows with every item put or removed: what was computed from the items is stale when it moved. */
  get version(): number {
    return this.changes;
  }

  get(kind: string, id: string): ContextItem | undefined {
    const slot = this.slotByKind.get(kind)?.get(id);
    return slot === undefined ? undefined : this.itemAt(slot);
  }

  /** Adds an item, or replaces the one with the same kind and id. */
  put(item: ContextItem): void {
    this.remove(item.kind, item.id);
    const slot = this.freeSlots.pop() ?? this.kinds.length;
    const tokens = this.tokensOf(`${item.title} ${item.text}`, MAX_TOKENS_PER_ITEM, true);
    this.tokens.set(slot, tokens);
    this.kinds[slot] = item.kind;
    this.ids[slot] = item.id;
    this.titles[slot] = item.title;
    this.texts[slot] = item.text;
    if (slot >= this.norms.length) this.norms = grown(this.norms, slot + 1);
    let byId = this.slotByKind.get(item.kind);
    if (!byId) this.slotByKind.set(item.kind, (byId = new Map()));
    byId.set(item.id, slot);
    for (const t of tokens) (this.postings[t] as number[]).push(slot);
    this.live++;
    this.changes++;
    this.norms[slot] = this.normOf(slot);
    this.sweepNorms();
  }

  remove(kind: string, id: string): void {
    const byId = this.slotByKind.get(kind);
    const slot = byId?.get(id);
    if (byId === undefined || slot === undefined) return;
    for (const t of this.tokens.of(slot)) {
      const list = this.postings[t] as number[];
      const at = list.indexOf(slot);
      if (at >= 0) {
        list[at] = list[list.length - 1] as number;
        list.pop();
      }
    }
    this.tokens.free(slot);
    this.kinds[slot] = undefined;
    this.ids[slot] = '';
    this.titles[slot] = '';
    this.texts[slot] = '';
    byId.delete(id);
    if (byId.size === 0) this.slotByKind.delete(kind);
    this.freeSlots.push(slot);
    this.live--;
    this.changes++;
    this.sweepNorms();
  }

  /** The `limit` items most similar to `query`, similarity > 0, most similar first. */
  search(query: string, limit: number): ContextMatch[] {
    if (limit <= 0 || this.live === 0) return [];
    const n = this.live;
    const queryTokens = [...this.tokensOf(query, MAX_QUERY_TOKENS, false)];
    let queryNorm = 0;
    for (const t of queryTokens) queryNorm += this.idf(t) ** 2;
    // Words in more than COMMON_SHARE of the items add little and would visit most of them: they
    // count in the norms but find no candidates.
    const commonDf = Math.max(COMMON_MIN_DF, Math.ceil(n * COMMON_SHARE));
    if (this.dots.length < this.kinds.length) this.dots = new Float64Array(Math.max(this.kinds.length, this.dots.length * 2));
    const dots = this.dots;
    const touched: number[] = [];
    for (const t of queryTokens) {
      const list = this.postings[t] as number[];
      if (list.length > commonDf) continue;
      const w2 = this.idf(t) ** 2;
      for (const slot of list) {
        if (dots[slot] === 0) touched.push(slot);
        dots[slot] = (dots[slot] as number) + w2;
      }
    }
    if (touched.length === 0) return [];
    const top = new TopK<number>(limit);
    const queryLength = Math.sqrt(queryNorm);
    for (const slot of touched) {
      const similarity = Math.min(1, (dots[slot] as number) / (queryLength * (this.norms[slot] as number)));
      if (similarity >= top.floor()) top.offer(`${this.kinds[slot]}\u0000${this.ids[slot]}`, slot, similarity);
    }
    for (const slot of touched) dots[slot] = 0;
    return top.result().map((r) => ({ item: this.itemAt(r.item), similarity: r.score }));
  }

  private itemAt(slot: number): ContextItem {
    return { kind: this.kinds[slot] as string, id: this.ids[slot] as string, title: this.titles[slot] as string, text: this.texts[slot] as string };
  }

  private idf(token: number): number {
    return Math.log(1 + this.live / Math.max(1, (this.postings[token] as number[]).length));
  }

  /** The norm of the item at `slot`, from the idf weights now. */
  private normOf(slot: number): number {
    let sum = 0;
    // An index loop: a typed array's iterator cost more than the sums (every norm at start).
    const tokens = this.tokens.of(slot);
    for (let i = 0; i < tokens.length; i++) sum += this.idf(tokens[i] as number) ** 2;
    return Math.sqrt(sum);
  }

  /**
   * Item norms follow the idf weights, which move as items come and go: once the count has moved
   * by a tenth since the last recomputation began, a new one begins, and each change carries it
   * NORM_SWEEP_STEP slots further (an index of up to that many items is recomputed at once).
   */
  private sweepNorms(): void {
    if (this.sweepAt < 0) {
      if (Math.abs(this.live - this.normsAtCount) <= this.normsAtCount * NORM_REFRESH_SHARE) return;
      this.sweepAt = 0;
      this.normsAtCount = this.live;
    }
    const end = Math.min(this.kinds.length, this.sweepAt + NORM_SWEEP_STEP);
    for (let slot = this.sweepAt; slot < end; slot++) if (this.kinds[slot] !== undefined) this.norms[slot] = this.normOf(slot);
    this.sweepAt = end >= this.kinds.length ? -1 : end;
  }

  private tokensOf(text: string, max: number, create: boolean): number[] {
    const ids: number[] = [];
    const seen = new Set<number>();
    for (const token of lexicalTokens(text)) {
      let id = this.tokenIds.get(token);
      if (id === undefined) {
        if (!create) continue;
        id = this.postings.length;
        this.tokenIds.set(token, id);
        this.postings.push([]);
      }
      if (seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
      if (ids.length >= max) break;
    }
    return ids;
  }
}

/**
 * The token ids of every slot in one typed array: a slot's ids are a run of it (`at`, `count`).
 * A freed or replaced run is left where it is until the dead runs are more than half the pool,
 * then the live runs are copied together (one pass over them, so the copying is paid once per
 * token freed, on average). A slot not holding ids has a run of none, so a pass over every slot
 * copies exactly the live runs.
 */
export class TokenPool {
  private ids = new Int32Array(1024);
  private used = 0;
  private dead = 0;
  private at = new Int32Array(16);
  private count = new Int32Array(16);

  /** Ids held in the pool, the dead runs not yet copied out included. */
  get held(): number {
    return this.used;
  }

  of(slot: number): Int32Array {
    const at = this.at[slot] as number;
    return this.ids.subarray(at, at + (this.count[slot] as number));
  }

  /** Sets the ids of `slot` (a slot not holding any now). */
  set(slot: number, ids: readonly number[]): void {
    if (this.dead * 2 > this.used) this.compact();
    if (slot >= this.at.length) {
      this.at = grown(this.at, slot + 1);
      this.count = grown(this.count, slot + 1);
    }
    if (this.used + ids.length > this.ids.length) this.ids = grown(this.ids, this.used + ids.length);
    this.ids.set(ids, this.used);
    this.at[slot] = this.used;
    this.count[slot] = ids.length;
    this.used += ids.length;
  }

  free(slot: number): void {
    this.dead += this.count[slot] as number;
    this.count[slot] = 0;
  }

  private compact(): void {
    const ids = new Int32Array(Math.max(1024, this.ids.length));
    let used = 0;
    for (let slot = 0; slot < this.count.length; slot++) {
      ids.set(this.of(slot), used);
      this.at[slot] = used;
      used += this.count[slot] as number;
    }
    this.ids = ids;
    this.used = used;
    this.dead = 0;
  }
}
