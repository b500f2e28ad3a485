import { z } from 'zod';
import { lexicalVector } from '../../shared/lexical-vector';
import { cosineSimilarity } from '../../shared/similarity';
import { pathText, wireProblems } from '../../shared/wire-text';
import { parseWireTimeMs } from './dates';
import { EXPORT_FORMAT, exportedRule, manifestHash, ruleHash } from './export';
import { nextId } from './rule-lessons';
import { RULE_STATUSES, RULE_TYPES, type Rule } from './types';
import { firstIssue, wireCount, wireDay, wireText } from './wire-fields';

// Seed 003's rule import: an export document (`export.ts`) checked field by field and hash by
// hash, then planned against the rules already held so that nothing is added twice.

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
