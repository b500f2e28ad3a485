import { EVERYDAY_SENTENCES } from './everyday-sentences';
import type { ContextIndex } from '../elo/model/context-index';
import { DEFAULT_FLOOR_PERCENTILE, maxPerQuery, relevanceFloor } from './relevance-floor';
import type { ScanLessonIndex } from '../scan/scan-lesson-index';
import { yieldToEventLoop } from './event-loop';

/** Everyday sentences embedded at once while calibrating (a model is called this many times in parallel). */
const EMBED_CONCURRENCY = 8;
/** Everyday sentences compared with the items between two turns of the event loop while a floor is recomputed. */
const SENTENCES_PER_TURN = 4;
/** Least time between two recomputations in the background (a floor moves slowly; the set may change with every prompt). */
export const FLOOR_REFRESH_EVERY_MS = 10_000;

/**
 * A floor that follows what it is computed from (a `version` and a `size`): computed at once the
 * first time, and again at once when the size has halved or doubled since (a floor of an empty or
 * tiny set says little of a large one); otherwise, once the version moved, the last floor is
 * answered while the new one is computed in the background, a few sentences a turn, at most once
 * every FLOOR_REFRESH_EVERY_MS. One computation runs at a time: a call while one runs answers with
 * it (when it must wait) or with the last floor. The owners call `floor` without awaiting it as
 * their set changes (`ScanLessonStore` after each lesson written, the ELO book at each 5-second
 * tick), so the computation a doubling needs is done before a prompt asks: at the 100k step
 * of `bench/scale.ts`, 1,000 → 10,000 lessons, the first prompt after took 150–450 ms computing it.
 */
export class FollowingFloor {
  private computed: { version: number; size: number; floor: number; atMs: number } | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly compute: () => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  async floor(version: number, size: number): Promise<number> {
    const last = this.computed;
    if (last?.version === version) return last.floor;
    if (last === null || size > last.size * 2 || size * 2 < last.size) return this.recompute(version, size);
    if (this.now() - last.atMs >= FLOOR_REFRESH_EVERY_MS) this.recompute(version, size).catch(() => undefined);
    return last.floor;
  }

  private recompute(version: number, size: number): Promise<number> {
    this.running ??= this.compute()
      .then((floor) => {
        this.computed = { version, size, floor, atMs: this.now() };
        return floor;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}

/** `maxPerQuery` over the queries a slice at a time, with a turn of the event loop between slices. */
async function maxPerQueryInTurns<Q>(queries: readonly Q[], similarities: (query: Q) => ArrayLike<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < queries.length; i += SENTENCES_PER_TURN) {
    if (i > 0) await yieldToEventLoop();
    out.push(...maxPerQuery(queries.slice(i, i + SENTENCES_PER_TURN), similarities));
  }
  return out;
}

export type CalibrationWarning = (message: string, error: unknown) => void;

/**
 * The relevance floor of the lessons (`relevanceFloor`): the everyday sentences are embedded once
 * with the lessons' own vector source, the floor recomputed when the lessons changed (one column
 * scan per sentence; in the background while the last floor is answered, `FollowingFloor`). Until the sentences are embedded, or when embedding them fails, the
 * floor is +∞: lessons then reach a prompt only through the finding or context a message names.
 */
export class ScanLessonRelevanceFloor {
  private sentenceVectors: Promise<number[][]> | null = null;
  private readonly following: FollowingFloor;

  constructor(
    private readonly index: ScanLessonIndex,
    private readonly embed: (text: string) => Promise<number[]>,
    private readonly warn: CalibrationWarning,
    private readonly percentile = DEFAULT_FLOOR_PERCENTILE,
  ) {
    this.following = new FollowingFloor(async () => {
      let vectors: number[][];
      try {
        vectors = await this.vectors();
      } catch (error) {
        this.warn('the everyday sentences could not be embedded; lessons reach prompts only through the findings and scopes messages name', error);
        return Number.POSITIVE_INFINITY;
      }
      return relevanceFloor(await maxPerQueryInTurns(vectors, (v) => this.index.maxCosines([v])), this.percentile);
    });
  }

  /**
   * Starts embedding the everyday sentences and bringing the floor up to date, so a message does
   * not wait for them: after the lessons are loaded, and after each lesson is written.
   */
  warm(): void {
    void this.vectors()
      .then(() => this.floor())
      .catch(() => undefined);
  }

  /** The cosine a lesson must exceed to be related to a message on meaning alone (`FollowingFloor`). */
  floor(): Promise<number> {
    return this.following.floor(this.index.version, this.index.size);
  }

  private vectors(): Promise<number[][]> {
    this.sentenceVectors ??= embedAll(EVERYDAY_SENTENCES, this.embed).catch((error: unknown) => {
      this.sentenceVectors = null;
      throw error;
    });
    return this.sentenceVectors;
  }
}

async function embedAll(texts: readonly string[], embed: (text: string) => Promise<number[]>): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += EMBED_CONCURRENCY) out.push(...(await Promise.all(texts.slice(i, i + EMBED_CONCURRENCY).map(embed))));
  return out;
}

/**
 * The relevance floor of the ELO book's content (`ContextIndex`, idf-weighted word sets): the
 * highest similarity each everyday sentence reaches, at the percentile, recomputed when the
 * content changed (`FollowingFloor`). No model: the content index has its own similarity.
 */
export class ContentRelevance {
  private readonly following = new WeakMap<ContextIndex, FollowingFloor>();

  constructor(
    private readonly percentile = DEFAULT_FLOOR_PERCENTILE,
    private readonly now: () => number = Date.now,
  ) {}

  /** The similarity an item of `content` must exceed to be related to a message on meaning alone (`FollowingFloor`). */
  floor(content: ContextIndex): Promise<number> {
    let following = this.following.get(content);
    if (!following) {
      following = new FollowingFloor(async () =>
        relevanceFloor(
          // A sentence that shares no word with any item reaches similarity 0.
          await maxPerQueryInTurns(EVERYDAY_SENTENCES, (s) => [0, ...content.search(s, 1).map((m) => m.similarity)]),
          this.percentile,
        ),
        this.now,
      );
      this.following.set(content, following);
    }
    return following.floor(content.version, content.size);
  }
}
