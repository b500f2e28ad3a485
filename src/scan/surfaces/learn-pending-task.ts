import type { IAgentRuntime, TaskWorker } from '@elizaos/core';
import type { ScanOutcomeService } from '../scan-outcome-service';
import { SCAN_OUTCOME_SERVICE } from '../../shared/service-names';
import { ensureRepeatingTask } from '../../shared/repeating-task';
import { errorText } from '../../shared/error-text';

export const LEARN_TASK_NAME = 'SELF_IMPROVE_LEARN_PENDING';

const LOG_SRC = 'plugin:self-improve:learn-task';

/** Seed 001 §4.1 "periodic poll": learns from pending outcomes even when no message arrives. */
export const learnPendingWorker: TaskWorker = {
  name: LEARN_TASK_NAME,
  execute: async (runtime: IAgentRuntime) => {
    const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
    if (!service) return;
    try {
      const report = await service.learnPending();
      if (report.pending_outcomes > 0) {
        runtime.logger.info({ src: LOG_SRC, agentId: runtime.agentId, pending: report.pending_outcomes, created: report.lessons_created, reinforced: report.lessons_reinforced }, 'periodic learning pass done');
      }
    } catch (error) {
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'periodic learning pass failed; will retry');
    }
  },
};

/** Registers the worker and makes sure its repeating task exists for this agent. */
export async function ensureLearnTask(runtime: IAgentRuntime, intervalMs: number): Promise<void> {
  await ensureRepeatingTask(runtime, learnPendingWorker, { description: 'Learn scan-model lessons from outcomes not yet learned from', intervalMs });
}
