import { lineRejections, parseRowsText } from './jsonl';
import type { ScanOutcomeService } from '../scan/scan-outcome-service';
import { yieldToEventLoop } from './event-loop';

/** A refused row of a text body or file, by line (JSONL) or item number (JSON array), 1-based. */
export interface LineRejection {
  line: number;
  field: string;
  message: string;
}

export interface TextIngestResult {
  rows: number;
  accepted: number;
  duplicate: number;
  rejected: LineRejection[];
}

/** Rows per ingest call: each call is one transaction, and progress is reported between them. */
export const INGEST_BATCH_ROWS = 2_000;

/**
 * Ingests a JSONL text or JSON array of outcome rows. Lines that are not JSON and rows that fail
 * validation are reported with their line number; every good row is kept. Each batch is atomic;
 * re-running a file after an interruption is safe because ingest is idempotent.
 */
export async function ingestText(
  service: Pick<ScanOutcomeService, 'ingest'>,
  text: string,
  onProgress?: (rowsDone: number, rowsTotal: number) => void,
): Promise<TextIngestResult> {
  const parsed = parseRowsText(text);
  const result: TextIngestResult = {
    rows: parsed.values.length + parsed.errors.length,
    accepted: 0,
    duplicate: 0,
    rejected: lineRejections(parsed.errors),
  };
  for (let start = 0; start < parsed.values.length; start += INGEST_BATCH_ROWS) {
    const batch = parsed.values.slice(start, start + INGEST_BATCH_ROWS);
    const answer = await service.ingest(batch.map((v) => v.value));
    result.accepted += answer.accepted;
    result.duplicate += answer.duplicate;
    for (const r of answer.rejected) {
      result.rejected.push({ line: batch[r.index]?.line ?? start + r.index + 1, field: r.field, message: r.message });
    }
    onProgress?.(Math.min(start + INGEST_BATCH_ROWS, parsed.values.length), parsed.values.length);
    await yieldToEventLoop();
  }
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}
