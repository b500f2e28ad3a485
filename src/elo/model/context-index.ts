import { TopK } from '../../scan/model/scan-lesson-ranking';
import { lexicalTokens } from '../../shared/lexical-vector';

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

interface Entry {
  item: ContextItem;
  tokens: Int32Array;
  /** `√Σ idf(t)²` over the item's tokens, as of the last refresh. */
  norm: number;
}

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
 */
export class ContextIndex {
  private readonly tokenIds = new Map<string, number>();
  private readonly postings: number[][] = [];
  private readonly entries: (Entry | undefined)[] = [];
  private readonly slotByKey = new Map<string, number>();
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
    const slot = this.slotByKey.get(`${kind}\u0000${id}`);
    return slot === undefined ? undefined : this.entries[slot]?.item;
  }

  /** Adds an item, or replaces the one with the same kind and id. */
  put(item: ContextItem): void {
    this.remove(item.kind, item.id);
    const slot = this.freeSlots.pop() ?? this.entries.length;
    const tokens = this.tokensOf(`${item.title} ${item.text}`, MAX_TOKENS_PER_ITEM, true);
    this.entries[slot] = { item, tokens, norm: 0 };
    this.slotByKey.set(`${item.kind}\u0000${item.id}`, slot);
    for (const t of tokens) (this.postings[t] as number[]).push(slot);
    this.live++;
    this.changes++;
    (this.entries[slot] as Entry).norm = this.normOf(tokens);
    this.sweepNorms();
  }

  remove(kind: string, id: string): void {
    const key = `${kind}\u0000${id}`;
    const slot = this.slotByKey.get(key);
    if (slot === undefined) return;
    const entry = this.entries[slot] as Entry;
    for (const t of entry.tokens) {
      const list = this.postings[t] as number[];
      const at = list.indexOf(slot);
      if (at >= 0) {
        list[at] = list[list.length - 1] as number;
        list.pop();
      }
    }
    this.entries[slot] = undefined;
    this.slotByKey.delete(key);
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
    if (this.dots.length < this.entries.length) this.dots = new Float64Array(Math.max(this.entries.length, this.dots.length * 2));
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
    const top = new TopK<ContextItem>(limit);
    const queryLength = Math.sqrt(queryNorm);
    for (const slot of touched) {
      const entry = this.entries[slot] as Entry;
      const similarity = Math.min(1, (dots[slot] as number) / (queryLength * entry.norm));
      if (similarity >= top.floor()) top.offer(`${entry.item.kind}\u0000${entry.item.id}`, entry.item, similarity);
    }
    for (const slot of touched) dots[slot] = 0;
    return top.result().map((r) => ({ item: r.item, similarity: r.score }));
  }

  private idf(token: number): number {
    return Math.log(1 + this.live / Math.max(1, (this.postings[token] as number[]).length));
  }

  private normOf(tokens: Int32Array): number {
    let sum = 0;
    for (const t of tokens) sum += this.idf(t) ** 2;
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
    const end = Math.min(this.entries.length, this.sweepAt + NORM_SWEEP_STEP);
    for (let slot = this.sweepAt; slot < end; slot++) {
      const entry = this.entries[slot];
      if (entry) entry.norm = this.normOf(entry.tokens);
    }
    this.sweepAt = end >= this.entries.length ? -1 : end;
  }

  private tokensOf(text: string, max: number, create: boolean): Int32Array {
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
    return Int32Array.from(ids);
  }
}

