import type { IAgentRuntime, TaskWorker } from '@elizaos/core';
import type { ScanOutcomeService } from '../services/scan-outcome-service';
import { SCAN_OUTCOME_SERVICE } from '../services/service-names';

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
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: error instanceof Error ? error.message : String(error) }, 'periodic learning pass failed; will retry');
    }
  },
};

/**
 * Registers the worker and makes sure one repeating task exists for this agent (bootstrap's
 * TaskService runs tasks tagged `queue` + `repeat` every `metadata.updateInterval` ms).
 */
export async function ensureLearnTask(runtime: IAgentRuntime, intervalMs: number): Promise<void> {
  runtime.registerTaskWorker(learnPendingWorker);
  const existing = (await runtime.getTasksByName(LEARN_TASK_NAME)).filter((t) => t.worldId === runtime.agentId);
  const [task] = existing;
  if (!task) {
    await runtime.createTask({
      name: LEARN_TASK_NAME,
      description: 'Learn scan-model lessons from outcomes not yet learned from',
      worldId: runtime.agentId,
      roomId: runtime.agentId,
      tags: ['queue', 'repeat', 'self-improve'],
      metadata: { updateInterval: intervalMs, updatedAt: Date.now() },
    });
  } else if (task.id && task.metadata?.updateInterval !== intervalMs) {
    await runtime.updateTask(task.id, { metadata: { ...task.metadata, updateInterval: intervalMs } });
  }
}
