import './quiet';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import selfImprovePlugin from '../index';
import { bootRuntime, type BootedRuntime } from '../runtime/boot';
import { loadModelPlugins } from '../runtime/model-plugins';
import { ingestText } from '../services/ingest-text';
import type { Lesson } from '../services/lesson-metadata';
import { type ScanOutcomeService, scanOutcomeServiceOf } from '../services/scan-outcome-service';
import { type ParsedArgs, parseArgs, UsageError } from './args';
import { printResult, progressPrinter, routeConsoleToStderr } from './output';

export const DEFAULT_DB_DIR = path.join('.self-improve', 'db');

const USAGE = `self-improve <command> [options]

Commands
  ingest FILE         store outcome rows from a JSONL file (or a JSON array)
  learn [--now ISO]   learn lessons from outcomes pending as of that time (default: now)
  lessons             list the lessons learned, with their evidence

Options
  --db DIR            PGlite directory (default ${DEFAULT_DB_DIR}); POSTGRES_URL wins when set
  --json              print exactly one JSON document on stdout (logs go to stderr)
  --help              this text

Exit codes: 0 ok, 1 error, 2 some rows were rejected (the good ones are kept).`;

export interface CommandResult {
  exitCode: number;
  json: unknown;
  text: string;
}

async function withService<T>(args: ParsedArgs, work: (service: ScanOutcomeService, booted: BootedRuntime) => Promise<T>): Promise<T> {
  const dbFlag = args.flags.get('db');
  const booted = await bootRuntime({
    dataDir: typeof dbFlag === 'string' ? dbFlag : DEFAULT_DB_DIR,
    postgresUrl: process.env.POSTGRES_URL || undefined,
    plugins: [selfImprovePlugin, ...(await loadModelPlugins())],
  });
  try {
    const service = await scanOutcomeServiceOf(booted.runtime);
    return await work(service, booted);
  } finally {
    await booted.close();
  }
}

async function ingestCommand(args: ParsedArgs): Promise<CommandResult> {
  const file = args.positionals[0];
  if (!file) throw new UsageError('ingest needs a FILE (JSONL of outcome rows)');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  const result = await withService(args, (service) => ingestText(service, text, progressPrinter('ingested rows')));
  const lines = [`${file}: ${result.rows} rows, ${result.accepted} accepted, ${result.duplicate} duplicate, ${result.rejected.length} rejected`];
  for (const r of result.rejected) lines.push(`  line ${r.line}: ${r.field}: ${r.message}`);
  return { exitCode: result.rejected.length > 0 ? 2 : 0, json: { file, ...result }, text: lines.join('\n') };
}

async function learnCommand(args: ParsedArgs): Promise<CommandResult> {
  const now = args.flags.get('now');
  let asOf = Date.now();
  if (typeof now === 'string') {
    asOf = Date.parse(now);
    if (Number.isNaN(asOf)) throw new UsageError(`--now must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got ${JSON.stringify(now)})`);
  }
  const report = await withService(args, (service) => service.learnPending({ asOf, onProgress: progressPrinter('learned groups') }));
  const text = [
    `learning pass as of ${report.as_of}: ${report.pending_outcomes} pending outcomes in ${report.groups} groups (${report.windows} windows)`,
    `  lessons created ${report.lessons_created}, reinforced ${report.lessons_reinforced}`,
    `  skipped: ${report.skipped_low_sample} windows below the minimum sample, ${report.skipped_low_confidence} lessons below the minimum confidence`,
    `  model: ${report.model_errors} errors, ${report.malformed_model_outputs} malformed answers`,
  ].join('\n');
  return { exitCode: 0, json: report, text };
}

export function lessonToJson(lesson: Lesson): Record<string, unknown> {
  return { id: lesson.id, text: lesson.text, ...lesson.metadata };
}

export function describeLesson(lesson: Lesson): string {
  const m = lesson.metadata;
  const scope = `${m.project} / ${m.scanner} / ${m.model_provider}/${m.model_name}${m.finding_category ? ` / ${m.finding_category}` : ''}`;
  return [
    `[${m.category}] ${lesson.text}`,
    `    id ${lesson.id}  confidence ${m.confidence.toFixed(2)}  n=${m.sample_size}  avg reward ${m.avg_reward >= 0 ? '+' : ''}${m.avg_reward.toFixed(2)}  origin ${m.origin}`,
    `    scope ${scope}  window ${m.window_start.slice(0, 10)}..${m.window_end.slice(0, 10)}`,
    `    evidence ${m.evidence_count} outcomes, e.g. ${m.outcome_ids.slice(0, 3).join(', ')}`,
  ].join('\n');
}

async function lessonsCommand(args: ParsedArgs): Promise<CommandResult> {
  const lessons = await withService(args, async (service) => service.listLessons());
  const text = lessons.length === 0 ? 'no lessons yet' : lessons.map(describeLesson).join('\n\n');
  return { exitCode: 0, json: { count: lessons.length, lessons: lessons.map(lessonToJson) }, text };
}

const COMMANDS: Record<string, (args: ParsedArgs) => Promise<CommandResult>> = {
  ingest: ingestCommand,
  learn: learnCommand,
  lessons: lessonsCommand,
};

export async function runCli(argv: readonly string[]): Promise<number> {
  routeConsoleToStderr();
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 1;
  }
  const json = args.flags.has('json');
  if (args.flags.has('help') || !args.command) {
    process.stderr.write(`${USAGE}\n`);
    return args.command || args.flags.has('help') ? 0 : 1;
  }
  const command = COMMANDS[args.command];
  if (!command) {
    process.stderr.write(`unknown command ${JSON.stringify(args.command)}; one of ${Object.keys(COMMANDS).join(', ')}\n\n${USAGE}\n`);
    return 1;
  }
  try {
    const result = await command(args);
    printResult(json ? JSON.stringify(result.json) : result.text);
    return result.exitCode;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (json) printResult(JSON.stringify({ error: message }));
    process.stderr.write(`self-improve ${args.command}: ${message}\n`);
    return 1;
  }
}

if (import.meta.main) {
  process.exit(await runCli(process.argv.slice(2)));
}
