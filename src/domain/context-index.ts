import { lexicalTokens } from './lexical-vector';

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

interface Entry {
  item: ContextItem;
  tokens: Int32Array;
}

/**
 * An inverted index over item words, for finding candidates by meaning without scanning every item:
 * a query visits only the posting lists of its own words. Similarity is the cosine of the two
 * token sets with each token weighted by `idf(t) = ln(1 + N / df(t))` (N items, df(t) items with t):
 * `sim(q, d) = Σ_{t ∈ q∩d} idf(t)² / (√Σ_{t∈q} idf(t)² · √Σ_{t∈d} idf(t)²)`. Words shared by
 * everything weigh little, rare shared words a lot. Deterministic: ties go to kind, then id.
 */
export class ContextIndex {
  private readonly tokenIds = new Map<string, number>();
  private readonly postings: number[][] = [];
  private readonly entries: (Entry | undefined)[] = [];
  private readonly slotByKey = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private live = 0;

  get size(): number {
    return this.live;
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
    this.entries[slot] = { item, tokens };
    this.slotByKey.set(`${item.kind}\u0000${item.id}`, slot);
    for (const t of tokens) (this.postings[t] as number[]).push(slot);
    this.live++;
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
  }

  /** The `limit` items most similar to `query`, similarity > 0, most similar first. */
  search(query: string, limit: number): ContextMatch[] {
    if (limit <= 0 || this.live === 0) return [];
    const queryTokens = this.tokensOf(query, MAX_QUERY_TOKENS, false);
    const n = this.live;
    const idf = (t: number) => Math.log(1 + n / Math.max(1, (this.postings[t] as number[]).length));
    const dot = new Map<number, number>();
    let queryNorm = 0;
    for (const t of queryTokens) {
      const w = idf(t);
      queryNorm += w * w;
      for (const slot of this.postings[t] as number[]) dot.set(slot, (dot.get(slot) ?? 0) + w * w);
    }
    if (dot.size === 0) return [];
    const matches: ContextMatch[] = [];
    for (const [slot, shared] of dot) {
      const entry = this.entries[slot] as Entry;
      let norm = 0;
      for (const t of entry.tokens) {
        const w = idf(t);
        norm += w * w;
      }
      matches.push({ item: entry.item, similarity: Math.min(1, shared / Math.sqrt(queryNorm * norm)) });
    }
    matches.sort((a, b) => b.similarity - a.similarity || a.item.kind.localeCompare(b.item.kind) || a.item.id.localeCompare(b.item.id));
    return matches.slice(0, limit);
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
