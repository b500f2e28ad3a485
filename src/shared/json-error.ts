/** Where a JSON text stops being JSON: 0-based offset, 1-based line and column. */
export interface JsonErrorPosition {
  offset: number;
  line: number;
  column: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const LITERAL = /true|false|null/y;
const SPACE = /[ \t\n\r]*/y;

function positionOf(text: string, offset: number): JsonErrorPosition {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { offset, line, column: offset - before.lastIndexOf('\n') };
}

function matchAt(pattern: RegExp, text: string, offset: number): number {
  pattern.lastIndex = offset;
  return pattern.test(text) ? pattern.lastIndex : -1;
}

/**
 * The position of the first syntax error in `text` read as one JSON document, or null when it is
 * valid JSON. A scanner with an explicit stack (no recursion), so any nesting depth is safe; used to
 * name the line and column of a malformed body, which Node's JSON.parse messages do not always do.
 */
export function jsonErrorPosition(text: string): JsonErrorPosition | null {
  // Each frame: the container kind and what it expects next.
  const stack: { kind: '[' | '{'; expect: 'value-or-close' | 'value' | 'key-or-close' | 'key' | 'colon' | 'comma-or-close' }[] = [];
  let i = matchAt(SPACE, text, 0);
  let done = false;
  const fail = (at: number) => positionOf(text, Math.min(at, text.length));
  while (i < text.length) {
    const top = stack[stack.length - 1];
    const ch = text[i];
    if (done) return fail(i);
    if (top && (top.expect === 'comma-or-close' || top.expect === 'colon')) {
      if (top.expect === 'colon') {
        if (ch !== ':') return fail(i);
        top.expect = 'value';
      } else if (ch === ',') top.expect = top.kind === '[' ? 'value' : 'key';
      else if ((ch === ']' && top.kind === '[') || (ch === '}' && top.kind === '{')) {
        stack.pop();
        if (stack.length === 0) done = true;
      } else return fail(i);
      i = matchAt(SPACE, text, i + 1);
      continue;
    }
    if (top && (top.expect === 'key' || top.expect === 'key-or-close')) {
      if (ch === '}' && top.expect === 'key-or-close') {
        stack.pop();
        if (stack.length === 0) done = true;
        i = matchAt(SPACE, text, i + 1);
        continue;
      }
      const end = matchAt(STRING, text, i);
      if (end < 0) return fail(i);
      top.expect = 'colon';
      i = matchAt(SPACE, text, end);
      continue;
    }
    // A value is expected: at the top level, after '[' or ',' in an array, or after ':'.
    if (top?.expect === 'value-or-close' && ch === ']') {
      stack.pop();
      if (stack.length === 0) done = true;
      i = matchAt(SPACE, text, i + 1);
      continue;
    }
    if (top) top.expect = 'comma-or-close';
    if (ch === '[' || ch === '{') {
      stack.push({ kind: ch, expect: ch === '[' ? 'value-or-close' : 'key-or-close' });
      i = matchAt(SPACE, text, i + 1);
      continue;
    }
    const end = [STRING, NUMBER, LITERAL].map((p) => matchAt(p, text, i)).find((e) => e > i) ?? -1;
    if (end < 0) return fail(i);
    if (!top) done = true;
    i = matchAt(SPACE, text, end);
  }
  return done ? null : fail(text.length);
}

/** "line L, column C" of the first syntax error, for messages; "" when the text is valid JSON. */
export function jsonErrorWhere(text: string): string {
  const at = jsonErrorPosition(text);
  return at ? `line ${at.line}, column ${at.column}` : '';
}
