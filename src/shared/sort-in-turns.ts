import { yieldToEventLoop } from './event-loop';
import { chunks } from './sql';

/** Items sorted, or merged, between two turns of the event loop. */
export const SORT_STEP = 4_096;

/**
 * `items` ordered by `key` as `Array.prototype.sort` orders strings (UTF-16 code units; stable),
 * SORT_STEP items at a time with a turn between (`turn`: of the event loop by default): runs of
 * SORT_STEP sorted, then merged pairwise. One sort of the 150,000 pending group ids of a
 * 1M-outcome learning pass was a 135 ms stall; the same work in turns is a few milliseconds each.
 */
export async function sortedInTurns<T>(items: readonly T[], key: (item: T) => string, turn: () => Promise<void> = yieldToEventLoop): Promise<T[]> {
  const before = (a: T, b: T) => key(a) < key(b);
  let runs: T[][] = [];
  for (const [i, run] of chunks(items, SORT_STEP).entries()) {
    if (i > 0) await turn();
    runs.push(run.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)));
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) merged.push(i + 1 < runs.length ? await mergeInTurns(runs[i] as T[], runs[i + 1] as T[], before, turn) : (runs[i] as T[]));
    runs = merged;
  }
  return runs[0] ?? [];
}

/** Two sorted runs merged (ties from `left` first, so the sort stays stable), with a turn every SORT_STEP items. */
async function mergeInTurns<T>(left: readonly T[], right: readonly T[], before: (a: T, b: T) => boolean, turn: () => Promise<void>): Promise<T[]> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const stop = out.length + SORT_STEP;
    while (out.length < stop && i < left.length && j < right.length) out.push(before(right[j] as T, left[i] as T) ? (right[j++] as T) : (left[i++] as T));
    if (i === left.length) while (out.length < stop && j < right.length) out.push(right[j++] as T);
    else if (j === right.length) while (out.length < stop && i < left.length) out.push(left[i++] as T);
    if (i < left.length || j < right.length) await turn();
  }
  return out;
}
