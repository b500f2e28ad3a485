import { createHash } from 'node:crypto';
import { isoDay, isoSeconds } from './dates';
import type { RuleSignature, UnsignedMark } from './signing';
import { RULE_TYPES, type Rule, type RuleType } from './types';

/**
 * Seed 003's rule export (v1.4.0): rules carried from one agent to another with a hash per rule
 * and a manifest hash over all of them, checked on import, then merged without duplicates.
 * Dates are `YYYY-MM-DD`, so times travel with day precision; `conflictsWith` is not exported
 * (the importer recomputes it with `markConflicts`). The hashes catch damage to the rules, but
 * they live in the file they protect, so anyone can edit a rule and hash it again: whether an
 * importer trusts the rules is decided by the document's Ed25519 signature (`rule-signing.ts`),
 * which covers every field, metadata included.
 */

export const EXPORT_VERSION = '1.4.0';
export const EXPORT_FORMAT = 'learning-loop-rules';

/** One rule in seed wire fields, plus the extensions `tags` and `status` (for a lossless trip). */
export interface RuleWire {
  id: string;
  type: RuleType;
  category: string;
  rule: string;
  reason: string;
  created: string;
  source_lesson: string;
  violations: number;
  last_checked: string;
  confidence_score: number;
  last_validated: string;
  validation_count: number;
  review_flagged: boolean;
  tags: string[];
  status: Rule['status'];
}

export interface ExportedRule extends RuleWire {
  /** The rule's id in the agent that exported it. */
  _original_id: string;
  /** `ruleHash(rule)`. */
  _hash: string;
}

/** Exhaustive table of the hashed fields; its key order is the canonical order. */
const HASHED_FIELDS: Record<keyof Omit<ExportedRule, '_hash'>, true> = {
  id: true,
  type: true,
  category: true,
  rule: true,
  reason: true,
  created: true,
  source_lesson: true,
  violations: true,
  last_checked: true,
  confidence_score: true,
  last_validated: true,
  validation_count: true,
  review_flagged: true,
  tags: true,
  status: true,
  _original_id: true,
};
export const RULE_HASHED_FIELD_ORDER = Object.keys(HASHED_FIELDS) as (keyof Omit<ExportedRule, '_hash'>)[];

/**
 * `_hash` = the first 16 hex digits of `SHA-256(utf8(JSON.stringify(o)))`, where `o` holds the
 * fields of `RULE_HASHED_FIELD_ORDER` in that order: every field but `_hash` itself. (`_original_id`
 * is covered too, so no field of an exported rule can change unnoticed.)
 */
export function ruleHash(rule: Omit<ExportedRule, '_hash'>): string {
  const canonical = JSON.stringify(Object.fromEntries(RULE_HASHED_FIELD_ORDER.map((f) => [f, rule[f]])));
  return createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, 16);
}

/** `manifest_hash` = hex `SHA-256(utf8(h₁ + h₂ + … + hₙ))` over the rules' `_hash` values in document order (no separator; each is 16 hex digits). */
export function manifestHash(ruleHashes: readonly string[]): string {
  return createHash('sha256').update(ruleHashes.join(''), 'utf8').digest('hex');
}

export function ruleToWire(rule: Rule): RuleWire {
  return {
    id: rule.id,
    type: rule.type,
    category: rule.category,
    rule: rule.rule,
    reason: rule.reason,
    created: isoDay(rule.createdMs),
    source_lesson: rule.sourceLesson,
    violations: rule.violations,
    last_checked: isoDay(rule.lastCheckedMs),
    confidence_score: rule.confidenceScore,
    last_validated: isoDay(rule.lastValidatedMs),
    validation_count: rule.validationCount,
    review_flagged: rule.reviewFlagged,
    tags: [...rule.tags],
    status: rule.status,
  };
}

/** A rule as exported by its own agent: wire fields, `_original_id = id`, and its hash. */
export function exportedRule(rule: Rule): ExportedRule {
  const body = { ...ruleToWire(rule), _original_id: rule.id };
  return { ...body, _hash: ruleHash(body) };
}

export interface RuleExport {
  metadata: {
    export_version: string;
    export_format: string;
    agent_handle: string;
    exported_at: string;
    source_workspace: string;
    filter_applied: boolean;
    filter_category: string | null;
    total_rules_in_source: number;
    exported_rules_count: number;
    manifest_hash: string;
  };
  statistics: {
    categories: Record<string, number>;
    rule_types: Record<RuleType, number>;
    /** Mean `confidence_score` of the exported rules, 2 decimals; 0 when none. */
    avg_confidence: number;
  };
  rules: ExportedRule[];
  /** Added by `signDocument`: the Ed25519 signature over everything else, or a mark that the file is unsigned. */
  signature?: RuleSignature | UnsignedMark;
}

/**
 * The export document of `rules` (in the given order; all statuses, stored confidence as is — decay
 * first for current values), only those of `category` when it is given.
 */
export function exportRules(rules: readonly Rule[], options: { agentHandle: string; nowMs: number; sourceWorkspace: string; category?: string }): RuleExport {
  const chosen = options.category === undefined ? rules : rules.filter((r) => r.category === options.category);
  const exported = chosen.map(exportedRule);
  const categories: Record<string, number> = {};
  const ruleTypes = Object.fromEntries(RULE_TYPES.map((t) => [t, 0])) as Record<RuleType, number>;
  let confidenceSum = 0;
  for (const r of chosen) {
    categories[r.category] = (categories[r.category] ?? 0) + 1;
    ruleTypes[r.type]++;
    confidenceSum += r.confidenceScore;
  }
  return {
    metadata: {
      export_version: EXPORT_VERSION,
      export_format: EXPORT_FORMAT,
      agent_handle: options.agentHandle,
      exported_at: isoSeconds(options.nowMs),
      source_workspace: options.sourceWorkspace,
      filter_applied: options.category !== undefined,
      filter_category: options.category ?? null,
      total_rules_in_source: rules.length,
      exported_rules_count: exported.length,
      manifest_hash: manifestHash(exported.map((r) => r._hash)),
    },
    statistics: {
      categories,
      rule_types: ruleTypes,
      avg_confidence: chosen.length === 0 ? 0 : Math.round((confidenceSum / chosen.length) * 100) / 100,
    },
    rules: exported,
  };
}
