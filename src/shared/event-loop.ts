/**
 * Gives the event loop a turn (timers, I/O, other requests) before going on. Long work on PGlite
 * needs it: its queries resolve through promise jobs alone, so a loop of awaited queries never
 * lets a timer or an HTTP request run until the whole loop ends. Every chunk of the plugin's long
 * work passes here, so here it also hints the collector (`collectorHints`).
 *
 * Every waiter goes on in the same turn: several pieces of work yielding at once (at start-up on
 * the 1M bench database: the lessons, the ELO book, the ledger's sums, the metrics report) each
 * run a statement in it, and gaps of 150–320 ms came of statements of 20–60 ms. Resuming one
 * waiter per turn (tried at d985fb8) cut those gaps to 90 ms at most, but made the 10k ingest 19%
 * slower (2,718–3,233 rows/s against 3,405–3,804, three pairs of runs), so it was taken out.
 */
export function yieldToEventLoop(): Promise<void> {
  collectorHints.hint();
  return new Promise((resolve) => setImmediate(resolve));
}

/** Least time between two hints to the collector. */
export const COLLECTOR_HINT_EVERY_MS = 250;
/**
 * A hint runs on the calling thread for a time that grows with the heap: 0.3 ms at 30 MB and 3 ms
 * at 400 MB in a probe, a median of 12 ms and up to 67 ms in the bench process on the 1M database
 * (bench/stall-trace.ts under `--cpu-prof`: 4% of its time, and most of the stalls over 100 ms it
 * was in). The next hint so waits at least this many times as long as the last one took (hints
 * take at most 1% of the thread), and a hint that took over COLLECTOR_HINT_MAX_MS stops them for
 * COLLECTOR_HINT_RETRY_MS: on such a heap a hint is itself a stall, and Bun's own collector, which
 * runs from the turns the plugin's long work gives the event loop, is left to it.
 */
export const COLLECTOR_HINT_COST_SHARE = 100;
export const COLLECTOR_HINT_MAX_MS = 10;
export const COLLECTOR_HINT_RETRY_MS = 600_000;

/**
 * Under Bun, asks its collector to run (concurrently, `Bun.gc(false)`) at most every 250 ms, less
 * often when hints are slow, and not at all for a while when one was very slow
 * (`COLLECTOR_HINT_COST_SHARE`). Every query through plugin-sql leaves garbage behind, and Bun
 * collects it from its event loop: a loop of awaited queries that never gives the loop a turn
 * grows the process until it ends. `bench/collector-hint.ts` (5,000
 * lesson-like memories written on a 24 GB machine): peak RSS 1,182 MB with no turn, 478 MB with a
 * turn every 10 writes, 450 MB with this hint as well. Nothing under Node (V8 bounds its own heap).
 * The process has one (`collectorHints`); a test makes its own, so hints the rest of the process
 * gave (some slow, on a big heap) never decide what it sees.
 */
export class CollectorHints {
  private nextHintMs = Number.NEGATIVE_INFINITY;

  /** `clock` times the hint itself (a test's may be fake). True when the collector was asked. */
  hint(nowMs = performance.now(), clock: () => number = () => performance.now()): boolean {
    const gc = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun?.gc;
    if (gc === undefined || nowMs < this.nextHintMs) return false;
    const startedMs = clock();
    gc(false);
    const costMs = clock() - startedMs;
    this.nextHintMs =
      nowMs + (costMs > COLLECTOR_HINT_MAX_MS ? COLLECTOR_HINT_RETRY_MS : Math.max(COLLECTOR_HINT_EVERY_MS, COLLECTOR_HINT_COST_SHARE * costMs));
    return true;
  }
}

/** The process's hints, given from every `yieldToEventLoop`. */
export const collectorHints = new CollectorHints();
