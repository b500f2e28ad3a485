import { lineRejections, parseRowsText } from '../shared/jsonl';
import type { LineRejection } from '../shared/ingest-text';
import type { ScanOutcomeService, TriagePrediction } from './scan-outcome-service';

/**
 * Triage priors for the findings in a JSONL text or JSON array (a label, if present, is ignored):
 * one prediction per valid row, in file order, and every refused row by line.
 */
export function predictText(service: Pick<ScanOutcomeService, 'predict'>, text: string): { predictions: TriagePrediction[]; rejected: LineRejection[] } {
  const parsed = parseRowsText(text);
  const rejected: LineRejection[] = lineRejections(parsed.errors);
  const predictions: TriagePrediction[] = [];
  for (const { line, value } of parsed.values) {
    const result = service.predict(value);
    if (result.ok) predictions.push(result.prediction);
    else rejected.push(...result.rejections.map((r) => ({ line, field: r.field, message: r.message })));
  }
  rejected.sort((a, b) => a.line - b.line);
  return { predictions, rejected };
}
