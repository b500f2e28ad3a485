import { writeFile } from 'node:fs/promises';
import type { IAgentRuntime } from '@elizaos/core';
import { guardEntryToWire, parseErrorToWire } from '../model/logs';
import { normaliseRuleId } from '../model/request';
import { RULE_STATUSES, type RuleStatus } from '../model/types';
import { type RuleBookService, ruleBookOf } from '../rule-book-service';
import { eventIngestReport, exportOrigin, importMapping, isJsonArrayText, ruleListItem, rulesListing } from '../rule-reports';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { eventIngestText, exportSignatureText, guardLogText, importMappingText, importRefusalText, ruleLine, ruleMetricsText, rulesListText } from './rule-text';
import { type CommandResult, fileIngestProgress, fileTextChunks, inputFileOf, nowFlag, positiveIntFlag, readFileHead, readTextFile, withService } from '../../cli/session';

const RULE_SUBCOMMANDS = ['list', 'validate', 'retire', 'approve', 'reject', 'export', 'import', 'metrics', 'guard-log'] as const;
/** `rules list --status S`. */
const LIST_STATUSES = [...RULE_STATUSES, 'all'] as const;
/** What `rules SUB ID` calls, and the word its output starts with. */
const RULE_CHANGES = {
  validate: { done: 'validated', change: (book: RuleBookService, id: string, nowMs: number) => book.validateRule(id, nowMs) },
  retire: { done: 'retired', change: (book: RuleBookService, id: string, nowMs: number) => book.retireRule(id, nowMs) },
  approve: { done: 'approved', change: (book: RuleBookService, id: string, nowMs: number) => book.approveRule(id, nowMs) },
  reject: { done: 'rejected', change: (book: RuleBookService, id: string, nowMs: number) => book.rejectRule(id, nowMs) },
} as const;
const EVENT_SUBCOMMANDS = ['ingest', 'parse-errors'] as const;
const DEFAULT_LOG_LINES = 20;
/** What the parse-error log names as the script that read a file. */
export const EVENTS_CLI_SCRIPT = 'self-improve events ingest';

type RuleSubcommand = (typeof RULE_SUBCOMMANDS)[number];
type EventSubcommand = (typeof EVENT_SUBCOMMANDS)[number];

function subcommandOf<T extends string>(args: ParsedArgs, command: string, allowed: readonly T[]): T {
  const [sub] = args.positionals;
  if (!sub || !(allowed as readonly string[]).includes(sub)) throw new UsageError(`${command} needs a subcommand: one of ${allowed.join(', ')} (got ${JSON.stringify(sub ?? '')})`);
  return sub as T;
}

/** Boots the agent (as `withService`) and runs `work` with its rule book. */
function withRuleBook<T>(args: ParsedArgs, work: (book: RuleBookService, runtime: IAgentRuntime) => Promise<T>): Promise<T> {
  return withService(args, async (_scan, booted) => work(await ruleBookOf(booted.runtime), booted.runtime));
}

/** The second positional argument as a rule id (`R-003`; `r-3` is read as `R-003`). */
function ruleIdArg(args: ParsedArgs, sub: string): string {
  const raw = args.positionals[1];
  const id = raw === undefined ? null : normaliseRuleId(raw);
  if (id === null) throw new UsageError(`rules ${sub} needs a rule ID like R-003 (got ${JSON.stringify(raw ?? '')})`);
  return id;
}

/**
 * `events ingest FILE`: seed 003 events (JSONL or a JSON array); exit 2 when some rows were refused
 * (listed by line, or by 0-based item of an array; lines that are not JSON also go to the
 * parse-error log), the good ones kept. `events parse-errors [--limit N]`: newest first (default 20).
 */
export async function eventsCommand(args: ParsedArgs): Promise<CommandResult> {
  const sub = subcommandOf<EventSubcommand>(args, 'events', EVENT_SUBCOMMANDS);
  if (sub === 'parse-errors') {
    const limit = positiveIntFlag(args, 'limit') ?? DEFAULT_LOG_LINES;
    const entries = (await withRuleBook(args, (book) => book.parseErrors(limit))).map(parseErrorToWire);
    const text = entries.map((e) => `${e.ts} ${e.script}: ${e.error}\n    ${e.line}`).join('\n') || '(no parse errors)';
    return { exitCode: 0, json: { parse_errors: entries }, text };
  }
  const file = inputFileOf({ ...args, positionals: args.positionals.slice(1) }, 'events ingest', 'JSONL or a JSON array of seed 003 events');
  const byIndex = isJsonArrayText(await readFileHead(file, 1));
  // Read a megabyte at a time: a JSONL file of any size ingests in the memory of one batch.
  const result = await withRuleBook(args, (book) => book.ingestEventChunks(() => fileTextChunks(file), 'cli', EVENTS_CLI_SCRIPT, { onProgress: fileIngestProgress('ingested events') }));
  const report = eventIngestReport(result, byIndex);
  return { exitCode: report.rejected.length > 0 ? 2 : 0, json: { file, ...report }, text: eventIngestText(file, report) };
}

/** `--status S` of `rules list` (`--all` is `--status all`); default active. */
function listStatus(args: ParsedArgs): RuleStatus | 'all' {
  if (args.flags.has('all')) return 'all';
  const raw = args.flags.get('status');
  if (raw === undefined) return 'active';
  if (typeof raw !== 'string' || !(LIST_STATUSES as readonly string[]).includes(raw)) throw new UsageError(`--status must be one of ${LIST_STATUSES.join(', ')} (got ${JSON.stringify(raw)})`);
  return raw as RuleStatus | 'all';
}

/**
 * `rules list [--category C] [--status active|candidate|retired|rejected|all] [--all]`: active
 * rules (flagged ones marked) by default; `rules validate ID` / `rules retire ID` (active rules);
 * `rules approve ID` / `rules reject ID` (candidates; whoever runs the CLI is the operator, so it
 * counts as a trusted person); `rules export [--category C] [--out F]`: seed 003's export
 * document, signed with SELF_IMPROVE_RULE_SIGNING_KEY when it is set; `rules import FILE`:
 * verified (every hash, the manifest, then the signature: a tampered file is refused with exit 1,
 * naming the problem), ids mapped, duplicates skipped; rules from a file no trusted key signed
 * come in as candidates, and the output says so; `rules metrics [--now ISO]`: seed 003's metrics;
 * `rules guard-log [--limit N]`: the action audit's entries, newest first (default 20).
 */
export async function rulesCommand(args: ParsedArgs): Promise<CommandResult> {
  const sub = subcommandOf<RuleSubcommand>(args, 'rules', RULE_SUBCOMMANDS);
  const rawCategory = args.flags.get('category');
  const category = typeof rawCategory === 'string' ? rawCategory : undefined;
  const nowMs = nowFlag(args);
  switch (sub) {
    case 'list': {
      const status = listStatus(args);
      const filter = { ...(status === 'all' ? {} : { status }), ...(category === undefined ? {} : { category }) };
      const listing = await withRuleBook(args, async (book) => rulesListing(book, filter, nowMs));
      return { exitCode: 0, json: listing, text: rulesListText(listing) };
    }
    case 'validate':
    case 'retire':
    case 'approve':
    case 'reject': {
      const id = ruleIdArg(args, sub);
      return withRuleBook(args, async (book) => {
        const change = await RULE_CHANGES[sub].change(book, id, nowMs);
        if (!change.ok) return { exitCode: 1, json: { error: change.message, code: change.code }, text: `rules ${sub}: ${change.message}` };
        const item = ruleListItem(change.rule, nowMs, book.settings.policy);
        return { exitCode: 0, json: { rule: item }, text: `${RULE_CHANGES[sub].done} ${id}\n${ruleLine(item)}` };
      });
    }
    case 'export': {
      const doc = await withRuleBook(args, async (book, runtime) => book.exportRules({ ...exportOrigin(runtime), nowMs, ...(category === undefined ? {} : { category }) }));
      const out = args.flags.get('out');
      if (typeof out !== 'string') return { exitCode: 0, json: doc, text: JSON.stringify(doc, null, 2) };
      await writeFile(out, `${JSON.stringify(doc, null, 2)}\n`);
      const m = doc.metadata;
      const signed = doc.signature.algorithm === 'none' ? { signed: false } : { signed: true, key_id: doc.signature.key_id };
      return {
        exitCode: 0,
        json: { file: out, exported_rules_count: m.exported_rules_count, manifest_hash: m.manifest_hash, ...signed },
        text: `${m.exported_rules_count} of ${m.total_rules_in_source} rules written to ${out}; ${exportSignatureText(doc.signature)}`,
      };
    }
    case 'import': {
      const file = args.positionals[1];
      if (!file) throw new UsageError('rules import needs a FILE (a seed 003 rules export)');
      let doc: unknown;
      try {
        doc = JSON.parse(await readTextFile(file));
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
      }
      const result = await withRuleBook(args, (book) => book.importRules(doc));
      if (!result.ok) {
        const { ok: _ok, ruleId, ...rest } = result;
        return { exitCode: 1, json: { file, ...(ruleId === undefined ? {} : { rule_id: ruleId }), ...rest }, text: importRefusalText(file, result) };
      }
      const mapping = importMapping(result.steps);
      const trust = { trust: result.trust, ...(result.keyId === undefined ? {} : { key_id: result.keyId }) };
      return { exitCode: 0, json: { file, added: result.added, skipped: result.skipped, ...trust, mapping }, text: importMappingText(file, mapping, trust) };
    }
    case 'metrics': {
      const metrics = await withRuleBook(args, (book) => book.metrics(nowMs));
      return { exitCode: 0, json: metrics, text: ruleMetricsText(metrics) };
    }
    case 'guard-log': {
      const limit = positiveIntFlag(args, 'limit') ?? DEFAULT_LOG_LINES;
      const entries = (await withRuleBook(args, (book) => book.guardLog(limit))).map(guardEntryToWire);
      return { exitCode: 0, json: { guard_log: entries }, text: guardLogText(entries) };
    }
  }
}
