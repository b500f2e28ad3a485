import { createHash } from 'node:crypto';
import { z } from 'zod';
import { lexicalVector } from '../../shared/lexical-vector';
import { isoDay, isoSeconds, parseWireTimeMs } from './dates';
import { nextId } from './rule-lessons';
import type { RuleSignature, UnsignedMark } from './signing';
import { firstIssue, wireCount, wireDay, wireText } from './wire-fields';
import { RULE_STATUSES, RULE_TYPES, type Rule, type RuleType } from './types';
import { cosineSimilarity } from '../../shared/similarity';
import { pathText, wireProblems } from '../../shared/wire-text';

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

const exportedRuleSchema = z.object({
  id: wireText('id').regex(/^R-\d{3,}$/, 'id must look like R-001'),
  type: z.enum(RULE_TYPES, { errorMap: () => ({ message: `type must be one of ${RULE_TYPES.join(', ')}` }) }),
  category: wireText('category').min(1, 'category must not be empty'),
  rule: wireText('rule').min(1, 'rule must not be empty'),
  reason: wireText('reason'),
  created: wireDay('created'),
  source_lesson: wireText('source_lesson'),
  violations: wireCount('violations'),
  last_checked: wireDay('last_checked'),
  confidence_score: z.number({ required_error: 'confidence_score is required', invalid_type_error: 'confidence_score must be a number in [0,1]' }).min(0, 'confidence_score must be in [0,1]').max(1, 'confidence_score must be in [0,1]'),
  last_validated: wireDay('last_validated'),
  validation_count: wireCount('validation_count'),
  review_flagged: z.boolean({ required_error: 'review_flagged is required', invalid_type_error: 'review_flagged must be true or false' }),
  tags: z.array(wireText('each tag'), { invalid_type_error: 'tags must be an array of strings' }),
  status: z.enum(RULE_STATUSES, { errorMap: () => ({ message: `status must be one of ${RULE_STATUSES.join(', ')}` }) }),
  _original_id: wireText('_original_id').min(1, '_original_id must not be empty'),
  _hash: wireText('_hash').regex(/^[0-9a-f]{16}$/, '_hash must be 16 hex digits'),
});

const exportDocumentSchema = z.object({
  metadata: z.object({
    export_version: wireText('metadata.export_version'),
    export_format: z.literal(EXPORT_FORMAT, { errorMap: () => ({ message: `metadata.export_format must be ${EXPORT_FORMAT}` }) }),
    exported_rules_count: wireCount('metadata.exported_rules_count'),
    manifest_hash: wireText('metadata.manifest_hash').regex(/^[0-9a-f]{64}$/, 'metadata.manifest_hash must be 64 hex digits'),
  }),
  rules: z.array(z.unknown(), { required_error: 'rules is required', invalid_type_error: 'rules must be an array' }),
});

export type ImportErrorCode = 'invalid_document' | 'invalid_rule' | 'bad_hash' | 'duplicate_id' | 'bad_manifest' | 'count_mismatch' | 'invalid_signature' | 'bad_signature';

export interface ImportError {
  ok: false;
  code: ImportErrorCode;
  /** The bad rule's id as written (when it has a string id) and its 0-based index. */
  ruleId?: string;
  index?: number;
  field?: string;
  message: string;
}

export interface ImportedRule {
  /** The rule as exported, `conflictsWith` empty. */
  rule: Rule;
  originalId: string;
  hash: string;
}

export type ImportCheck = { ok: true; rules: ImportedRule[] } | ImportError;

function fromWire(w: z.output<typeof exportedRuleSchema>): Rule {
  return {
    id: w.id,
    type: w.type,
    category: w.category,
    tags: [...w.tags],
    rule: w.rule,
    reason: w.reason,
    createdMs: parseWireTimeMs(w.created) as number,
    sourceLesson: w.source_lesson,
    violations: w.violations,
    lastCheckedMs: parseWireTimeMs(w.last_checked) as number,
    lastValidatedMs: parseWireTimeMs(w.last_validated) as number,
    validationCount: w.validation_count,
    confidenceScore: w.confidence_score,
    reviewFlagged: w.review_flagged,
    status: w.status,
    conflictsWith: [],
  };
}

/**
 * Checks an export document and names the first problem, in this order: the document's shape
 * (`invalid_document`); each rule's shape in order (`invalid_rule`, with its field: text that cannot
 * be stored (`wireProblems`), then the schema; dates in 1970-01-01 .. 2100-12-31); each rule's
 * `_hash` against `ruleHash` (`bad_hash`: a field was changed); ids unique (`duplicate_id`);
 * `manifest_hash` against `manifestHash` of the rules' hashes in order (`bad_manifest`: a rule
 * was added, removed, replaced or moved); `exported_rules_count` = number of rules (`count_mismatch`).
 */
export function verifyImport(doc: unknown): ImportCheck {
  const shape = exportDocumentSchema.safeParse(doc);
  if (!shape.success) {
    return { ok: false, code: 'invalid_document', ...firstIssue(shape.error, '(document)') };
  }
  const parsed: z.output<typeof exportedRuleSchema>[] = [];
  for (const [index, raw] of shape.data.rules.entries()) {
    const rawId = raw !== null && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : undefined;
    const at = { index, ...(rawId !== undefined ? { ruleId: rawId } : {}) };
    const [unstorable] = wireProblems(raw);
    if (unstorable) {
      return { ok: false, code: 'invalid_rule', ...at, field: pathText(unstorable.path, '(rule)'), message: `rule ${rawId ?? `#${index}`}: ${unstorable.message}` };
    }
    const rule = exportedRuleSchema.safeParse(raw);
    if (!rule.success) {
      const { field, message } = firstIssue(rule.error, '(rule)');
      return { ok: false, code: 'invalid_rule', ...at, field, message: `rule ${rawId ?? `#${index}`}: ${message}` };
    }
    if (ruleHash(rule.data) !== rule.data._hash) {
      return { ok: false, code: 'bad_hash', ...at, field: '_hash', message: `rule ${rule.data.id}: _hash does not match its fields: the rule was changed after export` };
    }
    parsed.push(rule.data);
  }
  const seen = new Set<string>();
  for (const [index, r] of parsed.entries()) {
    if (seen.has(r.id)) return { ok: false, code: 'duplicate_id', index, ruleId: r.id, field: 'id', message: `rule ${r.id} appears more than once` };
    seen.add(r.id);
  }
  if (manifestHash(parsed.map((r) => r._hash)) !== shape.data.metadata.manifest_hash) {
    return { ok: false, code: 'bad_manifest', field: 'metadata.manifest_hash', message: 'manifest_hash does not match the rules: a rule was added, removed, replaced or moved' };
  }
  if (shape.data.metadata.exported_rules_count !== parsed.length) {
    return { ok: false, code: 'count_mismatch', field: 'metadata.exported_rules_count', message: `exported_rules_count is ${shape.data.metadata.exported_rules_count} but the document holds ${parsed.length} rules` };
  }
  return { ok: true, rules: parsed.map((r) => ({ rule: fromWire(r), originalId: r._original_id, hash: r._hash })) };
}

/**
 * Rules from a file no trusted key signed: each active rule becomes a `candidate` (shown, never in
 * a prompt until a trusted person approves it); retired, rejected and candidate rules stay as they are.
 */
export function asCandidates(rules: readonly ImportedRule[]): ImportedRule[] {
  return rules.map((r) => (r.rule.status === 'active' ? { ...r, rule: { ...r.rule, status: 'candidate' } } : r));
}

/** Default text cosine from which an imported rule duplicates an existing one of the same type and category. */
export const DEFAULT_IMPORT_SIMILARITY = 0.85;

export type ImportStep =
  | { action: 'skip'; originalId: string; duplicateOf: string; reason: 'same_hash' | 'similar_text' }
  | { action: 'add'; originalId: string; rule: Rule };

/**
 * What to do with each verified rule, in order. Skipped as a duplicate of a kept rule (existing,
 * or added earlier in this plan): the same `exportedRule(...)._hash` (`same_hash`), or the same
 * type and category with `cos(vectorOf(a), vectorOf(b)) ≥ similarityThreshold` (`similar_text`,
 * the most similar named). Otherwise added with a new id `nextId('R', existing and assigned ids)`;
 * `originalId` keeps the source agent's id. `vectorOf` defaults to `lexicalVector(rule.rule)`.
 */
export function planImport(
  imported: readonly ImportedRule[],
  existing: readonly Rule[],
  options: { similarityThreshold?: number; vectorOf?: (rule: Rule) => ArrayLike<number> } = {},
): ImportStep[] {
  const threshold = options.similarityThreshold ?? DEFAULT_IMPORT_SIMILARITY;
  const vectorOf = options.vectorOf ?? ((rule: Rule) => lexicalVector(rule.rule));
  const byHash = new Map<string, string>();
  const byScope = new Map<string, { id: string; vector: ArrayLike<number> }[]>();
  const keep = (rule: Rule, hash: string) => {
    byHash.set(hash, rule.id);
    const scope = `${rule.type}\u0000${rule.category}`;
    const kept = byScope.get(scope) ?? [];
    kept.push({ id: rule.id, vector: vectorOf(rule) });
    byScope.set(scope, kept);
  };
  for (const rule of existing) keep(rule, exportedRule(rule)._hash);
  let next = nextId('R', existing.map((r) => r.id));
  return imported.map((item): ImportStep => {
    const sameHash = byHash.get(item.hash);
    if (sameHash !== undefined) return { action: 'skip', originalId: item.originalId, duplicateOf: sameHash, reason: 'same_hash' };
    const vector = vectorOf(item.rule);
    let best: { id: string; similarity: number } | null = null;
    for (const kept of byScope.get(`${item.rule.type}\u0000${item.rule.category}`) ?? []) {
      const similarity = cosineSimilarity(vector, kept.vector);
      if (similarity >= threshold && (best === null || similarity > best.similarity)) best = { id: kept.id, similarity };
    }
    if (best !== null) return { action: 'skip', originalId: item.originalId, duplicateOf: best.id, reason: 'similar_text' };
    const rule = { ...item.rule, id: next, conflictsWith: [] };
    next = nextId('R', [next]);
    keep(rule, item.hash);
    return { action: 'add', originalId: item.originalId, rule };
  });
}
