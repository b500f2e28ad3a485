/**
 * Text the plugin puts into a prompt is data the agent reads. These helpers keep it on one line,
 * keep it from opening or closing prompt sections, and keep it within a token budget.
 */

/** Rough token count used for budgets: one token per 4 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The text cut to at most `maxChars` characters, the last one `…` when it was cut. A cut never
 * splits a surrogate pair (half of one is text the database refuses in jsonb).
 */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

const LINE_BREAKS = /[\r\n\t\v\f\u0085\u2028\u2029]+/g;
const SECTION_MARKS = /[<>`[\]]/g;
const SECTION_MARK_STANDS_IN: Record<string, string> = { '<': '‹', '>': '›', '`': "'", '[': '(', ']': ')' };
const SPACE_RUNS = /\s{2,}/g;
const LEADING_HEADER_MARKS = /^(#+\s*)+/;

/**
 * One line of inert text: every line break (\n, \r, \v, \f, U+0085, U+2028, U+2029) and tab becomes a space, characters that could open or close a
 * section (`<`, `>`, backticks, `#` at the start, `[`/`]` pairs used by headers) are replaced,
 * and the result is cut to `maxChars`.
 */
export function escapeForPrompt(text: string, maxChars = 400): string {
  const flat = text
    .replace(LINE_BREAKS, ' ')
    .replace(SECTION_MARKS, (mark) => SECTION_MARK_STANDS_IN[mark] as string)
    .replace(SPACE_RUNS, ' ')
    .trim()
    .replace(LEADING_HEADER_MARKS, '');
  return clipText(flat, maxChars);
}

/**
 * Takes lines in order while they fit: `header` plus the lines must stay within `budgetTokens`.
 * Returns the lines that fit (possibly none). Reading stops at the first line that does not fit,
 * so a generator's later lines are never built.
 */
export function packWithinBudget(header: string, lines: Iterable<string>, budgetTokens: number): string[] {
  let used = estimateTokens(header);
  const kept: string[] = [];
  for (const line of lines) {
    const cost = estimateTokens(line) + 1;
    if (used + cost > budgetTokens) break;
    kept.push(line);
    used += cost;
  }
  return kept;
}
