import { eloTables } from '../elo/tables';
import { ledgerTables } from '../ledger/tables';
import { ruleTables } from '../rules/tables';
import { scanTables } from '../scan/tables';
import { trajectoryTables } from '../trajectories/tables';

/**
 * Every table of the plugin, as drizzle definitions: the plugin's `schema`, which plugin-sql
 * migrates (creates and alters, in the `self_improve` schema) when the runtime initializes.
 */
export const selfImproveTables = { ...scanTables, ...ruleTables, ...eloTables, ...ledgerTables, ...trajectoryTables };
