import { z } from 'zod';

/**
 * The one check every intake applies to what comes from outside (HTTP bodies, JSONL and SARIF
 * files, chat, service calls) before its own schema: text the database can store, times it can
 * compute with, numbers that are numbers. PostgreSQL and PGlite refuse U+0000 in `text` and `jsonb`
 * and unpaired UTF-16 surrogates in `jsonb`: a row carrying one would pass its schema and then fail
 * the INSERT of its whole batch.
 */

/** Deepest nesting of arrays/objects a row may carry (a scalar is depth 0, `[]` depth 1). */
export const MAX_WIRE_DEPTH = 64;
/** Most problems reported for one value; the walk stops there. */
export const MAX_WIRE_PROBLEMS = 10;

/** Earliest time a row may carry: 1970-01-01T00:00:00Z (inclusive). */
export const MIN_WIRE_TIME_MS = Date.UTC(1970, 0, 1);
/** Latest time a row may carry: 2100-12-31T23:59:59.999Z (inclusive). */
export const MAX_WIRE_TIME_MS = Date.UTC(2101, 0, 1) - 1;
export const WIRE_TIME_RANGE_TEXT = '1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z';

export type WireProblemCode = 'nul_character' | 'unpaired_surrogate' | 'too_deep';

/** One problem at a path such as `summary`, `steps.3.text` or `metadata.tags.0`. */
export interface WireProblem {
  path: (string | number)[];
  code: WireProblemCode;
  message: string;
}

const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;

/** What is wrong with one string (`code` and `what`, e.g. "contains a NUL character (U+0000) at offset 3"), or null. */
export function textProblem(text: string): { code: Exclude<WireProblemCode, 'too_deep'>; what: string } | null {
  if (!SUSPECT.test(text)) return null;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return { code: 'nul_character', what: `contains a NUL character (U+0000) at offset ${i}` };
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return { code: 'unpaired_surrogate', what: `contains an unpaired UTF-16 surrogate (high \\u${unit.toString(16)}) at offset ${i}` };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return { code: 'unpaired_surrogate', what: `contains an unpaired UTF-16 surrogate (low \\u${unit.toString(16)}) at offset ${i}` };
  }
  return null;
}

/**
 * `text` with every U+0000 and unpaired surrogate replaced by U+FFFD: for text kept as evidence of
 * what arrived (a line that was not JSON), never for a field of a row, which is refused instead.
 */
export function toStorableText(text: string): string {
  return SUSPECT.test(text) ? withPairedSurrogates(text).replace(/\u0000/g, '\uFFFD') : text;
}

/**
 * `text` with every unpaired surrogate replaced by U+FFFD, as encoding it in UTF-8 does (a text
 * parameter of a statement, `TextEncoder`); U+0000 is left as it is.
 */
export function withPairedSurrogates(text: string): string {
  return SURROGATE.test(text) ? text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD') : text;
}

/** True when `text` can be stored as it is: no U+0000, every surrogate paired. */
export function isStorableText(text: string): boolean {
  return textProblem(text) === null;
}

/** `a.b.0.c`, or `whole` for the value itself. */
export function pathText(path: readonly (string | number)[], whole = '(row)'): string {
  return path.length === 0 ? whole : path.join('.');
}

const STORABLE_TEXT = 'text must be well-formed Unicode without U+0000';

/** `${field} contains …; text must be …` when `text` cannot be stored, else null. */
export function unstorableTextMessage(field: string, text: string): string | null {
  const problem = textProblem(text);
  return problem ? `${field} ${problem.what}; ${STORABLE_TEXT}` : null;
}

interface Pending {
  value: object;
  path: (string | number)[];
  depth: number;
}

/**
 * Every string (values and object keys) of `value` at any depth that cannot be stored, and every
 * array/object nested deeper than `maxDepth`, in document order, at most `MAX_WIRE_PROBLEMS`.
 * Iterative (an explicit stack), so an adversarially deep value costs a loop, not the call stack;
 * a container met twice (shared or cyclic, from a service call) is walked once. A key with a
 * problem is named JSON-escaped in the path.
 */
export function wireProblems(value: unknown, maxDepth = MAX_WIRE_DEPTH): WireProblem[] {
  const problems: WireProblem[] = [];
  const add = (path: (string | number)[], code: WireProblemCode, message: string) => {
    if (problems.length < MAX_WIRE_PROBLEMS) problems.push({ path, code, message });
  };
  const visit = (child: unknown, path: (string | number)[], depth: number, stack: Pending[]) => {
    if (typeof child === 'string') {
      const problem = textProblem(child);
      if (problem) add(path, problem.code, `${pathText(path)} ${problem.what}; ${STORABLE_TEXT}`);
    } else if (child !== null && typeof child === 'object') {
      stack.push({ value: child, path, depth: depth + 1 });
    }
  };
  const root: Pending[] = [];
  visit(value, [], 0, root);
  const stack = root;
  const seen = new WeakSet<object>();
  while (stack.length > 0 && problems.length < MAX_WIRE_PROBLEMS) {
    const { value: container, path, depth } = stack.pop() as Pending;
    if (seen.has(container)) continue;
    seen.add(container);
    if (depth > maxDepth) {
      add(path, 'too_deep', `${pathText(path)} is nested deeper than ${maxDepth} levels of arrays and objects`);
      continue;
    }
    const children: Pending[] = [];
    const entries: [string | number, unknown][] = Array.isArray(container) ? container.map((v, i) => [i, v]) : Object.entries(container);
    for (const [key, child] of entries) {
      if (typeof key === 'string') {
        const keyProblem = textProblem(key);
        if (keyProblem) {
          const named = [...path, JSON.stringify(key).slice(1, -1)];
          add(named, keyProblem.code, `${pathText(named)}: the key ${keyProblem.what}; ${STORABLE_TEXT}`);
          continue;
        }
      }
      visit(child, [...path, key], depth, children);
    }
    // Pushed in reverse so the stack pops them in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Pending);
  }
  return problems;
}

/** True when `ms` lies in 1970-01-01 .. 2100-12-31 (UTC, inclusive). */
export function isWireTimeMs(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_WIRE_TIME_MS && ms <= MAX_WIRE_TIME_MS;
}

/** `${field} must be between … (got "…")`. */
export function wireTimeRangeMessage(field: string, text: string): string {
  return `${field} must be between ${WIRE_TIME_RANGE_TEXT} (got ${JSON.stringify(text)})`;
}

/** How a value is named in a message: `null`, `Infinity`, `"text"`, `an object`. */
export function shownValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A finite number read from the wire, then `inner` (its range, integrality, with its own
 * messages). A missing value is `${field} is required (${allowed})`; `null`, a non-number, NaN and
 * ±Infinity are `${field} must be ${allowed}, got …` (JSON.parse reads 1e999 as Infinity). JSON
 * null is a value here, not "absent": a row that names a number field must give a number.
 */
export function wireNumber(field: string, allowed: string, inner: z.ZodNumber = z.number()) {
  return z
    .number({
      errorMap: (issue, ctx) => ({
        message: issue.code === 'invalid_type' && ctx.data === undefined ? `${field} is required (${allowed})` : `${field} must be ${allowed}, got ${shownValue(ctx.data)}`,
      }),
    })
    .refine(Number.isFinite, (v) => ({ message: `${field} must be ${allowed}, got ${shownValue(v)}` }))
    .pipe(inner);
}
