import type { SarifDefaults } from '../model/sarif';
import { ingestChunks } from '../../shared/ingest-text';
import type { StoredScanLesson } from '../scan-lesson-metadata';
import { ingestSarif, looksLikeSarif, parseSarifText, SARIF_SNIFF_CHARS } from '../sarif-ingest';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { progressPrinter } from '../../cli/output';
import { type CommandResult, fileIngestProgress, fileTextChunks, inputFileOf, nowFlag, readFileHead, readTextFile, withService } from '../../cli/session';

/** SARIF defaults from `--project`, `--model-provider`, `--model-name` and `--now`. */
function sarifDefaults(args: ParsedArgs): SarifDefaults {
  const defaults: SarifDefaults = { ts: new Date(nowFlag(args)).toISOString() };
  for (const [flag, field] of [
    ['project', 'project'],
    ['model-provider', 'model_provider'],
    ['model-name', 'model_name'],
  ] as const) {
    const value = args.flags.get(flag);
    if (typeof value === 'string') defaults[field] = value;
  }
  return defaults;
}

/** `ingest FILE`: outcome rows (JSONL or a JSON array), or a SARIF 2.1.0 log (`.sarif`, or a document whose $schema names SARIF). */
export async function ingestCommand(args: ParsedArgs): Promise<CommandResult> {
  const file = inputFileOf(args, 'ingest', 'JSONL of outcome rows, or a .sarif log');
  if (looksLikeSarif(file, await readFileHead(file, SARIF_SNIFF_CHARS))) {
    const text = await readTextFile(file);
    let doc: unknown;
    try {
      doc = parseSarifText(text);
    } catch (error) {
      throw new UsageError(`${file}: ${(error as Error).message}`);
    }
    const result = await withService(args, (service) => ingestSarif(service, doc, sarifDefaults(args)));
    const lines = [
      `${file}: ${result.results} SARIF results (${result.skipped} non-findings skipped)`,
      `  outcomes: ${result.outcomes.accepted} accepted, ${result.outcomes.duplicate} duplicate, ${result.reopened} of them reopened findings`,
      `  awaiting labels: ${result.awaiting.recorded} new, ${result.awaiting.known} already recorded; ${result.already_labelled} already labelled`,
      `  rejected: ${result.rejected.length}`,
      ...result.rejected.map((r) => `  ${r.path}: ${r.field}: ${r.message}`),
    ];
    return { exitCode: result.rejected.length > 0 ? 2 : 0, json: { file, format: 'sarif', ...result }, text: lines.join('\n') };
  }
  // Read a megabyte at a time: a JSONL file of any size ingests in the memory of one batch.
  const result = await withService(args, (service) => ingestChunks(service, () => fileTextChunks(file), fileIngestProgress('ingested rows')));
  const lines = [`${file}: ${result.rows} rows, ${result.accepted} accepted, ${result.duplicate} duplicate, ${result.rejected.length} rejected`];
  for (const r of result.rejected) lines.push(`  line ${r.line}: ${r.field}: ${r.message}`);
  return { exitCode: result.rejected.length > 0 ? 2 : 0, json: { file, ...result }, text: lines.join('\n') };
}

/** `learn [--now ISO]`: one learning pass over the outcomes pending as of that time. */
export async function learnCommand(args: ParsedArgs): Promise<CommandResult> {
  const asOf = nowFlag(args);
  const report = await withService(args, (service) => service.learnPending({ asOf, onProgress: progressPrinter('learned groups') }));
  const text = [
    `learning pass as of ${report.as_of}: ${report.pending_outcomes} pending outcomes in ${report.groups} groups (${report.windows} windows)`,
    `  lessons created ${report.lessons_created}, reinforced ${report.lessons_reinforced}`,
    `  skipped: ${report.skipped_low_sample} windows below the minimum sample, ${report.skipped_low_confidence} lessons below the minimum confidence`,
    `  model: ${report.model_errors} errors, ${report.malformed_model_outputs} malformed answers`,
    ...(report.failed_groups.length > 0 ? [`  failed groups (left pending, reason in the log): ${report.failed_groups.join(', ')}`] : []),
  ].join('\n');
  return { exitCode: 0, json: report, text };
}

export function scanLessonToJson(lesson: StoredScanLesson): Record<string, unknown> {
  return { id: lesson.id, text: lesson.text, ...lesson.metadata };
}

export function describeScanLesson(lesson: StoredScanLesson): string {
  const m = lesson.metadata;
  const scope = `${m.project} / ${m.scanner} / ${m.model_provider}/${m.model_name}${m.finding_category ? ` / ${m.finding_category}` : ''}`;
  return [
    `[${m.category}] ${lesson.text}`,
    `    id ${lesson.id}  confidence ${m.confidence.toFixed(2)}  n=${m.sample_size}  avg reward ${m.avg_reward >= 0 ? '+' : ''}${m.avg_reward.toFixed(2)}  origin ${m.origin}`,
    `    scope ${scope}  window ${m.window_start.slice(0, 10)}..${m.window_end.slice(0, 10)}`,
    `    evidence ${m.evidence_count} outcomes, e.g. ${m.outcome_ids.slice(0, 3).join(', ')}`,
  ].join('\n');
}

/** `lessons`: every lesson with its evidence. */
export async function scanLessonsCommand(args: ParsedArgs): Promise<CommandResult> {
  const lessons = await withService(args, async (service) => service.scanLessons.stored());
  const text = lessons.length === 0 ? 'no lessons yet' : lessons.map(describeScanLesson).join('\n\n');
  return { exitCode: 0, json: { count: lessons.length, lessons: lessons.map(scanLessonToJson) }, text };
}
