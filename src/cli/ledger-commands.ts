import { writeFile } from 'node:fs/promises';
import { rewardLedgerOf } from '../services/reward-ledger-service';
import { type ParsedArgs, UsageError } from './args';
import { type CommandResult, positiveIntFlag, withService } from './session';

const SUBCOMMANDS = ['verify', 'replay', 'score', 'history', 'export'] as const;

/**
 * `ledger verify`: checks the chain, the checksums and the head; names the first bad transaction
 * (exit 1 when bad). `ledger replay`: rebuilds the totals from the transaction log. `ledger score`:
 * totals, categories and metrics. `ledger history [--limit N] [--category C]`: newest first.
 * `ledger export --format progress.json [--out FILE]`: the seed's progress.json document.
 */
export async function ledgerCommand(args: ParsedArgs): Promise<CommandResult> {
  const [sub] = args.positionals;
  if (!sub || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`ledger needs a subcommand: one of ${SUBCOMMANDS.join(', ')} (got ${JSON.stringify(sub ?? '')})`);
  }
  const format = args.flags.get('format');
  if (sub === 'export' && format !== 'progress.json') throw new UsageError(`ledger export needs --format progress.json (got ${JSON.stringify(format ?? '')})`);
  const limit = positiveIntFlag(args, 'limit') ?? 10;
  const category = args.flags.get('category');
  return withService(args, async (_scan, booted) => {
    const ledger = await rewardLedgerOf(booted.runtime);
    if (sub === 'verify' || sub === 'replay') {
      const verification = await ledger.verify();
      const totals = sub === 'replay' ? await ledger.totals() : undefined;
      const text = verification.ok
        ? `ledger ok: ${verification.count} transactions, total ${verification.total}`
        : `ledger BAD at ${verification.first.id} (sequence ${verification.first.sequence}): ${verification.first.code}: ${verification.first.message}; ${verification.checked} checked`;
      const replayed = totals ? `\nrebuilt from the log: total ${totals.total_score}, earned ${totals.rewards.total_earned}, incurred ${totals.penalties.total_incurred}, checksum ${totals.checksum.is_valid ? 'valid' : 'INVALID'}` : '';
      return { exitCode: verification.ok ? 0 : 1, json: { verification, ...(totals ? { totals } : {}) }, text: text + replayed };
    }
    if (sub === 'score') {
      const [totals, metrics] = [await ledger.totals(), await ledger.metrics()];
      const text = [
        `score ${totals.total_score} (session ${totals.session_score}); earned ${totals.rewards.total_earned}, incurred ${totals.penalties.total_incurred}`,
        `learning efficiency ${metrics.learning_efficiency}%, success rate ${metrics.success_rate}% of ${metrics.actions_total} actions`,
        ...Object.entries(totals.rewards.by_category).map(([c, p]) => `  + ${c} ${p}`),
        ...Object.entries(totals.penalties.by_category).map(([c, p]) => `  - ${c} ${p}`),
      ].join('\n');
      return { exitCode: 0, json: { totals, metrics }, text };
    }
    if (sub === 'history') {
      const txs = await ledger.history({ limit, ...(typeof category === 'string' ? { category } : {}) });
      const text = txs.map((t) => `${t.id} ${t.timestamp} ${t.type} ${t.category} ${t.points > 0 ? '+' : ''}${t.points} = ${t.running_total}  ${t.action}`).join('\n') || '(no transactions)';
      return { exitCode: 0, json: { transactions: txs }, text };
    }
    const doc = await ledger.progressJson();
    const out = args.flags.get('out');
    if (typeof out === 'string') {
      await writeFile(out, `${JSON.stringify(doc, null, 2)}\n`);
      return { exitCode: 0, json: { file: out }, text: `progress.json written to ${out}` };
    }
    return { exitCode: 0, json: doc, text: JSON.stringify(doc, null, 2) };
  });
}
