import { type ActionEventPayload, EventType, type IAgentRuntime, type ModelEventPayload, type PluginEvents, type RunEventPayload } from '@elizaos/core';
import type { TrajectoryService } from '../trajectory-service';
import { TRAJECTORY_SERVICE } from '../../shared/service-names';

const startedTrajectoryService = (runtime: IAgentRuntime) => runtime.getService<TrajectoryService>(TRAJECTORY_SERVICE);

/**
 * The runtime events a trajectory is assembled from: runs started and ended, actions started and
 * completed with their results, and model use with token counts (MODEL_USED is emitted by model
 * plugins). Each handler only records; scoring happens when the run ends.
 */
export const runEvents: PluginEvents = {
  [EventType.RUN_STARTED]: [async (p: RunEventPayload) => startedTrajectoryService(p.runtime)?.onRunStarted(p)],
  [EventType.ACTION_STARTED]: [async (p: ActionEventPayload) => startedTrajectoryService(p.runtime)?.onActionStarted(p)],
  [EventType.ACTION_COMPLETED]: [async (p: ActionEventPayload) => startedTrajectoryService(p.runtime)?.onActionCompleted(p)],
  [EventType.MODEL_USED]: [async (p: ModelEventPayload) => startedTrajectoryService(p.runtime)?.onModelUsed(p)],
  [EventType.RUN_ENDED]: [async (p: RunEventPayload) => startedTrajectoryService(p.runtime)?.onRunEnded(p)],
};
