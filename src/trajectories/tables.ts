import { bigint, numeric, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/**
 * What an agent's stored trajectories add up to (`TrajectoryTotals`), kept by triggers on
 * plugin-sql's `memories` as trajectory rows come and go (`trajectory-totals.ts`), whoever writes
 * or deletes them: `GET /trajectories` reads one row instead of aggregating every stored trajectory.
 */
export const trajectoryTotalsTable = pluginSchema.table('trajectory_totals', {
  agentId: uuid('agent_id').primaryKey(),
  trajectories: bigint('trajectories', { mode: 'number' }).notNull(),
  accepted: bigint('accepted', { mode: 'number' }).notNull(),
  acceptedSats: numeric('accepted_sats').notNull(),
  paidSats: numeric('paid_sats').notNull(),
});

export const trajectoryTables = { trajectoryTotals: trajectoryTotalsTable };
