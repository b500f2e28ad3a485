import type { IAgentRuntime, TaskWorker } from '@elizaos/core';
import type { RuleBookService } from '../rule-book-service';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { ensureRepeatingTask } from '../../shared/repeating-task';
import { errorText } from '../../shared/error-text';

export const RULE_DECAY_TASK_NAME = 'SELF_IMPROVE_RULE_DECAY';

const LOG_SRC = 'plugin:self-improve:rules';

/**
 * Seed 003's `confidence-decay.sh`, every SELF_IMPROVE_RULE_DECAY_INTERVAL_MS: rule confidence
 * recomputed from timestamps (a missed run loses nothing), lessons due for promotion promoted,
 * and scan lessons with lasting support promoted to rules.
 */
export const ruleDecayWorker: TaskWorker = {
  name: RULE_DECAY_TASK_NAME,
  execute: async (runtime: IAgentRuntime) => {
    const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
    if (!book) return;
    try {
      const report = await book.maintain(Date.now());
      if (report.decayed + report.promoted.length + report.scanPromoted.length > 0) {
        runtime.logger.info({ src: LOG_SRC, agentId: runtime.agentId, ...report }, 'rule maintenance done');
      }
    } catch (error) {
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'rule maintenance failed; will retry');
    }
  },
};

export async function ensureRuleDecayTask(runtime: IAgentRuntime, intervalMs: number): Promise<void> {
  await ensureRepeatingTask(runtime, ruleDecayWorker, { description: 'Decay rule confidence and promote lessons that are due', intervalMs });
}
