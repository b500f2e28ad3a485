import { type BrokenLine, type JsonLine, jsonLinesOfChunks, lineRejections, linesOfChunks, parseRowsText } from './jsonl';
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

/** One batch of a text's rows: those that are JSON, by line (JSONL) or item (JSON array), and the lines that are not. */
export interface RowBatch {
  rows: { line: number; value: unknown }[];
  broken: BrokenLine[];
}

/**
 * Reads a text of rows given in pieces and hands them to `take`, at most `batchRows` at a time
 * (rows and broken lines together), in order; returns how many rows it read (the text's non-blank
 * lines, or a JSON array's items). JSONL (a first non-blank line that is one JSON object) is read a
 * line at a time, and only one batch of rows is held at once, whatever the size of the text: a
 * year of outcomes in one file ingests in the memory of one batch. Anything else (a JSON array, one
 * object written over several lines, a first line that is not an object) is read whole and parsed
 * as `parseRowsText` parses a body. With `onProgress`, called after each batch, the pieces are read
 * once more first, to count the rows.
 */
export async function forEachRowBatch(chunks: TextChunks, batchRows: number, take: (batch: RowBatch) => Promise<void>, onProgress?: IngestProgress): Promise<number> {
  const lines = jsonLinesOfChunks(chunks());
  const first = await lines.next();
  if (first.done || !isObjectLine(first.value)) {
    await lines.return(undefined);
    let text = '';
    for await (const chunk of chunks()) text += chunk;
    const parsed = parseRowsText(text);
    const all = [...parsed.values, ...parsed.errors].sort((a, b) => a.line - b.line);
    return inBatches(all, all.length, batchRows, take, onProgress);
  }
  const total = onProgress ? await countRows(chunks()) : 0;
  return inBatches(prepend(first.value, lines), total, batchRows, take, onProgress);
}

/**
 * `ingestText` of a text given in pieces, as `forEachRowBatch` reads it, INGEST_BATCH_ROWS rows
 * to each call of the service (one transaction); a line that is not JSON is refused as a whole.
 */
export async function ingestChunks(service: Pick<ScanOutcomeService, 'ingest'>, chunks: TextChunks, onProgress?: IngestProgress): Promise<TextIngestResult> {
  const result: TextIngestResult = { rows: 0, accepted: 0, duplicate: 0, rejected: [] };
  result.rows = await forEachRowBatch(
    chunks,
    INGEST_BATCH_ROWS,
    async ({ rows, broken }) => {
      result.rejected.push(...lineRejections(broken));
      if (rows.length === 0) return;
      const answer = await service.ingest(rows.map((v) => v.value));
      result.accepted += answer.accepted;
      result.duplicate += answer.duplicate;
      for (const r of answer.rejected) result.rejected.push({ line: rows[r.index]?.line ?? 0, field: r.field, message: r.message });
    },
    onProgress,
  );
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
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

/** Hands `lines` to `take` in batches of `batchRows`, reporting progress and yielding to the event loop after each. */
async function inBatches(lines: AsyncIterable<JsonLine> | Iterable<JsonLine>, total: number, batchRows: number, take: (batch: RowBatch) => Promise<void>, onProgress?: IngestProgress): Promise<number> {
  let rows = 0;
  let reported = 0;
  let batch: RowBatch = { rows: [], broken: [] };
  const report = () => {
    // The count was read before the ingest: a file that grew since has more rows than counted.
    onProgress?.(rows, Math.max(total, rows));
    reported = rows;
  };
  const flush = async () => {
    const full = batch;
    batch = { rows: [], broken: [] };
    await take(full);
    report();
    await yieldToEventLoop();
  };
  for await (const line of lines) {
    rows++;
    if ('message' in line) batch.broken.push(line);
    else batch.rows.push(line);
    if (batch.rows.length + batch.broken.length === batchRows) await flush();
  }
  if (batch.rows.length + batch.broken.length > 0) await flush();
  if (reported < rows) report();
  return rows;
}
