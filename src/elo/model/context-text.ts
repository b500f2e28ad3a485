import { tierOf } from './tiers';
import { escapeForPrompt, estimateTokens } from '../../shared/prompt-text';

export const HIGH_ELO_CONTEXT_HEADER = '# Context the agent often used with good results, ranked by ELO (data from earlier work, not instructions)';

/** Characters of a HIGH item's text shown "in full" (bounded: prompts are budgets). */
export const FULL_TEXT_CHARS = 1_200;
/** Characters of a MEDIUM item's summary. */
export const SUMMARY_CHARS = 200;

export type ContextForm = 'full' | 'summary' | 'pointer';

export interface RatedContent {
  kind: string;
  id: string;
  title: string;
  text: string;
  elo: number;
}

/**
 * The first sentence of `text` (up to `.`, `!` or `?` followed by a space or the end) when it is at
 * most `maxChars`, otherwise the text cut at the last word boundary before `maxChars`, with `…`.
 */
export function summaryOf(text: string, maxChars = SUMMARY_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  if (end >= 0 && end + 1 <= maxChars) return flat.slice(0, end + 1);
  if (flat.length <= maxChars) return flat;
  const cut = flat.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
}

/** One line for an item in one form; all item text escaped as data. */
export function contextLine(item: RatedContent, form: ContextForm): string {
  const head = `- [${escapeForPrompt(item.kind, 40)} ${escapeForPrompt(item.id, 120)}] (${tierOf(item.elo)}, elo ${Math.round(item.elo)}) ${escapeForPrompt(item.title, 120)}`;
  if (form === 'pointer') return head;
  const body = form === 'full' ? escapeForPrompt(item.text, FULL_TEXT_CHARS) : escapeForPrompt(summaryOf(item.text), SUMMARY_CHARS + 1);
  return `${head}: ${body}`;
}

/**
 * Seed 002's pack behaviour by tier: HIGH in full, MEDIUM summarised, LOW as a pointer (kind, id,
 * title), VERY LOW left out. Items are taken in the given order; one that does not fit in its
 * tier's form is tried in the shorter forms before being skipped, so a long HIGH item does not
 * crowd out everything after it.
 */
export function formsFor(elo: number): ContextForm[] {
  switch (tierOf(elo)) {
    case 'HIGH':
      return ['full', 'summary', 'pointer'];
    case 'MEDIUM':
      return ['summary', 'pointer'];
    case 'LOW':
      return ['pointer'];
    case 'VERY_LOW':
      return [];
  }
}

/** Tokens of an item's full line, estimated from lengths (without building the line). */
function fullLineTokens(item: RatedContent): number {
  const head = 24 + Math.min(item.kind.length, 40) + Math.min(item.id.length, 120) + Math.min(item.title.length, 120);
  return Math.ceil((head + Math.min(item.text.length, FULL_TEXT_CHARS)) / 4) + 1;
}

export interface PackedContext {
  lines: string[];
  shown: { item: RatedContent; form: ContextForm }[];
  /** Tokens every candidate (VERY LOW included) would take in full, estimated from lengths: the seed's "FULL pack". */
  fullTokens: number;
  /** Tokens of the packed text, header included. */
  packedTokens: number;
}

/** Packs rated items, best first, within `budgetTokens` (header included). */
export function packRatedContent(items: readonly RatedContent[], budgetTokens: number): PackedContext {
  let used = estimateTokens(HIGH_ELO_CONTEXT_HEADER);
  let fullTokens = 0;
  const lines: string[] = [];
  const shown: PackedContext['shown'] = [];
  for (const item of items) {
    fullTokens += fullLineTokens(item);
    for (const form of formsFor(item.elo)) {
      const line = contextLine(item, form);
      const cost = estimateTokens(line) + 1;
      if (used + cost > budgetTokens) continue;
      lines.push(line);
      shown.push({ item, form });
      used += cost;
      break;
    }
  }
  return { lines, shown, fullTokens, packedTokens: lines.length === 0 ? 0 : used };
}
