import { type JsonLine, jsonLinesOfChunks, lineRejections, linesOfChunks, parseRowsText } from './jsonl';
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

/** Rows done and rows in all (the text's non-blank lines, or a JSON array's items). */
export type IngestProgress = (rowsDone: number, rowsTotal: number) => void;

/** A text given in pieces, read anew at each call: a file read a megabyte at a time, or one string. */
export type TextChunks = () => AsyncIterable<string> | Iterable<string>;

/**
 * Ingests a JSONL text or JSON array of outcome rows. Lines that are not JSON and rows that fail
 * validation are reported with their line number; every good row is kept. Each batch is atomic;
 * re-running a file after an interruption is safe because ingest is idempotent.
 */
export function ingestText(service: Pick<ScanOutcomeService, 'ingest'>, text: string, onProgress?: IngestProgress): Promise<TextIngestResult> {
  return ingestChunks(service, () => [text], onProgress);
}

/**
 * `ingestText` of a text given in pieces. JSONL (a first non-blank line that is one JSON object)
 * is read a line at a time, and only one batch of rows is held at once, whatever the size of the
 * text: a year of outcomes in one file ingests in the memory of one batch. Anything else (a JSON
 * array, one object written over several lines, a first line that is not an object) is read whole
 * and parsed as `parseRowsText` parses a body. With `onProgress`, the pieces are read once more
 * first, to count the rows.
 */
export async function ingestChunks(service: Pick<ScanOutcomeService, 'ingest'>, chunks: TextChunks, onProgress?: IngestProgress): Promise<TextIngestResult> {
  const lines = jsonLinesOfChunks(chunks());
  const first = await lines.next();
  if (first.done || !isObjectLine(first.value)) {
    await lines.return(undefined);
    let text = '';
    for await (const chunk of chunks()) text += chunk;
    const parsed = parseRowsText(text);
    return ingestLines(service, [...parsed.values, ...parsed.errors], parsed.values.length + parsed.errors.length, onProgress);
  }
  const total = onProgress ? await countRows(chunks()) : 0;
  return ingestLines(service, prepend(first.value, lines), total, onProgress);
}

const isObjectLine = (line: JsonLine): boolean => 'value' in line && typeof line.value === 'object' && line.value !== null && !Array.isArray(line.value);

async function* prepend<T>(head: T, rest: AsyncIterable<T>): AsyncGenerator<T> {
  yield head;
  yield* rest;
}

async function countRows(chunks: AsyncIterable<string> | Iterable<string>): Promise<number> {
  let rows = 0;
  for await (const raw of linesOfChunks(chunks)) if (raw.trim() !== '') rows++;
  return rows;
}

/** Ingests `lines` INGEST_BATCH_ROWS values at a time; a line that is not JSON is refused as a whole. */
async function ingestLines(service: Pick<ScanOutcomeService, 'ingest'>, lines: AsyncIterable<JsonLine> | Iterable<JsonLine>, total: number, onProgress?: IngestProgress): Promise<TextIngestResult> {
  const result: TextIngestResult = { rows: 0, accepted: 0, duplicate: 0, rejected: [] };
  let batch: { line: number; value: unknown }[] = [];
  let reported = 0;
  const report = () => {
    // The count was read before the ingest: a file that grew since has more rows than counted.
    onProgress?.(result.rows, Math.max(total, result.rows));
    reported = result.rows;
  };
  const flush = async () => {
    const answer = await service.ingest(batch.map((v) => v.value));
    result.accepted += answer.accepted;
    result.duplicate += answer.duplicate;
    for (const r of answer.rejected) result.rejected.push({ line: batch[r.index]?.line ?? 0, field: r.field, message: r.message });
    batch = [];
    report();
    await yieldToEventLoop();
  };
  for await (const line of lines) {
    result.rows++;
    if ('message' in line) result.rejected.push(...lineRejections([line]));
    else batch.push(line);
    if (batch.length === INGEST_BATCH_ROWS) await flush();
  }
  if (batch.length > 0) await flush();
  if (reported < result.rows) report();
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}
