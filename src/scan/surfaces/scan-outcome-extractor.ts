import type { ActionResult, Evaluator, IAgentRuntime } from '@elizaos/core';
import { SCAN_OUTCOME_SERVICE, type ScanOutcomeService } from '../scan-outcome-service';
import { errorText } from '../../shared/error-text';

const LOG_SRC = 'plugin:self-improve:scan-outcome-extractor';

/**
 * SCAN_OUTCOME_EXTRACTOR (seed 001 §4): after a message, learn lessons from scan outcomes that
 * were ingested since the last pass. `validate` reads one boolean in memory; the handler only
 * starts a pass in the background (`learnInBackground`) and returns, so the message never waits
 * for learning, however much is pending; it never throws.
 */
export const scanOutcomeExtractor: Evaluator = {
  name: 'SCAN_OUTCOME_EXTRACTOR',
  similes: ['LEARN_FROM_SCAN_OUTCOMES', 'SCAN_LESSON_EXTRACTOR'],
  description: 'Turns newly labelled scan outcomes (fixed, accepted, ignored, rejected_fp, reopened) into deduplicated scan-model-lesson memories.',
  alwaysRun: true,
  examples: [
    {
      prompt: 'Twelve semgrep sql-injection findings on project payments were labelled; nine were rejected as false positives.',
      messages: [{ name: '{{name1}}', content: { text: 'I labelled the latest semgrep run on payments.' } }],
      outcome: 'A false-positive-pattern lesson for semgrep sql-injection findings on payments, with its sample size and window.',
    },
  ],
  validate: async (runtime: IAgentRuntime) => runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE)?.hasPendingWork() ?? false,
  handler: async (runtime: IAgentRuntime): Promise<ActionResult> => {
    const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
    if (!service) return { success: false, error: 'scan-outcomes service is not running' };
    try {
      service.learnInBackground();
      return { success: true, text: 'learning pass started' };
    } catch (error) {
      const message = errorText(error);
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: message }, 'learning pass could not start');
      return { success: false, error: message };
    }
  },
};
