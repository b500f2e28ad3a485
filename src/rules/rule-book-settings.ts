import type { KeyObject } from 'node:crypto';
import type { SelfImproveConfig } from '../shared/config';
import type { DecayPolicy } from './model/rule-confidence';
import type { PromotionCriteria, ScanPromotionCriteria } from './model/promotion';
import { keyIdOf } from './model/signing';

/** The rule book's settings, from the plugin's (`SELF_IMPROVE_RULE_*`, `SELF_IMPROVE_GUARD_THRESHOLD`, `SELF_IMPROVE_SCAN_RULE_*`). */
export interface RuleBookSettings {
  criteria: PromotionCriteria;
  scanCriteria: ScanPromotionCriteria;
  scanPromotion: boolean;
  policy: DecayPolicy;
  tokenBudget: number;
  matchThreshold: number;
  guardThreshold: number;
  decayIntervalMs: number;
  /** SELF_IMPROVE_RULE_SIGNING_KEY: signs exports; null: exports are unsigned. */
  signingKey: KeyObject | null;
  /** Key ids whose signed exports import as they are: SELF_IMPROVE_RULE_TRUSTED_KEYS, plus the agent's own signing key. */
  trustedKeyIds: ReadonlySet<string>;
}

export function ruleBookSettings(config: SelfImproveConfig): RuleBookSettings {
  return {
    criteria: {
      minConfirmations: config.SELF_IMPROVE_RULE_MIN_CONFIRMATIONS,
      minConfirmationsWhenProven: config.SELF_IMPROVE_RULE_MIN_CONFIRMATIONS_PROVEN,
      minAgeDays: config.SELF_IMPROVE_RULE_MIN_AGE_DAYS,
    },
    scanCriteria: {
      minSampleSize: config.SELF_IMPROVE_SCAN_RULE_MIN_SAMPLE,
      minScanLessonConfidence: config.SELF_IMPROVE_SCAN_RULE_MIN_CONFIDENCE,
      minReinforcements: config.SELF_IMPROVE_SCAN_RULE_MIN_REINFORCEMENTS,
      minSpanDays: config.SELF_IMPROVE_SCAN_RULE_MIN_SPAN_DAYS,
      maxIdleDays: config.SELF_IMPROVE_SCAN_RULE_MAX_IDLE_DAYS,
    },
    scanPromotion: config.SELF_IMPROVE_SCAN_RULE_PROMOTION === 'on',
    policy: { graceDays: config.SELF_IMPROVE_RULE_GRACE_DAYS, halfLifeDays: config.SELF_IMPROVE_RULE_HALF_LIFE_DAYS },
    tokenBudget: config.SELF_IMPROVE_RULE_TOKEN_BUDGET,
    matchThreshold: config.SELF_IMPROVE_RULE_MATCH_THRESHOLD,
    guardThreshold: config.SELF_IMPROVE_GUARD_THRESHOLD,
    decayIntervalMs: config.SELF_IMPROVE_RULE_DECAY_INTERVAL_MS,
    signingKey: config.SELF_IMPROVE_RULE_SIGNING_KEY ?? null,
    trustedKeyIds: new Set([...config.SELF_IMPROVE_RULE_TRUSTED_KEYS, ...(config.SELF_IMPROVE_RULE_SIGNING_KEY ? [keyIdOf(config.SELF_IMPROVE_RULE_SIGNING_KEY)] : [])]),
  };
}
