import { writeFile } from 'node:fs/promises';
import { checkpointSchema, type LedgerCheckpoint } from '../model/checkpoint';
import { type LedgerVerification, rewardLedgerOf } from '../reward-ledger-service';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { type CommandResult, positiveIntFlag, readTextFile, withService } from '../../cli/session';

const SUBCOMMANDS = ['verify', 'replay', 'score', 'history', 'export', 'checkpoint'] as const;

/** A checkpoint file, validated; anything else is a usage error naming the file and the field. */
async function readCheckpoint(file: string): Promise<LedgerCheckpoint> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readTextFile(file));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = checkpointSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${file}: not a ledger checkpoint: ${issue?.path.join('.') || '(document)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function verificationText(v: LedgerVerification): string {
  return v.ok
    ? `ledger ok: ${v.count} transactions, total ${v.total}; ${v.note}`
    : `ledger BAD at ${v.first.id} (sequence ${v.first.sequence}): ${v.first.code}: ${v.first.message}; ${v.checked} checked`;
}

/**
 * `ledger verify [--checkpoint FILE]`: checks the chain, the checksums and the head, and with a
 * checkpoint that the chain up to it is the one that was signed; names the first bad transaction
 * (exit 1 when bad). `ledger replay`: rebuilds the totals from the transaction log. `ledger score`:
 * totals, categories and metrics. `ledger history [--limit N] [--category C]`: newest first.
 * `ledger export --format progress.json [--out FILE]`: the seed's progress.json document.
 * `ledger checkpoint [--out FILE]`: a signed head checkpoint (needs SELF_IMPROVE_LEDGER_SECRET).
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
  const checkpointFile = args.flags.get('checkpoint');
  if (checkpointFile !== undefined && (sub !== 'verify' || typeof checkpointFile !== 'string')) throw new UsageError('--checkpoint FILE goes with ledger verify');
  const checkpoint = typeof checkpointFile === 'string' ? await readCheckpoint(checkpointFile) : undefined;
  const out = args.flags.get('out');
  return withService(args, async (_scan, booted) => {
    const ledger = await rewardLedgerOf(booted.runtime);
    if (sub === 'verify' && checkpoint) {
      const { verification, checkpoint: against } = await ledger.verifyCheckpoint(checkpoint);
      const ok = verification.ok && against.ok;
      const text = `${verificationText(verification)}\n${against.ok ? `checkpoint ok: the chain up to tx-${against.sequence} (total ${against.running_total}) is the one signed at ${checkpoint.at}` : `checkpoint BAD: ${against.code}: ${against.message}`}`;
      return { exitCode: ok ? 0 : 1, json: { verification, checkpoint: against }, text };
    }
    if (sub === 'verify' || sub === 'replay') {
      const verification = await ledger.verify();
      const totals = sub === 'replay' ? await ledger.totals() : undefined;
      const replayed = totals ? `\nrebuilt from the log: total ${totals.total_score}, earned ${totals.rewards.total_earned}, incurred ${totals.penalties.total_incurred}, checksum ${totals.checksum.is_valid ? 'valid' : 'INVALID'}` : '';
      return { exitCode: verification.ok ? 0 : 1, json: { verification, ...(totals ? { totals } : {}) }, text: verificationText(verification) + replayed };
    }
    if (sub === 'checkpoint') {
      const made = await ledger.checkpoint();
      if (!made.ok) return { exitCode: 1, json: { error: made.message, code: made.code }, text: `no checkpoint: ${made.message}` };
      if (typeof out === 'string') {
        await writeFile(out, `${JSON.stringify(made.checkpoint, null, 2)}\n`, { mode: 0o600 });
        return { exitCode: 0, json: { file: out, checkpoint: made.checkpoint }, text: `checkpoint of tx-${made.checkpoint.sequence} (total ${made.checkpoint.running_total}) written to ${out}; keep it outside the database` };
      }
      return { exitCode: 0, json: made.checkpoint, text: JSON.stringify(made.checkpoint, null, 2) };
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
    if (typeof out === 'string') {
      await writeFile(out, `${JSON.stringify(doc, null, 2)}\n`);
      return { exitCode: 0, json: { file: out }, text: `progress.json written to ${out}` };
    }
    return { exitCode: 0, json: doc, text: JSON.stringify(doc, null, 2) };
  });
}
