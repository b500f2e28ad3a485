import { DRIFT_REASON } from './model/convergence';
import { ratingAt } from './model/bucket-span';
import { INITIAL_ELO_BY_TIER, updateElo } from './model/elo';
import { initialTierFor } from './model/tier-map';
import type { EloBookSettings } from './elo-book-settings';
import type { EloLogWriter } from './elo-log-writer';
import { type EloHotSet, ratingKey } from './elo-hot-set';
import type { EloItemState } from './elo-store';

/**
 * The ratings themselves: each item's stored state, its starting rating (by tier), the drift
 * back toward it with disuse (computed from timestamps when the item is next read or touched), and
 * every change logged in the seed's ELO update format and marked for the next write.
 */
export class EloRatings {
  constructor(
    /** Items in memory by `ratingKey`; an operation's items are brought in before it runs (`EloHotSet.run`). */
    private readonly items: EloHotSet,
    private readonly settings: EloBookSettings,
    private readonly writer: EloLogWriter,
  ) {}

  /** An item's state in memory (rating as of its last change), or undefined for an item never seen or not in memory. */
  stored(kind: string, id: string): EloItemState | undefined {
    return this.items.peek(ratingKey(kind, id));
  }

  /** An item's rating at `nowMs`: its stored rating drifted for the days since last use, or its starting rating when unseen (or not in memory). */
  current(kind: string, id: string, nowMs: number): number {
    const item = this.items.peek(ratingKey(kind, id));
    return item ? this.eloAt(item, nowMs) : this.startEloFor(kind, id);
  }

  /** The item with its rating at `nowMs` (drift applied, not stored). */
  at(item: EloItemState, nowMs: number): EloItemState {
    return { ...item, elo: this.eloAt(item, nowMs) };
  }

  /** The item's rating at `nowMs` (drift applied, not stored): `at`'s rating without copying the item. */
  eloAt(item: EloItemState, nowMs: number): number {
    return ratingAt(item, nowMs, this.settings.driftPerDay);
  }

  /** The item, created at its starting rating or with the drift since its last use applied (and logged), now marked used. */
  touch(kind: string, id: string, atMs: number, timestamp: string, path?: string): EloItemState {
    const key = ratingKey(kind, id);
    let item = this.items.get(key);
    if (!item) {
      const start = this.startEloFor(kind, path ?? id);
      item = { kind, id, elo: start, startElo: start, updates: 0, lastUsedMs: atMs };
      this.items.set(key, item);
    } else {
      const drifted = this.eloAt(item, atMs);
      if (Math.abs(drifted - item.elo) >= 0.01) this.change(item, drifted, item.updates, DRIFT_REASON, timestamp);
    }
    item.lastUsedMs = Math.max(item.lastUsedMs, atMs);
    this.writer.markDirty(key);
    return item;
  }

  /** An outcome for the item (1 win, 0 loss, between: partial credit): `ELO += K × (outcome − expected)`. */
  score(item: EloItemState, outcome: number, reason: string, timestamp: string): void {
    const next = updateElo(item, outcome, { establishedAfterUpdates: this.settings.establishedAfterUpdates });
    this.change(item, next.elo, next.updates, reason, timestamp);
  }

  change(item: EloItemState, elo: number, updates: number, reason: string, timestamp: string): void {
    this.writer.log('updates', { timestamp, entity_type: item.kind, entity_id: item.id, elo_old: item.elo, elo_new: elo, delta: elo - item.elo, reason });
    item.elo = elo;
    item.updates = updates;
    this.writer.markDirty(ratingKey(item.kind, item.id));
  }

  private startEloFor(kind: string, path: string): number {
    return INITIAL_ELO_BY_TIER[initialTierFor(this.settings.tierRules, kind, path)];
  }
}
