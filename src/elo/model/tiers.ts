/**
 * Seed 002's ELO tiers. Ranges are half-open on real-valued ratings: HIGH `[1600, ∞)`, MEDIUM
 * `[1200, 1600)`, LOW `[800, 1200)`, VERY_LOW `(-∞, 800)`. The seed's integer ranges ("1200-1599")
 * are the same tiers.
 */
export const ELO_TIERS = ['HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'] as const;
export type EloTier = (typeof ELO_TIERS)[number];

/** The lowest rating in each tier (seed 002 table). VERY_LOW has no floor. */
export const TIER_FLOOR_ELO: Record<EloTier, number> = {
  HIGH: 1600,
  MEDIUM: 1200,
  LOW: 800,
  VERY_LOW: Number.NEGATIVE_INFINITY,
};

/**
 * Seed 002's starting rating of a new item by tier: HIGH 1600, MEDIUM 1200, LOW 800. The seed gives
 * none for VERY_LOW; 400 continues its 400-point ladder (one `ELO_SCALE` below LOW). Each start is
 * its tier's floor, so a fresh item's first net loss drops it one tier.
 */
export const INITIAL_ELO_BY_TIER: Record<EloTier, number> = {
  HIGH: 1600,
  MEDIUM: 1200,
  LOW: 800,
  VERY_LOW: 400,
};

/** The tier a rating falls in: the first tier, from HIGH down, whose floor is at most `elo`. */
export function tierOf(elo: number): EloTier {
  if (!Number.isFinite(elo)) throw new RangeError(`elo must be a finite number, got ${elo}`);
  if (elo >= TIER_FLOOR_ELO.HIGH) return 'HIGH';
  if (elo >= TIER_FLOOR_ELO.MEDIUM) return 'MEDIUM';
  if (elo >= TIER_FLOOR_ELO.LOW) return 'LOW';
  return 'VERY_LOW';
}
