import { jsonErrorPosition } from './json-error';
import { errorText } from './error-text';

/** One line of a JSONL text that did not parse, with its 1-based line number. */
export interface LineError {
  line: number;
  message: string;
}

export interface ParsedLines {
  /** Parsed values with their 1-based line numbers; blank lines are skipped. */
  values: { line: number; value: unknown }[];
  errors: LineError[];
}

/** Parses JSONL: one JSON value per line, blank lines ignored, bad lines reported by number. */
export function parseJsonLines(text: string): ParsedLines {
  const result: ParsedLines = { values: [], errors: [] };
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      result.values.push({ line: i + 1, value: JSON.parse(line) });
    } catch (error) {
      const column = jsonErrorPosition(line)?.column;
      result.errors.push({ line: i + 1, message: `not valid JSON${column === undefined ? '' : ` at column ${column + raw.indexOf(line)}`}: ${errorText(error)}` });
    }
  });
  return result;
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
      return { values: [], errors: [{ line: at?.line ?? 1, message: `the body is not one valid JSON array: syntax error${where}: ${errorText(error)}` }] };
    }
  }
  return parseJsonLines(text);
}

/** Lines that were not JSON, as row rejections of the whole line (field `(line)`). */
export function lineRejections(errors: readonly LineError[]): { line: number; field: string; message: string }[] {
  return errors.map((e) => ({ line: e.line, field: '(line)', message: e.message }));
}
