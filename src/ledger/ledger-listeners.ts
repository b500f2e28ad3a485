import type { IAgentRuntime } from '@elizaos/core';
import type { LedgerEntryInput } from './model/chain';
import { outcomeLedgerEntry, ruleLedgerEntry, trajectoryLedgerEntry } from './model/entries';
import { LEDGER_LOG_SRC } from './ledger-appender';
import type { AppendResult } from './ledger-types';
import type { SelfImproveHub } from '../shared/events';
import type { Db } from '../shared/sql';

/** The part of the ledger its listeners write through. */
export interface LedgerWriter {
  appendMany(inputs: readonly unknown[], timestamp?: string): Promise<AppendResult[]>;
  appendWithin(t: Db, inputs: readonly unknown[], timestamp?: string): Promise<AppendResult[]>;
}

/**
 * What the ledger records of what happens in the agent: the reward or penalty of each new scan
 * outcome (inside the ingest's transaction, so outcomes and entries commit together), each rule
 * verdict, and each paid trajectory. A refusal is logged; a failure is logged by the hub, and
 * reconciliation appends what a source store calls for and the ledger lacks. Returns the
 * unsubscription.
 */
export function subscribeLedger(ledger: LedgerWriter, hub: SelfImproveHub, runtime: IAgentRuntime): () => void {
  const warnRefused = (results: readonly AppendResult[], message: string, fields: Record<string, unknown> = {}) => {
    const refused = results.filter((r) => !r.ok);
    if (refused.length > 0) runtime.logger.warn({ src: LEDGER_LOG_SRC, agentId: runtime.agentId, ...fields, refused: refused.length, first: refused[0] }, message);
  };
  const subscriptions = [
    hub.on('outcomesRecorded', async ({ tx, outcomes }) => {
      const entries = outcomes.map((o) => outcomeLedgerEntry(o)).filter((e): e is LedgerEntryInput => e !== null);
      if (entries.length === 0) return;
      warnRefused(await ledger.appendWithin(tx, entries), 'ledger refused outcome rewards');
    }),
    hub.on('rulesJudged', async ({ verdicts, context, atMs }) => {
      if (verdicts.length === 0) return;
      const entries = verdicts.map((v) => ruleLedgerEntry({ ...v, context }));
      warnRefused(await ledger.appendMany(entries, new Date(atMs).toISOString()), 'ledger refused rule verdicts');
    }),
    hub.on('trajectoryAccepted', async (t) => {
      const entry = trajectoryLedgerEntry({ id: t.id, accepted: true, totalSats: t.paidSats, quality: t.quality });
      if (entry) warnRefused(await ledger.appendMany([entry]), 'ledger refused the trajectory reward', { trajectoryId: t.id });
    }),
  ];
  return () => {
    for (const unsubscribe of subscriptions) unsubscribe();
  };
}
