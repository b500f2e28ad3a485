import type { IAgentRuntime, Memory } from '@elizaos/core';
import { blendWithElo } from '../model/blend';
import { HIGH_ELO_CONTEXT_HEADER, packRatedContent } from '../model/context-text';
import { type EloBookService, SCAN_LESSON_KIND } from '../elo-book-service';
import { ELO_BOOK_SERVICE } from '../../shared/service-names';
import { type ContextBlock, emptyBlock, itemKey } from '../../context/context-block';

/** Candidates taken by similarity before the ELO blend orders them. */
const CANDIDATES = 24;

const EMPTY = () => emptyBlock({ highEloContextIds: [] });

/**
 * HIGH_ELO_CONTEXT's part of a message's context: up to 24 candidates from the book's content
 * related to the message — a scan lesson when SCAN_LESSONS found it related (`relatedLessons`),
 * anything else when its similarity exceeds the content's calibrated relevance floor — except the
 * items the blocks before it show (`shownBefore`, as `kind:id`), ordered by the blend
 * `similarity × 0.7 + (elo / 2000) × 0.3` (weights are settings); HIGH in full, MEDIUM
 * summarised, LOW as a pointer, VERY LOW left out; within `budgetTokens` and
 * SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET.
 */
export async function eloBlock(
  runtime: IAgentRuntime,
  message: Memory,
  nowMs: number,
  budgetTokens: number,
  shownBefore: ReadonlySet<string>,
  relatedScanLessons: ReadonlySet<string>,
): Promise<ContextBlock> {
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  const query = message.content.text ?? '';
  if (!book || book.content.size === 0 || query.trim() === '' || budgetTokens <= 0) return EMPTY();
  const floor = await book.relevance.floor(book.content);
  const matches = book
    .searchContent(query, CANDIDATES + shownBefore.size)
    .filter((m) => {
      const key = itemKey(m.item.kind, m.item.id);
      if (shownBefore.has(key)) return false;
      return m.item.kind === SCAN_LESSON_KIND ? relatedScanLessons.has(key) : m.similarity > floor;
    })
    .slice(0, CANDIDATES);
  if (matches.length === 0) return EMPTY();
  const candidates = matches.map((m) => ({ item: m.item, kind: m.item.kind, id: m.item.id, relevance: m.similarity }));
  const blended = blendWithElo(
    candidates,
    await book.currentElos(candidates, nowMs),
    book.settings.blend,
    1,
  );
  const packed = packRatedContent(
    blended.map((b) => ({ kind: b.kind, id: b.id, title: b.item.title, text: b.item.text, elo: b.elo })),
    Math.min(budgetTokens, book.settings.contextTokenBudget),
  );
  if (packed.lines.length === 0) return EMPTY();
  const shown = packed.shown.map((s) => ({ kind: s.item.kind, id: s.item.id, form: s.form, elo: Math.round(s.item.elo) }));
  const keys = shown.map((s) => itemKey(s.kind, s.id));
  return {
    result: { text: [HIGH_ELO_CONTEXT_HEADER, ...packed.lines].join('\n'), values: { highEloContextIds: keys }, data: { items: shown } },
    shown: { tool: 'high_elo_context', items: shown, logExtras: { tokens_full: packed.fullTokens, tokens_packed: packed.packedTokens } },
    keys,
    related: keys,
  };
}
