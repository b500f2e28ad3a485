import { bucketFrom, distributionFromCounts, type Distribution, topItems } from './model/distribution';
import { COUNTED_BUCKET_WIDTH, ratingAt } from './model/bucket-span';
import type { ItemRef } from './model/exposures';
import type { ItemFigures } from './model/stats';
import { tierOf } from './model/tiers';
import type { EloBucketStore } from './elo-bucket-store';
import type { EloItemState } from './elo-store';
import { yieldToEventLoop } from '../shared/event-loop';

/** Where the counted figures are read: the counted buckets, and stored item states by key. */
export interface CountedSource {
  buckets: EloBucketStore;
  states(refs: readonly ItemRef[]): Promise<EloItemState[]>;
  driftPerDay: number;
}

/** Whether the counted buckets can give a histogram of this width: a multiple of theirs. */
export const countable = (bucketWidth: number) => bucketWidth > 0 && Number.isSafeInteger(bucketWidth / COUNTED_BUCKET_WIDTH);

/**
 * The report's figures over every item at `nowMs`, the same as `eloStats` computes from every
 * item's rating then, without reading every item: the distribution from the counts per kind and
 * 100-point bucket, corrected for the items whose counted bucket does not hold at `nowMs` (their
 * rating computed again); the top `k` of each kind read in order of the highest rating each item
 * can have; the tiers the Success Metrics need, of the items the logs name (`refs`). Reads what is
 * written: the caller writes what is pending first. Undefined while items are not counted yet (a
 * recount at start-up is under way): every item is read then. The event loop gets a turn between
 * its reads (at start-up on the 1M bench database they held it 82 ms in one chain), so a use
 * made meanwhile may show in a later read (as another process's writes always could): the
 * figures are as of about `nowMs`, not of one snapshot.
 */
export async function countedFigures(source: CountedSource, nowMs: number, k: number, bucketWidth: number, refs: readonly ItemRef[]): Promise<ItemFigures | undefined> {
  const byKind = new Map<string, Map<number, number>>();
  const add = (kind: string, bucket: number, n: number) => {
    const buckets = byKind.get(kind) ?? new Map<number, number>();
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + n);
    byKind.set(kind, buckets);
  };
  for (const c of await source.buckets.counts()) add(c.kind, c.bucket, c.count);
  await yieldToEventLoop();
  const uncounted = await source.buckets.uncounted(nowMs);
  // Items not counted yet (a recount after start-up is under way): their order keys are missing too.
  if (uncounted.some((item) => item.bucket === null)) return undefined;
  for (const item of uncounted) {
    if (item.bucket !== null) add(item.kind, item.bucket, -1);
    add(item.kind, bucketFrom(ratingAt(item, nowMs, source.driftPerDay), COUNTED_BUCKET_WIDTH), 1);
  }
  const counts = new Map<string, { bucket: number; count: number }[]>();
  for (const [kind, buckets] of byKind) {
    const nonEmpty = [...buckets].filter(([, n]) => n !== 0).map(([bucket, count]) => ({ bucket, count }));
    if (nonEmpty.length > 0) counts.set(kind, nonEmpty);
  }
  const kinds = [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const distribution = (list: readonly { bucket: number; count: number }[]): Distribution => distributionFromCounts(list, bucketWidth, COUNTED_BUCKET_WIDTH);
  const top: ItemFigures['top'] = {};
  await yieldToEventLoop();
  const usedAfter = await source.buckets.usedAfter(nowMs);
  for (const kind of kinds) {
    await yieldToEventLoop();
    top[kind] = topItems(await source.buckets.top(kind, k, nowMs, usedAfter.filter((i) => i.kind === kind)), k);
  }
  await yieldToEventLoop();
  const tiers = new Map<string, ReturnType<typeof tierOf>>();
  for (const state of await source.states(refs)) tiers.set(`${state.kind}\u0000${state.id}`, tierOf(ratingAt(state, nowMs, source.driftPerDay)));
  return {
    distribution: {
      overall: distribution([...counts.values()].flat()),
      by_kind: Object.fromEntries(kinds.map((kind) => [kind, distribution(counts.get(kind) ?? [])])),
    },
    top,
    tierNow: (ref) => tiers.get(`${ref.kind}\u0000${ref.id}`),
  };
}
