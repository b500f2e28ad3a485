import { jsonErrorPosition } from './json-error';
import { errorText } from './error-text';

/** One line of a JSONL text that did not parse, with its 1-based line number. */
export interface LineError {
  line: number;
  message: string;
}

/** A line that did not parse, with its text (without its line break), as the parse-error log keeps it. */
export interface BrokenLine extends LineError {
  text: string;
}

export interface ParsedLines {
  /** Parsed values with their 1-based line numbers; blank lines are skipped. */
  values: { line: number; value: unknown }[];
  errors: BrokenLine[];
}

/** One non-blank line of JSONL: its value, or why it is not JSON. */
export type JsonLine = { line: number; value: unknown } | BrokenLine;

/** Line number `line` of a JSONL text (`raw`, without its line break); undefined when it is blank. */
function parseLine(raw: string, line: number): JsonLine | undefined {
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  try {
    return { line, value: JSON.parse(trimmed) };
  } catch (error) {
    const column = jsonErrorPosition(trimmed)?.column;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    return { line, message: `not valid JSON${column === undefined ? '' : ` at column ${column + raw.indexOf(trimmed)}`}: ${errorText(error)}`, text };
  }
}

/** Parses JSONL: one JSON value per line, blank lines ignored, bad lines reported by number. */
export function parseJsonLines(text: string): ParsedLines {
  const result: ParsedLines = { values: [], errors: [] };
  text.split(/\r?\n/).forEach((raw, i) => {
    const parsed = parseLine(raw, i + 1);
    if (parsed === undefined) return;
    if ('message' in parsed) result.errors.push(parsed);
    else result.values.push(parsed);
  });
  return result;
}

/**
 * The lines of a text that arrives in pieces (a file read a megabyte at a time), one at a time and
 * each without its `\n`: the lines `split(/\r?\n/)` gives of the pieces joined, but for a `\r`
 * before the break, which `parseLine` trims. A line may span pieces; each piece is searched once,
 * so a long line costs what its length does.
 */
export async function* linesOfChunks(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let partial: string[] = [];
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, end);
      yield partial.length === 0 ? piece : partial.join('') + piece;
      partial = [];
      start = end + 1;
    }
    if (start < chunk.length) partial.push(chunk.slice(start));
  }
  yield partial.join('');
}

/** `parseJsonLines` of a text that arrives in pieces (`linesOfChunks`), one line at a time. */
export async function* jsonLinesOfChunks(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<JsonLine> {
  let line = 0;
  for await (const raw of linesOfChunks(chunks)) {
    const parsed = parseLine(raw, ++line);
    if (parsed !== undefined) yield parsed;
  }
}

/** A body that is either a JSON array, one JSON object (on one line or several), or JSONL. */
export function parseRowsText(text: string): ParsedLines {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && trimmed.includes('\n')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { values: [{ line: 1, value: parsed }], errors: [] };
    } catch {
      // Not one object spread over lines: read it as JSONL below, which reports each bad line.
    }
  }
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return { values: parsed.map((value, i) => ({ line: i + 1, value })), errors: [] };
    } catch (error) {
      const at = jsonErrorPosition(text);
      const where = at ? ` at line ${at.line}, column ${at.column}` : '';
      return { values: [], errors: [{ line: at?.line ?? 1, message: `the body is not one valid JSON array: syntax error${where}: ${errorText(error)}`, text: trimmed }] };
    }
  }
  return parseJsonLines(text);
}

/** Lines that were not JSON, as row rejections of the whole line (field `(line)`). */
export function lineRejections(errors: readonly LineError[]): { line: number; field: string; message: string }[] {
  return errors.map((e) => ({ line: e.line, field: '(line)', message: e.message }));
}
