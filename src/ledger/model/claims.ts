import type { LedgerEntryInput } from './chain';

/**
 * What an entry claims: the reward or penalty of category `category` for the source record
 * `source_ref` of kind `source`. A ledger holds at most one entry per claim (the database refuses
 * a second), so every source record is paid exactly once per category.
 */
export type ClaimKey = Pick<LedgerEntryInput, 'source' | 'source_ref' | 'category'>;

/** One string per claim, unambiguous whatever the texts hold: the JSON of `[source, source_ref, category]`. */
export function claimKeyOf(entry: ClaimKey): string {
  return JSON.stringify([entry.source, entry.source_ref, entry.category]);
}
