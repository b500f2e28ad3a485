import { EVERYDAY_SENTENCES } from './everyday-sentences';
import type { ContextIndex } from '../elo/model/context-index';
import { DEFAULT_FLOOR_PERCENTILE, maxPerQuery, relevanceFloor } from './relevance-floor';
import type { ScanLessonIndex } from '../scan/scan-lesson-index';

/** Everyday sentences embedded at once while calibrating (a model is called this many times in parallel). */
const EMBED_CONCURRENCY = 8;

export type CalibrationWarning = (message: string, error: unknown) => void;

/**
 * The relevance floor of the lessons (`relevanceFloor`): the everyday sentences are embedded once
 * with the lessons' own vector source, the floor recomputed whenever the lessons changed (one
 * column scan per sentence). Until the sentences are embedded, or when embedding them fails, the
 * floor is +∞: lessons then reach a prompt only through the finding or context a message names.
 */
export class ScanLessonRelevanceFloor {
  private sentenceVectors: Promise<number[][]> | null = null;
  private computed: { version: number; floor: number } | null = null;

  constructor(
    private readonly index: ScanLessonIndex,
    private readonly embed: (text: string) => Promise<number[]>,
    private readonly warn: CalibrationWarning,
    private readonly percentile = DEFAULT_FLOOR_PERCENTILE,
  ) {}

  /** Starts embedding the everyday sentences, so the first message does not wait for it. */
  warm(): void {
    void this.vectors().catch(() => undefined);
  }

  /** The cosine a lesson must exceed to be related to a message on meaning alone. */
  async floor(): Promise<number> {
    const version = this.index.version;
    if (this.computed?.version === version) return this.computed.floor;
    let vectors: number[][];
    try {
      vectors = await this.vectors();
    } catch (error) {
      this.warn('the everyday sentences could not be embedded; lessons reach prompts only through the findings and scopes messages name', error);
      return Number.POSITIVE_INFINITY;
    }
    const floor = relevanceFloor(this.index.maxCosines(vectors), this.percentile);
    this.computed = { version, floor };
    return floor;
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
 * content changed. No model: the content index has its own similarity.
 */
export class ContentRelevance {
  private computed: { version: number; floor: number } | null = null;

  constructor(private readonly percentile = DEFAULT_FLOOR_PERCENTILE) {}

  floor(content: ContextIndex): number {
    if (this.computed?.version === content.version) return this.computed.floor;
    const floor = relevanceFloor(
      // A sentence that shares no word with any item reaches similarity 0.
      maxPerQuery(EVERYDAY_SENTENCES, (s) => [0, ...content.search(s, 1).map((m) => m.similarity)]),
      this.percentile,
    );
    this.computed = { version: content.version, floor };
    return floor;
  }
}
