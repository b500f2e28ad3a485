/**
 * Gives the event loop a turn (timers, I/O, other requests) before going on. Long work on PGlite
 * needs it: its queries resolve through promise jobs alone, so a loop of awaited queries never
 * lets a timer or an HTTP request run until the whole loop ends.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
