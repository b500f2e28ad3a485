import { brierScore, type Forecast, logLoss, rocAuc } from './model/forecast-scores';
import { DAY_MS } from './model/grouping';
import { lineRejections, parseRowsText } from '../shared/jsonl';
import { checkOutcomeRow, type OutcomeRow } from './model/outcome';
import { expectedCalibrationError } from './model/metrics';
import type { LineRejection } from '../shared/ingest-text';
import type { ScanOutcomeService } from './scan-outcome-service';

/** What a replay measured. Snake_case: printed as JSON. Scores are null when they cannot be computed (no rows, one class only). */
export interface ReplayReport {
  rows: number;
  rejected: LineRejection[];
  first_ts: string | null;
  last_ts: string | null;
  /** Share of replayed outcomes that were `rejected_fp`. */
  false_positive_rate: number | null;
  brier: number | null;
  /** Brier score of the running global false-positive rate: what a prior without grouping would do. */
  brier_baseline: number | null;
  /** `1 - brier / brier_baseline`: above 0 means the learned prior beats the baseline. */
  brier_skill: number | null;
  log_loss: number | null;
  log_loss_baseline: number | null;
  auc: number | null;
  auc_baseline: number | null;
  ece: number | null;
  ece_baseline: number | null;
  learning_passes: number;
  lessons_created: number;
  lessons_reinforced: number;
}

export type ReplayProgress = (rowsDone: number, rowsTotal: number) => void;

const PROGRESS_EVERY = 500;

/**
 * Replays an outcome stream in time order, as production would have seen it: for each row, first
 * the prior's forecast that it will be a false positive (before its label is known), then the
 * row is ingested. Learning runs whenever a learning window closes (every
 * SELF_IMPROVE_WINDOW_DAYS of stream time since the last pass). Rows that fail validation are
 * reported and skipped. Ties in `ts` keep file order, so the same file gives the same numbers.
 */
export async function replayOutcomes(service: ScanOutcomeService, text: string, onProgress?: ReplayProgress): Promise<ReplayReport> {
  const parsed = parseRowsText(text);
  const rejected: LineRejection[] = lineRejections(parsed.errors);
  const rows: { row: OutcomeRow; tsMs: number }[] = [];
  for (const { line, value } of parsed.values) {
    const checked = checkOutcomeRow(value, 0);
    if (checked.ok) rows.push({ row: checked.row, tsMs: Date.parse(checked.row.ts) });
    else rejected.push(...checked.rejections.map((r) => ({ line, field: r.field, message: r.message })));
  }
  rejected.sort((a, b) => a.line - b.line);
  rows.sort((a, b) => a.tsMs - b.tsMs);

  const windowMs = service.settings.SELF_IMPROVE_WINDOW_DAYS * DAY_MS;
  const learned: Forecast[] = [];
  const baseline: Forecast[] = [];
  const report = { learning_passes: 0, lessons_created: 0, lessons_reinforced: 0 };
  let lastPassMs = rows[0]?.tsMs ?? 0;
  for (const [i, { row, tsMs }] of rows.entries()) {
    if (tsMs - lastPassMs >= windowMs) {
      lastPassMs += Math.floor((tsMs - lastPassMs) / windowMs) * windowMs;
      const pass = await service.learnPending({ asOf: lastPassMs });
      report.learning_passes++;
      report.lessons_created += pass.lessons_created;
      report.lessons_reinforced += pass.lessons_reinforced;
    }
    const { label: _label, ...finding } = row;
    const y = row.label === 'rejected_fp' ? 1 : 0;
    learned.push({ p: (await service.predictValid(finding)).p_false_positive, y });
    baseline.push({ p: await service.globalFalsePositiveRate(), y });
    await service.ingest([row]);
    if ((i + 1) % PROGRESS_EVERY === 0 || i + 1 === rows.length) onProgress?.(i + 1, rows.length);
  }

  const brier = brierScore(learned);
  const brierBaseline = brierScore(baseline);
  return {
    rows: rows.length,
    rejected,
    first_ts: rows[0]?.row.ts ?? null,
    last_ts: rows[rows.length - 1]?.row.ts ?? null,
    false_positive_rate: learned.length === 0 ? null : learned.filter((f) => f.y === 1).length / learned.length,
    brier,
    brier_baseline: brierBaseline,
    brier_skill: brier === null || brierBaseline === null || brierBaseline === 0 ? null : 1 - brier / brierBaseline,
    log_loss: logLoss(learned),
    log_loss_baseline: logLoss(baseline),
    auc: rocAuc(learned),
    auc_baseline: rocAuc(baseline),
    ece: expectedCalibrationError(learned),
    ece_baseline: expectedCalibrationError(baseline),
    ...report,
  };
}
