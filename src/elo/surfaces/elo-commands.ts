import { eloBookOf } from '../elo-book-service';
import { eloReport, parseTopK } from '../elo-report';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { eloReportText } from './elo-text';
import { type CommandResult, nowFlag, positiveIntFlag, withService } from '../../cli/session';

const SUBCOMMANDS = ['stats', 'log'] as const;
const DEFAULT_LOG_LINES = 20;

/**
 * `elo stats [--k N] [--now ISO]`: the ELO book's report (`eloReport`) as of `--now` (default now),
 * top N per kind (1–100, default 10). `elo log [--limit N]`: the newest ELO updates (seed 002 §3),
 * newest first (default 20).
 */
export async function eloCommand(args: ParsedArgs): Promise<CommandResult> {
  const [sub] = args.positionals;
  if (!sub || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`elo needs a subcommand: one of ${SUBCOMMANDS.join(', ')} (got ${JSON.stringify(sub ?? '')})`);
  }
  const rawK = args.flags.get('k');
  const k = parseTopK(typeof rawK === 'string' ? rawK : undefined, '--k');
  if (!k.ok) throw new UsageError(k.message);
  const nowMs = nowFlag(args);
  const limit = positiveIntFlag(args, 'limit') ?? DEFAULT_LOG_LINES;
  return withService(args, async (_scan, booted) => {
    const book = await eloBookOf(booted.runtime);
    if (sub === 'stats') {
      const report = await eloReport(book, { k: k.k, nowMs });
      return { exitCode: 0, json: report, text: eloReportText(report) };
    }
    const updates = await book.updateLogEntries(limit);
    const text =
      updates.map((u) => `${u.timestamp} ${u.entity_type} ${u.entity_id} ${Number(u.elo_old).toFixed(1)} -> ${Number(u.elo_new).toFixed(1)} (${Number(u.delta) > 0 ? '+' : ''}${Number(u.delta).toFixed(1)}) ${u.reason}`).join('\n') ||
      '(no ELO updates)';
    return { exitCode: 0, json: { updates }, text };
  });
}
