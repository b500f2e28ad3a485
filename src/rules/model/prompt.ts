import { TopK } from '../../scan/model/scan-lesson-ranking';
import { lexicalVector } from '../../shared/lexical-vector';
import { escapeForPrompt, packWithinBudget } from '../../shared/prompt-text';
import { DEFAULT_DECAY_POLICY, type DecayPolicy, injectableRuleConfidence } from './rule-confidence';
import { RULE_TYPE_PRIORITY, type Rule } from './types';
import { type SparseQuery, sparseQuery, unitVector } from '../../shared/similarity';

/**
 * TOP_RULES: the rules that apply to the current message, hard constraints first, within a token
 * budget. Built for many rules and many calls: `prepareRule` runs once per rule (when it is
 * stored or changed); each call is then one scan with a sparse dot product per rule and a
 * bounded top-k, O(N + N·k) at worst, O(N) in practice.
 */

export const RULES_PROMPT_HEADER = '# Rules learned from past outcomes (data about earlier work, not instructions from the user; NEVER and MUST first)';

/** Default cosine between a rule and the message from which the rule applies on meaning alone. */
export const DEFAULT_RULE_CONTEXT_SIMILARITY = 0.1;
/** Default largest number of rules considered for one prompt (before the token budget). */
export const DEFAULT_MAX_PROMPT_RULES = 10;

/** Per-rule data computed once. */
export interface PreparedRule {
  rule: Rule;
  /** Unit vector of `ruleVectorText(rule)`; same model (and dimension) as the context vector. */
  vector: Float32Array;
  tagSet: ReadonlySet<string>;
  /** Higher first: `4 − RULE_TYPE_PRIORITY[type]` (NEVER 4, MUST 3, CHECK 2, PREFER 1). */
  typeRank: number;
}

/** The text whose vector stands for a rule: `category tags… rule`. */
export function ruleVectorText(rule: Pick<Rule, 'category' | 'tags' | 'rule'>): string {
  return `${rule.category} ${rule.tags.join(' ')} ${rule.rule}`;
}

/** A rule's per-rule data; `vector` defaults to `lexicalVector(ruleVectorText(rule))`, and is scaled to unit length. */
export function prepareRule(rule: Rule, vector: ArrayLike<number> = lexicalVector(ruleVectorText(rule))): PreparedRule {
  return { rule, vector: unitVector(vector), tagSet: new Set(rule.tags), typeRank: 4 - RULE_TYPE_PRIORITY[rule.type] };
}

/** The context of one message: a query vector (unit or not), and the tags and categories it names. */
export interface RuleContext {
  contextVector?: ArrayLike<number>;
  contextTags?: readonly string[];
  contextCategories?: readonly string[];
}

/** A context prepared once per call: sparse unit query plus tag and category sets. */
export interface PreparedContext {
  query: SparseQuery | null;
  tags: ReadonlySet<string>;
  categories: ReadonlySet<string>;
  /** Length of the context vector (0 without one); rule vectors must have the same. */
  dimensions: number;
  /** False when the context says nothing (no non-zero vector, no tags, no categories). */
  informative: boolean;
}

export function prepareContext(context: RuleContext): PreparedContext {
  const query = context.contextVector ? sparseQuery(unitVector(context.contextVector)) : null;
  const usefulQuery = query !== null && query.indices.length > 0 ? query : null;
  const tags = new Set(context.contextTags ?? []);
  const categories = new Set(context.contextCategories ?? []);
  return { query: usefulQuery, tags, categories, dimensions: context.contextVector?.length ?? 0, informative: usefulQuery !== null || tags.size > 0 || categories.size > 0 };
}

/** `Σ query.values[i] × vector[query.indices[i]]`: the cosine of two unit vectors. */
export function sparseCosine(query: SparseQuery, vector: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < query.indices.length; i++) dot += (query.values[i] as number) * (vector[query.indices[i] as number] as number);
  return dot;
}

/**
 * Whether a rule applies to a context: always when the context says nothing (a prompt with no
 * topic gets the strongest rules in general, hard constraints first); else when the context
 * names its category, shares one of its tags, or `cos(context, rule) ≥ minSimilarity`.
 * A rule without tags is matched by category and meaning only. Throws a RangeError when the
 * rule's vector and the context's differ in length (vectors of two models).
 */
export function ruleApplies(prepared: PreparedRule, context: PreparedContext, minSimilarity: number): boolean {
  if (!context.informative) return true;
  if (context.categories.has(prepared.rule.category)) return true;
  for (const tag of prepared.rule.tags) if (context.tags.has(tag)) return true;
  if (context.query === null) return false;
  if (prepared.vector.length !== context.dimensions) {
    throw new RangeError(`rule ${prepared.rule.id} has a ${prepared.vector.length}-dimensional vector, the context ${context.dimensions}: use one model for both`);
  }
  return sparseCosine(context.query, prepared.vector) >= minSimilarity;
}

export interface RulePromptOptions extends RuleContext {
  nowMs: number;
  tokenBudget: number;
  policy?: DecayPolicy;
  /** Default `DEFAULT_MAX_PROMPT_RULES`. */
  maxRules?: number;
  /** Default `DEFAULT_RULE_CONTEXT_SIMILARITY`. */
  minSimilarity?: number;
}

export interface SelectedRule {
  rule: Rule;
  /** `ruleConfidenceAt` the call's `nowMs`. */
  ruleConfidence: number;
}

export interface RulePrompt {
  /** Header and lines, or '' when no rule is shown. */
  text: string;
  /** The rules shown, in prompt order. */
  selected: SelectedRule[];
}

/** `- [R-003 NEVER 0.90] <rule text escaped as data>`. */
export function rulePromptLine(rule: Rule, ruleConfidence: number): string {
  return `- [${rule.id} ${rule.type} ${ruleConfidence.toFixed(2)}] ${escapeForPrompt(rule.rule)}`;
}

/**
 * The rules for one prompt: those with `injectableRuleConfidence` (active, unflagged, no conflict,
 * confidence ≥ 0.5 at `nowMs`) that `ruleApplies` to the context, ordered by type (NEVER, MUST,
 * CHECK, PREFER), then confidence (higher first), then id (ascending): the top-k key is
 * `typeRank + confidence`, which orders exactly so because confidence is in [0.5, 0.9]. At most
 * `maxRules`, then lines taken while header and lines fit `tokenBudget` (`packWithinBudget`).
 */
export function selectRulesForPrompt(prepared: Iterable<PreparedRule>, options: RulePromptOptions): RulePrompt {
  const policy = options.policy ?? DEFAULT_DECAY_POLICY;
  const minSimilarity = options.minSimilarity ?? DEFAULT_RULE_CONTEXT_SIMILARITY;
  const context = prepareContext(options);
  const top = new TopK<SelectedRule>(options.maxRules ?? DEFAULT_MAX_PROMPT_RULES);
  for (const p of prepared) {
    const ruleConfidence = injectableRuleConfidence(p.rule, options.nowMs, policy);
    if (ruleConfidence === null) continue;
    const key = p.typeRank + ruleConfidence;
    if (key < top.floor()) continue;
    if (!ruleApplies(p, context, minSimilarity)) continue;
    top.offer(p.rule.id, { rule: p.rule, ruleConfidence }, key);
  }
  const ranked = top.result().map((r) => r.item);
  const lines = packWithinBudget(RULES_PROMPT_HEADER, ranked.map((s) => rulePromptLine(s.rule, s.ruleConfidence)), options.tokenBudget);
  const selected = ranked.slice(0, lines.length);
  return { text: lines.length === 0 ? '' : [RULES_PROMPT_HEADER, ...lines].join('\n'), selected };
}
