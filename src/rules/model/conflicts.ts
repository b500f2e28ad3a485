import type { Rule } from './types';
import { topicVector } from './wording';
import { cosineSimilarity } from '../../shared/similarity';

/**
 * A MUST and a NEVER about the same thing in the same scope contradict each other: the agent
 * cannot follow both. Such pairs are flagged for review and neither reaches a prompt until a
 * human (or a later run) resolves it by retiring or rewording one.
 */

/** Default topic similarity from which a MUST and a NEVER are about the same thing. */
export const DEFAULT_CONFLICT_SIMILARITY = 0.5;

export interface RuleConflict {
  /** The MUST rule's id. */
  mustId: string;
  /** The NEVER rule's id. */
  neverId: string;
  /** Cosine of their topic vectors. */
  similarity: number;
}

/** Scopes overlap: same category, and either rule has no tags or they share a tag. */
export function scopesOverlap(a: Pick<Rule, 'category' | 'tags'>, b: Pick<Rule, 'category' | 'tags'>): boolean {
  if (a.category !== b.category) return false;
  if (a.tags.length === 0 || b.tags.length === 0) return true;
  const tags = new Set(a.tags);
  return b.tags.some((t) => tags.has(t));
}

/**
 * Every conflicting pair among active rules: a MUST `m` and a NEVER `n` with
 * `scopesOverlap(m, n)` and `cos(topicVector(m.rule), topicVector(n.rule)) ≥ threshold`, where the
 * topic drops type cues and negations (`NON_TOPIC_WORDS`), so "Always X" and "Never X" score 1.
 * Rules are grouped by category first, so the work is Σ over categories of |MUST| × |NEVER|.
 * Sorted by MUST id, then NEVER id. `vectorOf` lets a caller pass precomputed topic vectors.
 */
export function findConflicts(
  rules: readonly Rule[],
  threshold = DEFAULT_CONFLICT_SIMILARITY,
  vectorOf: (rule: Rule) => ArrayLike<number> = (rule) => topicVector(rule.rule),
): RuleConflict[] {
  const byCategory = new Map<string, { must: Rule[]; never: Rule[] }>();
  for (const rule of rules) {
    if (rule.status !== 'active' || (rule.type !== 'MUST' && rule.type !== 'NEVER')) continue;
    const group = byCategory.get(rule.category) ?? { must: [], never: [] };
    (rule.type === 'MUST' ? group.must : group.never).push(rule);
    byCategory.set(rule.category, group);
  }
  const conflicts: RuleConflict[] = [];
  for (const { must, never } of byCategory.values()) {
    if (must.length === 0 || never.length === 0) continue;
    const neverVectors = never.map(vectorOf);
    for (const m of must) {
      const mv = vectorOf(m);
      never.forEach((n, i) => {
        if (!scopesOverlap(m, n)) return;
        const similarity = cosineSimilarity(mv, neverVectors[i] as ArrayLike<number>);
        if (similarity >= threshold) conflicts.push({ mustId: m.id, neverId: n.id, similarity });
      });
    }
  }
  return conflicts.sort((a, b) => (a.mustId < b.mustId ? -1 : a.mustId > b.mustId ? 1 : a.neverId < b.neverId ? -1 : a.neverId > b.neverId ? 1 : 0));
}

/**
 * The rules with `conflictsWith` recomputed from `findConflicts` (partner ids, sorted; empty for
 * rules in no conflict, so retiring one side frees the other) and `reviewFlagged = true` for every
 * rule in a conflict (a flag set earlier is left to `ruleAfterValidation` to clear). Order is kept.
 */
export function markConflicts(
  rules: readonly Rule[],
  threshold = DEFAULT_CONFLICT_SIMILARITY,
  vectorOf?: (rule: Rule) => ArrayLike<number>,
): Rule[] {
  const partners = new Map<string, string[]>();
  const add = (id: string, other: string) => partners.set(id, [...(partners.get(id) ?? []), other]);
  for (const c of findConflicts(rules, threshold, vectorOf)) {
    add(c.mustId, c.neverId);
    add(c.neverId, c.mustId);
  }
  return rules.map((rule) => {
    const with_ = [...new Set(partners.get(rule.id) ?? [])].sort();
    return { ...rule, conflictsWith: with_, reviewFlagged: rule.reviewFlagged || with_.length > 0 };
  });
}
