import type { IAgentRuntime, Memory } from '@elizaos/core';
import { blendWithElo } from '../../elo/model/blend';
import { packWithinBudget } from '../../shared/prompt-text';
import { mentionsScanTopic } from '../model/topic';
import { type EloBookService, SCAN_LESSON_KIND } from '../../elo/elo-book-service';
import type { ScanLesson } from '../scan-lesson-metadata';
import type { ScanOutcomeService } from '../scan-outcome-service';
import { ELO_BOOK_SERVICE, SCAN_OUTCOME_SERVICE } from '../../shared/service-names';
import { type ContextBlock, emptyBlock, itemKey } from '../../context/context-block';
import { scanContextOfFinding, formatScanLessonLine, formatPriorLine, scanContextOfMessage, SCAN_LESSONS_HEADER } from './scan-lesson-lines';

/** Lessons considered for the prompt: more than any budget can hold. */
const MAX_RANKED = 50;

const EMPTY = () => emptyBlock({ scanLessonIds: [] });

/** The lines in prompt order, each formatted only when packing gets to it. */
function* promptLines(priorLines: readonly string[], lessons: readonly ScanLesson[]): Generator<string> {
  yield* priorLines;
  for (const lesson of lessons) yield formatScanLessonLine(lesson);
}

/**
 * SCAN_LESSONS' part of a message's context. A lesson is related to the message when it shares a
 * project, scanner, model or finding category with what the message names (as fields, or as words
 * of its text, or through the known finding it names), when the message names a known finding or
 * is about scan findings in general (`mentionsScanTopic`), or when its cosine with the message
 * exceeds the relevance floor calibrated for the vector source in use; nothing else reaches the
 * prompt (nor HIGH_ELO_CONTEXT: `related`). A
 * message about a known finding starts with the finding's prior and the lessons behind it. Ranked
 * by `scanLessonScore` blended with ELO, packed within `budgetTokens`.
 */
export async function scanLessonsBlock(runtime: IAgentRuntime, message: Memory, nowMs: number, budgetTokens: number): Promise<ContextBlock> {
  const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
  if (!service || budgetTokens <= 0) return EMPTY();
  const finding = await service.findingNamedBy(message);
  const prior = finding ? await service.predictValid(finding) : null;
  const index = service.scanLessons.index;
  if (!prior && index.size === 0) return EMPTY();
  const settings = service.settings;
  const context = { ...scanContextOfMessage(message, index), ...(finding ? scanContextOfFinding(finding) : {}) };
  const [vector, floor] = await Promise.all([service.scanLessons.vectorForMessage(message), service.scanLessons.relevance.floor()]);
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  const shortlist = index.rankScored(
    vector,
    {
      context,
      nowMs,
      halfLifeDays: settings.SELF_IMPROVE_LESSON_HALF_LIFE_DAYS,
      minScanLessonConfidence: settings.SELF_IMPROVE_MIN_CONFIDENCE,
      minSimilarity: floor,
      topical: prior !== null || mentionsScanTopic(message.content.text ?? ''),
    },
    MAX_RANKED,
  );
  const candidates = shortlist.map((r) => ({ item: r.item, kind: SCAN_LESSON_KIND, id: r.id, relevance: r.score }));
  const ranked = book ? blendWithElo(candidates, await book.currentElos(candidates, nowMs), book.settings.blend).map((b) => b.item) : shortlist.map((r) => r.item);
  const behind = (prior?.lesson_ids ?? []).map((id) => index.get(id)).filter((l): l is ScanLesson => l !== undefined);
  const shown = [...behind, ...ranked.filter((l) => !behind.includes(l))];
  const related = shown.map((l) => itemKey(SCAN_LESSON_KIND, l.id));
  const budget = Math.min(budgetTokens, settings.SELF_IMPROVE_LESSON_TOKEN_BUDGET);
  const priorLines = prior ? [formatPriorLine(prior, 'below')] : [];
  const lines = packWithinBudget(SCAN_LESSONS_HEADER, promptLines(priorLines, shown), budget);
  if (lines.length === 0) return { ...EMPTY(), related };
  const ids = shown.slice(0, lines.length - priorLines.length).map((l) => l.id);
  // The prior says its lessons follow only when at least one of them does.
  if (prior && !behind.some((l) => ids.includes(l.id))) lines[0] = formatPriorLine(prior, 'none');
  const values = { scanLessonIds: ids, ...(prior ? { scanFindingPrior: prior.p_false_positive } : {}) };
  return {
    result: { text: [SCAN_LESSONS_HEADER, ...lines].join('\n'), values, data: { lessonIds: ids, ...(prior ? { prior } : {}) } },
    shown: ids.length > 0 ? { tool: 'scan_lessons', items: ids.map((id) => ({ kind: SCAN_LESSON_KIND, id })), findingKey: finding?.finding_key ?? null } : null,
    keys: ids.map((id) => itemKey(SCAN_LESSON_KIND, id)),
    related,
  };
}
