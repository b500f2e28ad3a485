import type { IAgentRuntime } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import type { BlendWeights } from './model/elo';
import { parseTierMap, type TierRule } from './model/tier-map';

export interface EloBookSettings {
  establishedAfterUpdates: number;
  driftPerDay: number;
  tierRules: TierRule[];
  blend: BlendWeights;
  contextTokenBudget: number;
  /** Items kept in memory (`EloHotSet`). */
  hotItems: number;
}

/** The book's settings from the plugin's settings. */
export function eloBookSettings(runtime: Pick<IAgentRuntime, 'getSetting'>): EloBookSettings {
  const config = loadConfig(runtime);
  const tiers = parseTierMap(config.SELF_IMPROVE_ELO_INITIAL_TIERS);
  return {
    establishedAfterUpdates: config.SELF_IMPROVE_ELO_ESTABLISHED_AFTER,
    driftPerDay: config.SELF_IMPROVE_ELO_DRIFT_PER_DAY,
    tierRules: tiers.ok ? tiers.rules : [],
    blend: { similarity: config.SELF_IMPROVE_ELO_SIMILARITY_WEIGHT, elo: config.SELF_IMPROVE_ELO_WEIGHT, eloFullMarks: 2000 },
    contextTokenBudget: config.SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET,
    hotItems: config.SELF_IMPROVE_ELO_HOT_ITEMS,
  };
}
