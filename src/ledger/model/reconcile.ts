import type { LedgerTransaction } from './chain';
import type { LedgerEntryInput } from './chain';

/** A ledger transaction as a reconciliation reports it. */
export interface ReconcileRow {
  sequence: number;
  id: string;
  source: string;
  source_ref: string;
  points: number;
}

/** What the ledger and its source stores disagree on. Snake_case: printed as JSON. */
export interface ReconcileDiff {
  /** Source records that should have an entry and have none: recovery appends them. */
  missing: LedgerEntryInput[];
  /** Ledger entries of a reconciled source whose record does not call for one (or a second one). */
  unexpected: ReconcileRow[];
  /** Ledger entries whose points differ from what their record calls for. */
  mismatched: (ReconcileRow & { expected_points: number })[];
}

/**
 * Compares a ledger with what its source stores call for (seed 000 §4, balance reconciliation).
 * `expected` maps each reconciled source to its records' entries by record id; sources not in it
 * are not reconciled. Each record accounts for one ledger entry: the first entry of a record is
 * compared with it, later ones are unexpected. O(ledger + records).
 */
export function diffAgainstSources(txs: readonly LedgerTransaction[], expected: ReadonlyMap<string, ReadonlyMap<string, LedgerEntryInput>>): ReconcileDiff {
  const diff: ReconcileDiff = { missing: [], unexpected: [], mismatched: [] };
  const seen = new Map<string, Set<string>>();
  for (const tx of txs) {
    const records = expected.get(tx.source);
    if (!records) continue;
    const row: ReconcileRow = { sequence: tx.sequence, id: tx.id, source: tx.source, source_ref: tx.source_ref, points: tx.points };
    const refs = seen.get(tx.source) ?? new Set<string>();
    seen.set(tx.source, refs);
    const wanted = records.get(tx.source_ref);
    if (!wanted || refs.has(tx.source_ref)) {
      diff.unexpected.push(row);
      continue;
    }
    refs.add(tx.source_ref);
    if (wanted.points !== tx.points) diff.mismatched.push({ ...row, expected_points: wanted.points });
  }
  for (const [source, records] of expected) {
    const refs = seen.get(source);
    for (const [ref, entry] of records) if (!refs?.has(ref)) diff.missing.push(entry);
  }
  return diff;
}
