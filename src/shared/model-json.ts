/**
 * Finding the JSON in a language model's answer. core's `parseJSONObjectFromText` turns numbers
 * into strings and fails on arrays and nesting (@elizaos/core 1.7.2), so answers are parsed here and then
 * validated with zod by the caller.
 */
import { errorText } from './error-text';

export type JsonExtraction = { ok: true; value: unknown } | { ok: false; code: 'no_json' | 'invalid_json'; message: string };

/** At most this many opening brackets are tried when looking for the JSON in an answer. */
const MAX_JSON_STARTS = 20;

/**
 * Index of the bracket that closes the one at `start`, skipping brackets inside JSON strings;
 * -1 when the text ends first.
 */
function closingIndex(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * The first parseable JSON value in a model answer: code fences are dropped, and each opening
 * bracket (`{` and `[`, or only `{` with `objectsOnly`) is tried in turn up to its matching close,
 * so prose such as "format {category, text}:" before the JSON or a remark after it does no harm.
 */
export function extractJson(text: string, options: { objectsOnly?: boolean } = {}): JsonExtraction {
  const unfenced = text.replace(/```(?:json)?/gi, '');
  const opening = options.objectsOnly ? /\{/ : /[[{]/;
  let lastError = 'the JSON in the answer is not closed';
  let start = unfenced.search(opening);
  if (start < 0) return { ok: false, code: 'no_json', message: options.objectsOnly ? 'the answer contains no JSON object' : 'the answer contains no JSON' };
  for (let tries = 0; start >= 0 && tries < MAX_JSON_STARTS; tries++) {
    const end = closingIndex(unfenced, start);
    if (end > start) {
      try {
        return { ok: true, value: JSON.parse(unfenced.slice(start, end + 1)) };
      } catch (error) {
        lastError = errorText(error);
      }
    }
    const next = unfenced.slice(start + 1).search(opening);
    start = next < 0 ? -1 : start + 1 + next;
  }
  return { ok: false, code: 'invalid_json', message: lastError };
}
