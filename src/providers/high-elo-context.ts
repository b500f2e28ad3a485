import type { IAgentRuntime, Memory, Provider, ProviderResult } from '@elizaos/core';
import { blendWithElo } from '../domain/elo-blend';
import { HIGH_ELO_CONTEXT_HEADER, packRatedContent } from '../domain/elo-context-text';
import type { EloBookService } from '../services/elo-book-service';
import { ELO_BOOK_SERVICE } from '../services/service-names';
import { recordShownInPrompt } from './prompt-retrieval';

/** Candidates taken by similarity before the ELO blend orders them. */
const CANDIDATES = 24;

const EMPTY: ProviderResult = { text: '', values: { highEloContextIds: [] } };

/**
 * HIGH_ELO_CONTEXT (seed 002): for the current message, candidates by similarity from the ELO
 * book's content (scan lessons, and items integrators reported with text), ordered by the blend
 * `similarity × 0.7 + (elo / 2000) × 0.3` (weights are settings); HIGH items in full, MEDIUM
 * summarised, LOW as a pointer, VERY LOW left out; within SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET.
 * The items shown are recorded once per message as a retrieval (rank boosts, search log with
 * token counts) and answer for the outcomes of the message and of the finding it names.
 */
export const highEloContextProvider: Provider = {
  name: 'HIGH_ELO_CONTEXT',
  description: 'Content the agent has used with good results, ranked by similarity and ELO, shown in full, summarised or as a pointer by tier',
  dynamic: false,
  get: async (runtime: IAgentRuntime, message: Memory): Promise<ProviderResult> => {
    const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
    const query = message.content.text ?? '';
    if (!book || book.content.size === 0 || query.trim() === '') return EMPTY;
    const nowMs = Date.now();
    const matches = book.searchContent(query, CANDIDATES);
    const blended = blendWithElo(
      matches.map((m) => ({ item: m.item, kind: m.item.kind, id: m.item.id, relevance: m.similarity })),
      (kind, id) => book.currentElo(kind, id, nowMs),
      book.settings.blend,
      1,
    );
    const packed = packRatedContent(
      blended.map((b) => ({ kind: b.kind, id: b.id, title: b.item.title, text: b.item.text, elo: b.elo })),
      book.settings.contextTokenBudget,
    );
    if (packed.lines.length === 0) return EMPTY;
    const shown = packed.shown.map((s) => ({ kind: s.item.kind, id: s.item.id, form: s.form, elo: Math.round(s.item.elo) }));
    await recordShownInPrompt(runtime, message, { tool: 'high_elo_context', items: shown, logExtras: { tokens_full: packed.fullTokens, tokens_packed: packed.packedTokens } });
    return {
      text: [HIGH_ELO_CONTEXT_HEADER, ...packed.lines].join('\n'),
      values: { highEloContextIds: shown.map((s) => `${s.kind}:${s.id}`) },
      data: { items: shown },
    };
  },
};
