import type { IAgentRuntime, Memory, Provider, ProviderResult } from '@elizaos/core';
import { assembleContext } from '../../context/context-assembly';
import { HIGH_ELO_CONTEXT_POSITION } from '../../context/context-block';

/**
 * HIGH_ELO_CONTEXT (seed 002): content the agent used with good results that is related to the
 * current message (beyond the content's calibrated relevance floor) and that TOP_RULES and
 * SCAN_LESSONS do not already show, ordered by the blend of similarity and ELO; HIGH items in
 * full, MEDIUM summarised, LOW as a pointer, VERY LOW left out; last in the plugin's context and
 * within SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET. Part of the message's one context assembly;
 * `state.values.highEloContextIds`.
 */
export const highEloContextProvider: Provider = {
  name: 'HIGH_ELO_CONTEXT',
  description: 'Content the agent has used with good results, ranked by similarity and ELO, shown in full, summarised or as a pointer by tier',
  dynamic: false,
  position: HIGH_ELO_CONTEXT_POSITION,
  get: async (runtime: IAgentRuntime, message: Memory): Promise<ProviderResult> => assembleContext(runtime, message).elo(),
};
