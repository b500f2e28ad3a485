import { lineRejections, parseRowsText } from '../shared/jsonl';
import type { LineRejection } from '../shared/ingest-text';
import type { ScanOutcomeService, TriagePrediction } from './scan-outcome-service';
import { yieldToEventLoop } from '../shared/event-loop';

/** Predictions between two turns of the event loop (each reads its counts: one short statement). */
const TURN_EVERY = 100;

/**
 * Triage priors for the findings in a JSONL text or JSON array (a label, if present, is ignored):
 * one prediction per valid row, in file order, and every refused row by line.
 */
export async function predictText(service: Pick<ScanOutcomeService, 'predict'>, text: string): Promise<{ predictions: TriagePrediction[]; rejected: LineRejection[] }> {
  const parsed = parseRowsText(text);
  const rejected: LineRejection[] = lineRejections(parsed.errors);
  const predictions: TriagePrediction[] = [];
  for (const [i, { line, value }] of parsed.values.entries()) {
    if (i > 0 && i % TURN_EVERY === 0) await yieldToEventLoop();
    const result = await service.predict(value);
    if (result.ok) predictions.push(result.prediction);
    else rejected.push(...result.rejections.map((r) => ({ line, field: r.field, message: r.message })));
  }
  rejected.sort((a, b) => a.line - b.line);
  return { predictions, rejected };
}
