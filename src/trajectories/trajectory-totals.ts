import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../shared/sql';
import { trajectoryTotalsTable } from './tables';
import { acceptedIn, paidSatsIn, TRAJECTORIES_TABLE, trajectoryRowsOf } from './trajectory-store';
/**
 * The advisory-lock class of the totals (two-key locks, apart from the plugin's one-key ones):
 * (class, 0) serialises installing the triggers; (class, hashtext(agent)) puts an agent's backfill
 * before or after every trigger update of that agent, never between.
 */
const LOCK_CLASS = 24_095;
/** Named with a version: a later change of what the totals count installs a function of another name. */
const FUNCTION = 'self_improve.trajectory_totals_change_v1';
const TRIGGERS = ['self_improve_trajectory_totals_insert', 'self_improve_trajectory_totals_delete', 'self_improve_trajectory_totals_update'] as const;

/** A row's contribution to each total, from its metadata (written by `TrajectoryService`; anything malformed counts 0, never fails a write). */
const accepted = (m: string) => `CASE WHEN ${acceptedIn(m)} THEN 1 ELSE 0 END`;
const acceptedSats = (m: string) =>
  `CASE WHEN ${acceptedIn(m)} AND jsonb_typeof(${m}->'evaluation'->'reward'->'total_sats') = 'number' THEN (${m}->'evaluation'->'reward'->>'total_sats')::numeric ELSE 0 END`;
const change = (row: 'OLD' | 'NEW', sign: '-' | '+') => `
    PERFORM pg_advisory_xact_lock_shared(${LOCK_CLASS}, hashtext(${row}.agent_id::text));
    UPDATE self_improve.trajectory_totals SET trajectories = trajectories ${sign} 1, accepted = accepted ${sign} ${accepted(`${row}.metadata`)},
      accepted_sats = accepted_sats ${sign} ${acceptedSats(`${row}.metadata`)}, paid_sats = paid_sats ${sign} ${paidSatsIn(`${row}.metadata`)}
    WHERE agent_id = ${row}.agent_id;`;

const FUNCTION_SQL = `CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.type = '${TRAJECTORIES_TABLE}' THEN ${change('OLD', '-')}
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.type = '${TRAJECTORIES_TABLE}' THEN ${change('NEW', '+')}
    END IF;
  END IF;
  RETURN NULL;
END
$body$`;

/** Only trajectory rows call the function: other memories pay for the WHEN test alone. */
const TRIGGER_SQL = [
  `CREATE OR REPLACE TRIGGER ${TRIGGERS[0]} AFTER INSERT ON memories FOR EACH ROW WHEN (NEW.type = '${TRAJECTORIES_TABLE}') EXECUTE FUNCTION ${FUNCTION}()`,
  `CREATE OR REPLACE TRIGGER ${TRIGGERS[1]} AFTER DELETE ON memories FOR EACH ROW WHEN (OLD.type = '${TRAJECTORIES_TABLE}') EXECUTE FUNCTION ${FUNCTION}()`,
  `CREATE OR REPLACE TRIGGER ${TRIGGERS[2]} AFTER UPDATE ON memories FOR EACH ROW WHEN (OLD.type = '${TRAJECTORIES_TABLE}' OR NEW.type = '${TRAJECTORIES_TABLE}') EXECUTE FUNCTION ${FUNCTION}()`,
];

/** What the stored trajectories of an agent add up to, counted by the database. */
export interface TrajectoryTotals {
  count: number;
  accepted: number;
  /** Σ evaluation.reward.total_sats of the accepted ones: what they earned under the thresholds they were scored with. */
  accepted_sats: number;
  /** Σ paid_sats: what the ledger was asked to pay for them. */
  paid_sats: number;
}

type TotalsRow = Record<'trajectories' | 'accepted' | 'accepted_sats' | 'paid_sats', string | number | null>;
const totalsOf = (row: TotalsRow | undefined): TrajectoryTotals => ({
  count: Number(row?.trajectories ?? 0),
  accepted: Number(row?.accepted ?? 0),
  accepted_sats: Number(row?.accepted_sats ?? 0),
  paid_sats: Number(row?.paid_sats ?? 0),
});

/** The aggregate over every stored trajectory of the agent: the backfill's, and the answer while no kept totals exist. */
const aggregate = (agentId: string) =>
  sql`SELECT count(*) AS trajectories, coalesce(sum(${sql.raw(accepted('metadata'))}), 0) AS accepted, coalesce(sum(${sql.raw(acceptedSats('metadata'))}), 0) AS accepted_sats,
             coalesce(sum(${sql.raw(paidSatsIn('metadata'))}), 0) AS paid_sats
      FROM memories WHERE ${trajectoryRowsOf(agentId)}`;

/**
 * Installs the triggers that keep `trajectory_totals` (once per database, under a lock so two
 * processes starting together do not race), then counts the agent's stored trajectories into its
 * row if it has none yet: one aggregate, once per agent and database (a database from before
 * the totals, or restored without them), under the agent's lock so that no trajectory stored or
 * deleted meanwhile is counted twice or missed. Throws when the database refuses (a user that may
 * not create triggers): the totals are then aggregated at each read, as before.
 */
export async function ensureTrajectoryTotals(db: Db, agentId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, 0)`);
    const names = sql.join(TRIGGERS.map((name) => sql`${name}`), sql`, `);
    // Installed means these triggers calling this version's function (a function of another name is installed over them).
    const [installed] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM pg_trigger WHERE NOT tgisinternal AND tgname IN (${names}) AND tgrelid = 'memories'::regclass AND tgfoid = to_regprocedure(${`${FUNCTION}()`})`,
    );
    if (Number(installed?.n ?? 0) === TRIGGERS.length) return;
    await tx.execute(sql.raw(FUNCTION_SQL));
    for (const statement of TRIGGER_SQL) await tx.execute(sql.raw(statement));
  });
  const [kept] = await queryRows<{ one: number }>(db, sql`SELECT 1 AS one FROM ${trajectoryTotalsTable} WHERE agent_id = ${agentId}::uuid`);
  if (kept) return;
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${agentId}::uuid::text))`);
    await tx.execute(
      sql`INSERT INTO ${trajectoryTotalsTable} (agent_id, trajectories, accepted, accepted_sats, paid_sats)
          SELECT ${agentId}::uuid, a.trajectories, a.accepted, a.accepted_sats, a.paid_sats FROM (${aggregate(agentId)}) a
          ON CONFLICT (agent_id) DO NOTHING`,
    );
  });
}

/** The agent's totals: its kept row (one read), or the aggregate over its stored trajectories while it has none. */
export async function trajectoryTotals(db: Db, agentId: string): Promise<TrajectoryTotals> {
  const [kept] = await queryRows<TotalsRow>(db, sql`SELECT trajectories, accepted, accepted_sats, paid_sats FROM ${trajectoryTotalsTable} WHERE agent_id = ${agentId}::uuid`);
  return kept ? totalsOf(kept) : aggregatedTrajectoryTotals(db, agentId);
}

/** The aggregate alone, whatever is kept: what the tests hold the kept totals to. */
export async function aggregatedTrajectoryTotals(db: Db, agentId: string): Promise<TrajectoryTotals> {
  return totalsOf((await queryRows<TotalsRow>(db, aggregate(agentId)))[0]);
}
