/**
 * Gives the event loop a turn (timers, I/O, other requests) before going on. Long work on PGlite
 * needs it: its queries resolve through promise jobs alone, so a loop of awaited queries never
 * lets a timer or an HTTP request run until the whole loop ends. Every chunk of the plugin's long
 * work passes here, so here it also hints the collector (`hintCollector`).
 */
export function yieldToEventLoop(): Promise<void> {
  hintCollector();
  return new Promise((resolve) => setImmediate(resolve));
}

/** Least time between two hints to the collector. */
export const COLLECTOR_HINT_EVERY_MS = 250;
let lastHintMs = Number.NEGATIVE_INFINITY;

/**
 * Under Bun, asks its collector to run (concurrently, `Bun.gc(false)`: under 2 ms on the calling
 * thread) at most every 250 ms. Every query through plugin-sql leaves garbage behind, and Bun
 * collects it from its event loop: a loop of awaited queries that never gives the loop a turn
 * grows the process until it ends. `bench/collector-hint.ts` (5,000 lesson-like memories written
 * on a 24 GB machine): peak RSS 1,182 MB with no turn, 478 MB with a turn every 10 writes, 450 MB
 * with this hint as well. Nothing under Node (V8 bounds its own heap).
 */
export function hintCollector(nowMs = performance.now()): boolean {
  const gc = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun?.gc;
  if (gc === undefined || nowMs - lastHintMs < COLLECTOR_HINT_EVERY_MS) return false;
  lastHintMs = nowMs;
  gc(false);
  return true;
}
