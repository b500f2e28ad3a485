import type { EloLogName } from './tables';
import { SerialQueue } from '../shared/serial-queue';
import { yieldToEventLoop } from '../shared/event-loop';

/** Newest entries of each log a report reads when not told otherwise (the sample its log figures use). */
export const REPORT_LOG_SAMPLE = 5_000;

/**
 * Entries read per statement while a sample is read whole (the event loop gets a turn between
 * pages): 250 session entries on cold pages took 71 ms in an agent process starting on the
 * 100k step's database of the thirty-third scale run (a 106 ms stall with the rest of its turn).
 */
export const SAMPLE_PAGE = 100;

/** Where the samples are read from: the ELO store's logs, by their append order (`seq`). */
export interface EloLogSource {
  /** Up to `limit` entries with `afterSeq < seq < beforeSeq` (null: unbounded), newest first. */
  logPage(name: EloLogName, afterSeq: number, beforeSeq: number | null, limit: number): Promise<{ seq: number; entry: Record<string, unknown> }[]>;
  /** The lowest seq still stored (retention deletes the oldest entries), or null when the log is empty. */
  oldestSeq(name: EloLogName): Promise<number | null>;
}

interface Held {
  /** Newest first. */
  seqs: number[];
  entries: Record<string, unknown>[];
}

/** What a log's sample keeps of its entries (newest first): all of them as read, or less of each (`sessionsForMetrics`). */
export type SampleSlimmer = (name: EloLogName, entries: readonly Record<string, unknown>[]) => Promise<Record<string, unknown>[]>;

/**
 * The newest `limit` entries of each ELO log (the report's sample), kept between reports, each as
 * `slim` keeps it. The logs
 * are append-only by seq and retention deletes only the oldest entries, so a report reads just the
 * entries appended since the last one (one short statement) and drops what retention deleted. The
 * first read of a log goes a page at a time with turns of the event loop between pages; the book
 * does it in the background after start. Holds at most `limit` entries per log.
 */
export class EloLogSamples {
  private readonly held = new Map<EloLogName, Held>();
  private readonly queue = new SerialQueue();

  constructor(
    private readonly source: EloLogSource,
    readonly limit: number,
    private readonly slim: SampleSlimmer = async (_name, entries) => [...entries],
  ) {}

  /** The newest `limit` entries of `name`, newest first, as stored now. */
  newest(name: EloLogName): Promise<Record<string, unknown>[]> {
    return this.queue.run(async () => {
      const held = await this.refreshed(name);
      return [...held.entries];
    });
  }

  private async refreshed(name: EloLogName): Promise<Held> {
    const old = this.held.get(name) ?? { seqs: [], entries: [] };
    const oldest = await this.source.oldestSeq(name);
    // Entries retention deleted leave the sample; a log emptied (or rewritten below what is held) is read again.
    const gone = oldest === null ? 0 : old.seqs.findIndex((seq) => seq < oldest);
    const keep = gone < 0 ? old.seqs.length : gone;
    const after = keep > 0 ? (old.seqs[0] as number) : 0;
    const fresh: Held = { seqs: [], entries: [] };
    for (let before: number | null = null; fresh.seqs.length < this.limit; ) {
      const page = await this.source.logPage(name, after, before, Math.min(SAMPLE_PAGE, this.limit - fresh.seqs.length));
      for (const row of page) {
        fresh.seqs.push(row.seq);
        fresh.entries.push(row.entry);
      }
      if (page.length < SAMPLE_PAGE) break;
      before = fresh.seqs[fresh.seqs.length - 1] as number;
      await yieldToEventLoop();
    }
    const kept = Math.min(keep, this.limit - fresh.seqs.length);
    // Nothing appended and nothing deleted: the sample stands as it is kept (slimming it again would
    // only make new objects of the same entries, each to be checked again by the next report).
    if (fresh.seqs.length === 0 && kept === old.seqs.length && this.held.has(name)) return old;
    const held: Held = { seqs: [...fresh.seqs, ...old.seqs.slice(0, kept)], entries: await this.slim(name, [...fresh.entries, ...old.entries.slice(0, kept)]) };
    this.held.set(name, held);
    return held;
  }
}
