import { lexicalTokens } from '../../shared/lexical-vector';
import { DEFAULT_DECAY_POLICY, type DecayPolicy, injectableRuleConfidence, ruleAfterViolation, ruleAfterValidation } from './rule-confidence';
import { type PreparedRule, sparseCosine } from './prompt';
import type { Rule } from './types';
import { topicTokens } from './wording';
import { sparseQuery, unitVector } from '../../shared/similarity';

/**
 * The guard: before an action, which rules speak about it; after it, whether each was followed.
 * Logged in seed 003's guard log format (`rule-logs.ts`).
 */

/** Default score from which a rule matches an action. */
export const DEFAULT_GUARD_THRESHOLD = 0.35;
/** Weight of the action naming the rule's category, and of it naming all of the rule's tags. */
export const GUARD_SCOPE_WEIGHT = 0.25;

export interface GuardMatch {
  rule: Rule;
  /** In [0, 1]. */
  score: number;
}

/**
 * How strongly a rule speaks about an action:
 * `min(1, max(cos, 0) + 0.25 × [category is a word of the action] + 0.25 × (rule tags that are
 * words of the action) / (number of rule tags))`, the tag term 0 for a rule without tags; words
 * are `lexicalTokens(actionText)`, cos is between the action's and the rule's vectors (`prepareRule`).
 */
export function guardScore(prepared: PreparedRule, actionWords: ReadonlySet<string>, cosine: number): number {
  const category = actionWords.has(prepared.rule.category) ? 1 : 0;
  const tags = prepared.rule.tags;
  const named = tags.length === 0 ? 0 : tags.filter((t) => actionWords.has(t)).length / tags.length;
  return Math.min(1, Math.max(cosine, 0) + GUARD_SCOPE_WEIGHT * category + GUARD_SCOPE_WEIGHT * named);
}

export interface GuardOptions {
  nowMs: number;
  threshold?: number;
  policy?: DecayPolicy;
}

/**
 * The injectable rules (`injectableRuleConfidence`) whose `guardScore ≥ threshold`, by score (higher
 * first), then id. `actionVector` and the rules' vectors come from the same model.
 */
export function matchRulesForAction(actionText: string, actionVector: ArrayLike<number>, rules: Iterable<PreparedRule>, options: GuardOptions): GuardMatch[] {
  const threshold = options.threshold ?? DEFAULT_GUARD_THRESHOLD;
  const policy = options.policy ?? DEFAULT_DECAY_POLICY;
  const words = new Set(lexicalTokens(actionText));
  const query = sparseQuery(unitVector(actionVector));
  const matches: GuardMatch[] = [];
  for (const p of rules) {
    if (p.vector.length !== actionVector.length) {
      throw new RangeError(`rule ${p.rule.id} has a ${p.vector.length}-dimensional vector, the action ${actionVector.length}: use one model for both`);
    }
    if (injectableRuleConfidence(p.rule, options.nowMs, policy) === null) continue;
    const score = guardScore(p, words, sparseCosine(query, p.vector));
    if (score >= threshold) matches.push({ rule: p.rule, score });
  }
  return matches.sort((a, b) => b.score - a.score || (a.rule.id < b.rule.id ? -1 : a.rule.id > b.rule.id ? 1 : 0));
}

export type RuleVerdict = 'validated' | 'violated' | 'unchanged';

/** Share of a NEVER rule's forbidden words found in the action from which it counts as done. */
export const FORBIDDEN_COVERAGE = 0.6;

/** A NEVER rule's forbidden words: `topicTokens` of its text before any `instead` (the templates' alternative). */
export function forbiddenWords(ruleText: string): string[] {
  return [...new Set(topicTokens(ruleText.split(/\binstead\b/i)[0] ?? ''))];
}

/**
 * What one outcome says about a rule that matched the action:
 * - NEVER: violated when at least `FORBIDDEN_COVERAGE` of `forbiddenWords(rule)` are words of the
 *   action (the forbidden thing was done), whatever the outcome; else validated when the action
 *   succeeded, unchanged when it failed (a failure elsewhere says nothing about this rule);
 * - MUST and CHECK: validated when the action succeeded; violated when it failed (a required
 *   step or check that applied did not keep the action from failing: taken as not followed);
 * - PREFER: validated on success, unchanged on failure (a default is not broken by one failure).
 */
export function judgeRuleOnOutcome(rule: Pick<Rule, 'type' | 'rule'>, outcome: { succeeded: boolean; actionText: string }): RuleVerdict {
  if (rule.type === 'NEVER') {
    const forbidden = forbiddenWords(rule.rule);
    const words = new Set(lexicalTokens(outcome.actionText));
    const found = forbidden.filter((w) => words.has(w)).length;
    if (forbidden.length > 0 && found / forbidden.length >= FORBIDDEN_COVERAGE) return 'violated';
    return outcome.succeeded ? 'validated' : 'unchanged';
  }
  if (outcome.succeeded) return 'validated';
  return rule.type === 'PREFER' ? 'unchanged' : 'violated';
}

/** The rule after a verdict at `nowMs`: `ruleAfterValidation`, `ruleAfterViolation`, or the same rule. */
export function applyVerdict(rule: Rule, verdict: RuleVerdict, nowMs: number): Rule {
  if (verdict === 'validated') return ruleAfterValidation(rule, nowMs);
  if (verdict === 'violated') return ruleAfterViolation(rule, nowMs);
  return rule;
}
