import type { IAgentRuntime, TaskWorker } from '@elizaos/core';

/**
 * Registers `worker` and makes sure one repeating task of its name exists for this agent
 * (bootstrap's TaskService runs tasks tagged `queue` + `repeat` every `metadata.updateInterval`
 * ms; they need a `worldId`, here the agent's own id). An existing task gets the new interval.
 */
export async function ensureRepeatingTask(runtime: IAgentRuntime, worker: TaskWorker, options: { description: string; intervalMs: number }): Promise<void> {
  runtime.registerTaskWorker(worker);
  const [task] = (await runtime.getTasksByName(worker.name)).filter((t) => t.worldId === runtime.agentId);
  if (!task) {
    await runtime.createTask({
      name: worker.name,
      description: options.description,
      worldId: runtime.agentId,
      roomId: runtime.agentId,
      tags: ['queue', 'repeat', 'self-improve'],
      metadata: { updateInterval: options.intervalMs, updatedAt: Date.now() },
    });
  } else if (task.id && task.metadata?.updateInterval !== options.intervalMs) {
    await runtime.updateTask(task.id, { metadata: { ...task.metadata, updateInterval: options.intervalMs } });
  }
}
