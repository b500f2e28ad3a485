import type { IAgentRuntime, Memory, Provider, ProviderResult } from '@elizaos/core';
import { assembleContext } from '../../context/context-assembly';
import { SCAN_LESSONS_POSITION } from '../../context/context-block';

export { formatScanLessonLine, formatPriorLine, scanContextOfMessage, SCAN_LESSONS_HEADER } from './scan-lesson-lines';

/**
 * SCAN_LESSONS: the lessons related to the current message (it names their finding, project,
 * scanner, model or category, or is similar to them beyond the calibrated relevance floor), within
 * the shared context budget and SELF_IMPROVE_LESSON_TOKEN_BUDGET; when the message is about a known
 * finding, its triage prior first, then the lessons behind it. Part of the message's one context
 * assembly (`assembleContext`); `state.values.scanLessonIds`, `scanFindingPrior`.
 */
export const scanLessonsProvider: Provider = {
  name: 'SCAN_LESSONS',
  description: 'Lessons learned from judged scan findings that fit the current conversation, with their evidence size and window',
  dynamic: false,
  position: SCAN_LESSONS_POSITION,
  get: async (runtime: IAgentRuntime, message: Memory): Promise<ProviderResult> => assembleContext(runtime, message).scanLessons(),
};
