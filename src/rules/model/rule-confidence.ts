import { DAY_MS } from '../../scan/model/grouping';
import type { Rule } from './types';

/**
 * Seed 003 v1.4.0: a rule starts at confidence 0.9, loses it over time unless validated, and is
 * flagged for review (and kept out of prompts) below 0.5. Confidence is a function of the last
 * validation time and now only, so a decay run that is skipped or run twice changes nothing.
 */

/** Confidence of a new or just-validated rule. */
export const RULE_START_CONFIDENCE = 0.9;
/** Below this a rule is flagged for review and not injected. */
export const REVIEW_THRESHOLD = 0.5;

export interface DecayPolicy {
  /** Days after the last validation during which confidence stays at the start value. */
  graceDays: number;
  /** Days over which confidence halves once the grace period is over. */
  halfLifeDays: number;
}

/** Defaults: 7 days of grace, then a 30-day half-life (so 0.9 falls below 0.5 after 7 + 25.4 ≈ 32.4 days). */
export const DEFAULT_DECAY_POLICY: DecayPolicy = { graceDays: 7, halfLifeDays: 30 };

function checkPolicy(policy: DecayPolicy): void {
  if (!(Number.isFinite(policy.graceDays) && policy.graceDays >= 0)) {
    throw new RangeError(`graceDays must be a finite number ≥ 0 (got ${policy.graceDays})`);
  }
  if (!(Number.isFinite(policy.halfLifeDays) && policy.halfLifeDays > 0)) {
    throw new RangeError(`halfLifeDays must be a finite number > 0 (got ${policy.halfLifeDays})`);
  }
}

/**
 * `elapsedDays = (nowMs − lastValidatedMs) / 86 400 000`;
 * `confidence = 0.9` while `elapsedDays ≤ graceDays` (also for a validation in the future), else
 * `0.9 × 0.5 ^ ((elapsedDays − graceDays) / halfLifeDays)`.
 * In (0, 0.9] (floored at `Number.MIN_VALUE` where the power underflows to 0, after ~1 075
 * half-lives) and non-increasing in `nowMs`. Throws a RangeError on a policy with negative grace or a non-positive half-life.
 */
export function ruleConfidenceAt(lastValidatedMs: number, nowMs: number, policy: DecayPolicy = DEFAULT_DECAY_POLICY): number {
  checkPolicy(policy);
  const elapsedDays = (nowMs - lastValidatedMs) / DAY_MS;
  if (elapsedDays <= policy.graceDays) return RULE_START_CONFIDENCE;
  return Math.max(RULE_START_CONFIDENCE * 0.5 ** ((elapsedDays - policy.graceDays) / policy.halfLifeDays), Number.MIN_VALUE);
}

/**
 * The rule after a decay run at `nowMs`: `confidenceScore = ruleConfidenceAt(lastValidatedMs, nowMs)`
 * and `reviewFlagged = reviewFlagged || confidenceScore < REVIEW_THRESHOLD` (a flag is cleared only
 * by `ruleAfterValidation`). Idempotent and path-independent: decaying at day 3 then day 5 equals decaying at day 5.
 */
export function ruleAfterDecay(rule: Rule, nowMs: number, policy: DecayPolicy = DEFAULT_DECAY_POLICY): Rule {
  const ruleConfidence = ruleConfidenceAt(rule.lastValidatedMs, nowMs, policy);
  return { ...rule, confidenceScore: ruleConfidence, reviewFlagged: rule.reviewFlagged || ruleConfidence < REVIEW_THRESHOLD };
}

/** A rule confirmed at `nowMs`: confidence back to 0.9, `validationCount + 1`, last validated and checked now, review flag cleared. */
export function ruleAfterValidation(rule: Rule, nowMs: number): Rule {
  return {
    ...rule,
    confidenceScore: RULE_START_CONFIDENCE,
    validationCount: rule.validationCount + 1,
    lastValidatedMs: nowMs,
    lastCheckedMs: nowMs,
    reviewFlagged: false,
  };
}

/** A rule broken at `nowMs`: `violations + 1`, last checked now; confidence is left to decay. */
export function ruleAfterViolation(rule: Rule, nowMs: number): Rule {
  return { ...rule, violations: rule.violations + 1, lastCheckedMs: nowMs };
}

/**
 * The confidence with which a rule may reach a prompt or the guard at `nowMs`, or null when it may
 * not: it must be active, not flagged for review, in no unresolved conflict (`conflictsWith`
 * empty), and `ruleConfidenceAt(lastValidatedMs, nowMs) ≥ REVIEW_THRESHOLD` (computed from the
 * timestamps, so a missed decay run does not keep a stale rule in).
 */
export function injectableRuleConfidence(rule: Rule, nowMs: number, policy: DecayPolicy = DEFAULT_DECAY_POLICY): number | null {
  if (rule.status !== 'active' || rule.reviewFlagged || rule.conflictsWith.length > 0) return null;
  const ruleConfidence = ruleConfidenceAt(rule.lastValidatedMs, nowMs, policy);
  return ruleConfidence >= REVIEW_THRESHOLD ? ruleConfidence : null;
}

/** `injectableRuleConfidence(rule, nowMs, policy) !== null`. */
export function isInjectable(rule: Rule, nowMs: number, policy: DecayPolicy = DEFAULT_DECAY_POLICY): boolean {
  return injectableRuleConfidence(rule, nowMs, policy) !== null;
}
