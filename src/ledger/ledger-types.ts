import type { LedgerTransaction } from './model/chain';
import type { LedgerEntryInput } from './model/chain';
import type { LedgerCheckpoint } from './model/checkpoint';
import type { LedgerVerification } from './model/integrity';
import type { RangeSummary, RefRange } from './model/ref-ranges';
import type { Db } from '../shared/sql';

/**
 * Which of these record ids exist (seed 000 step 3: every entry's source record is checked before
 * it is written). `db` is where to look: inside `appendWithin` it is the caller's transaction (the
 * records it just wrote are visible there only, and on PGlite any other query would wait for that
 * transaction to end), so a check must use it rather than the runtime's own database calls.
 */
export type SourceCheck = (sourceRefs: readonly string[], db: Db) => Promise<Set<string>>;

export type { HeadProblem, LedgerIntegrity, LedgerVerification } from './model/integrity';

/** The first thing `verify` found wrong. */
export type LedgerProblem = Extract<LedgerVerification, { ok: false }>['first'];

/**
 * What a source store calls for, a range of record ids at a time (seed 000 §4): `summary`, the
 * count, points and record-id checksum (`sum(hashtext(<id as text>))`, as the ledger's) of the
 * entries its records in `range` call for, an aggregate the database computes; and `entries`, those entries by record id, read only for a range whose summary differs from
 * the ledger's. Both run on `db`.
 */
export interface ReconciledSource {
  summary(db: Db, range: RefRange): Promise<RangeSummary>;
  entries(db: Db, range: RefRange): Promise<ReadonlyMap<string, LedgerEntryInput>>;
  /**
   * What an incremental reconciliation compares (only what is new since the last one):
   * `position`, the newest record every record up to which is committed (read on the runtime's
   * database, never inside the ledger lock); `newRecords`, how many records after `after` through
   * `through` there are and the entries those of them the ledger holds none for call for, read a
   * page at a time; `entriesFor`, the entries these records call for (a record that does not exist
   * or calls for none is absent).
   */
  position(db: Db): Promise<number>;
  newRecords(db: Db, after: number, through: number): Promise<{ count: number; unpaid: ReadonlyMap<string, LedgerEntryInput> }>;
  entriesFor(db: Db, refs: readonly string[]): Promise<ReadonlyMap<string, LedgerEntryInput>>;
}

/** What one reconciliation found and did. Snake_case: printed as JSON. */
export interface ReconcileReport {
  at: string;
  /** True when nothing had to be recovered or flagged. */
  ok: boolean;
  chain_problem: ReconcileProblem | null;
  /** Rows moved to the audit log when a broken chain was cut back. */
  quarantined: number;
  /** Entries appended for source records that had none. */
  appended: number;
  unexpected: number;
  mismatched: number;
  /** Ranges of record ids whose summaries were compared (per reconciled source), and how many of them were read row by row. */
  ranges_compared: number;
  ranges_read: number;
  /** Incremental: the ledger entries and source records new since the last reconciliation that were compared, and the records among them read again under the lock. */
  records_compared: number;
  records_read: number;
}

/**
 * One result per entry asked for. `appended`: a new transaction. `duplicate`: the ledger already
 * holds an entry for this source record and category (the one returned); nothing was written.
 */
export type AppendResult =
  | { ok: true; status: 'appended' | 'duplicate'; transaction: LedgerTransaction }
  | { ok: false; code: string; field: string; message: string };

/** What a reconciliation reports as the chain's problem: one `verify` names, or a key that cannot check the chain. */
export type ReconcileProblem = LedgerProblem | { sequence: number; id: string; code: 'key_mismatch'; message: string };

export type CheckpointResult = { ok: true; checkpoint: LedgerCheckpoint } | { ok: false; code: 'no_secret' | 'ledger_invalid'; message: string };
