import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MetricSet, ScanMetricsReport } from '../model/metrics';
import { MAX_METRIC_SLICES, MAX_METRICS_K, type RollupLag } from '../scan-metrics';
import { predictText } from '../predict-text';
import { replayOutcomes } from '../replay';
import type { TriagePrediction } from '../scan-outcome-service';
import type { ParsedArgs } from '../../cli/args';
import { progressPrinter } from '../../cli/output';
import { UsageError } from '../../cli/args';
import { type CommandResult, nowFlag, positiveIntFlag, readInputFile, withService } from '../../cli/session';

const fixed = (value: number | null, digits = 3) => (value === null ? 'n/a' : value.toFixed(digits));
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;

function describePrediction(p: TriagePrediction): string {
  const group = p.evidence[0];
  return `${p.finding_key}: P(false positive) ${p.p_false_positive.toFixed(2)}, expected reward ${signed(p.expected_reward)}, ${group?.n ?? 0} outcomes in its group${p.lesson_ids.length > 0 ? `, lessons ${p.lesson_ids.join(' ')}` : ''}`;
}

/** `triage FILE`: one prediction per finding row (JSONL or JSON array; a label, if present, is ignored). */
export async function triageCommand(args: ParsedArgs): Promise<CommandResult> {
  const { file, text } = await readInputFile(args, 'triage', 'JSONL of findings');
  const { predictions, rejected } = await withService(args, async (service) => predictText(service, text));
  const lines = [...predictions.map(describePrediction), ...rejected.map((r) => `  line ${r.line}: ${r.field}: ${r.message}`)];
  return { exitCode: rejected.length > 0 ? 2 : 0, json: { file, predictions, rejected }, text: lines.join('\n') || 'no findings in the file' };
}

function describeMetricSet(name: string, m: MetricSet): string {
  return [
    `${name}: ${m.findings} findings, ${m.outcomes} outcomes`,
    `  precision@${m.precision_k} ${fixed(m.precision_at_k)}  false-positive rate ${fixed(m.false_positive_rate)}  accepted->fixed ${fixed(m.accepted_to_fixed)}  reopened ${fixed(m.reopened_rate)}`,
    `  median time to fix ${m.median_time_to_fix_hours === null ? 'n/a' : `${m.median_time_to_fix_hours.toFixed(1)} h`}  calibration error ${fixed(m.calibration_error)}  avg reward ${fixed(m.avg_reward)}`,
    `  drift 7d: fp ${fixed(m.drift.d7.false_positive_rate_delta)}, reward ${fixed(m.drift.d7.avg_reward_delta)}; 28d: fp ${fixed(m.drift.d28.false_positive_rate_delta)}, reward ${fixed(m.drift.d28.avg_reward_delta)}`,
  ].join('\n');
}

export function describeMetrics(report: ScanMetricsReport & Partial<RollupLag>): string {
  const parts = [`metrics as of ${report.as_of}`, describeMetricSet('overall', report.overall)];
  const left = (['project', 'scanner', 'model'] as const).filter((dim) => report.slice_totals[dim] > Object.keys(report[`by_${dim}`]).length);
  if (left.length > 0) parts.push(`showing the ${report.slice_limit} ${left.join(', ')} slices with the most outcomes (of ${left.map((dim) => report.slice_totals[dim]).join(', ')}); --slices N shows more`);
  if (report.pending_outcomes) parts.splice(1, 0, `${report.pending_outcomes} stored outcomes are not rolled up yet and are not in these figures (the rollup is catching up; ask again later)`);
  for (const [title, slices] of [
    ['project', report.by_project],
    ['scanner', report.by_scanner],
    ['model', report.by_model],
  ] as const) {
    for (const [name, set] of Object.entries(slices)) parts.push(describeMetricSet(`${title} ${name}`, set));
  }
  for (const d of report.model_deltas) {
    parts.push(`model delta ${d.project} / ${d.scanner} / ${d.model}: fp ${fixed(d.false_positive_rate)} (${fixed(d.false_positive_rate_delta)}), reward ${fixed(d.avg_reward)} (${fixed(d.avg_reward_delta)})`);
  }
  return parts.join('\n');
}

/** `metrics [--now ISO] [--k N] [--slices S]`: quality metrics of the agent's findings. */
export async function metricsCommand(args: ParsedArgs): Promise<CommandResult> {
  const asOfMs = nowFlag(args);
  const k = positiveIntFlag(args, 'k', MAX_METRICS_K);
  const slices = positiveIntFlag(args, 'slices', MAX_METRIC_SLICES);
  // A command asked once waits for the rollup to count every stored outcome (an agent's request answers at once instead).
  const report = await withService(args, async (service) => {
    await service.metricsCaughtUp();
    return service.metrics({ asOfMs, ...(k === undefined ? {} : { k }), ...(slices === undefined ? {} : { slices }) });
  });
  return { exitCode: 0, json: report, text: describeMetrics(report) };
}

/** `replay FILE [--db DIR]`: forecasts each outcome before ingesting it, in time order; a fresh temporary database unless --db. */
export async function replayCommand(args: ParsedArgs): Promise<CommandResult> {
  const { file, text } = await readInputFile(args, 'replay', 'JSONL of outcome rows');
  const temporary = args.flags.has('db') ? undefined : await mkdtemp(path.join(tmpdir(), 'self-improve-replay-'));
  try {
    const report = await withService(args, (service) => replayOutcomes(service, text, progressPrinter('replayed rows')), temporary);
    const summary = [
      `${file}: replayed ${report.rows} outcomes (${report.first_ts ?? '-'} .. ${report.last_ts ?? '-'}), ${report.rejected.length} rejected`,
      `  brier ${fixed(report.brier, 4)} vs baseline ${fixed(report.brier_baseline, 4)} (skill ${fixed(report.brier_skill)})`,
      `  log loss ${fixed(report.log_loss, 4)} vs ${fixed(report.log_loss_baseline, 4)}; AUC ${fixed(report.auc)} vs ${fixed(report.auc_baseline)}; ECE ${fixed(report.ece, 4)} vs ${fixed(report.ece_baseline, 4)}`,
      `  ${report.learning_passes} learning passes, ${report.lessons_created} lessons created, ${report.lessons_reinforced} reinforced`,
    ].join('\n');
    return { exitCode: report.rejected.length > 0 ? 2 : 0, json: { file, ...report }, text: summary };
  } finally {
    if (temporary) await rm(temporary, { recursive: true, force: true });
  }
}
