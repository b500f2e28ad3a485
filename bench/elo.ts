import { INITIAL_ELO_BY_TIER, updateElo } from '../src/elo/model/elo';
import { report, round } from './lib';

/**
 * The pure ELO engine: updates per second through `updateElo` over items stored in typed arrays
 * (goal: at least 1M/s), and the heap taken by 100k items stored as a Float64Array of ratings plus
 * a Uint32Array of update counts against an array of `{ elo, updates }` objects, measured in the
 * same run as heapUsed deltas after a full `Bun.gc(true)` (Bun counts typed-array storage there).
 */
const UPDATES = Number(process.argv[2] ?? 5_000_000);
const ITEMS = 100_000;
const WARMUP_UPDATES = 200_000;
const GOAL_UPDATES_PER_S = 1_000_000;

function heapUsedAfterGc(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

/** A deterministic use pattern: about a third of the updates are uses. */
const outcomeOf = (i: number) => (Math.imul(i, 2654435761) >>> 0) % 3 === 0 ? 1 : 0;

const beforeTyped = heapUsedAfterGc();
const elo = new Float64Array(ITEMS).fill(INITIAL_ELO_BY_TIER.MEDIUM);
const updates = new Uint32Array(ITEMS);
const typedBytes = heapUsedAfterGc() - beforeTyped;

const beforeObjects = heapUsedAfterGc();
const objects = Array.from({ length: ITEMS }, (_, i) => ({ elo: INITIAL_ELO_BY_TIER.MEDIUM + i / 7, updates: i }));
const objectBytes = heapUsedAfterGc() - beforeObjects;

function run(from: number, count: number): void {
  for (let i = from; i < from + count; i++) {
    const item = i % ITEMS;
    const next = updateElo({ elo: elo[item] as number, updates: updates[item] as number }, outcomeOf(i));
    elo[item] = next.elo;
    updates[item] = next.updates;
  }
}

run(0, WARMUP_UPDATES);
const start = performance.now();
run(WARMUP_UPDATES, UPDATES);
const seconds = (performance.now() - start) / 1000;

let eloSum = 0;
for (const r of elo) eloSum += r;
const rate = UPDATES / seconds;
report({
  bench: 'elo-engine',
  updates: UPDATES,
  items: ITEMS,
  updates_per_s: round(rate, 0),
  goal_updates_per_s: GOAL_UPDATES_PER_S,
  goal_ratio: round(rate / GOAL_UPDATES_PER_S, 2),
  mean_elo_after: round(eloSum / ITEMS, 1),
  memory_items: ITEMS,
  typed_arrays_bytes: typedBytes,
  typed_arrays_payload_bytes: elo.byteLength + updates.byteLength,
  objects_bytes: objectBytes,
  objects_to_typed_ratio: round(objectBytes / typedBytes, 2),
  objects_kept: objects.length,
});
