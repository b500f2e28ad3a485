/**
 * A person asking in chat to validate, retire, approve or reject a rule by id ("validate rule
 * R-003", "R-003 still holds", "retire rule R-002", "drop R-002", "approve candidate R-004",
 * "reject rule R-005"). Read with patterns, no model: a sentence that is negated, names no rule id
 * or several, or asks for two of these is not a request, so nothing is done.
 */

export const RULE_REQUEST_VERBS = ['validate', 'retire', 'approve', 'reject'] as const;
export type RuleRequestVerb = (typeof RULE_REQUEST_VERBS)[number];

export interface RuleRequest {
  verb: RuleRequestVerb;
  /** Normalised `R-003` style id; only a candidate: the caller must find it among known rules. */
  ruleId: string;
}

/** `R-3`, `r-003`, `R003` → `R-003` (at least 3 digits, as the rule book numbers them). */
const RULE_ID = /\b[Rr]-?(\d{1,6})\b/g;

const idOfDigits = (digits: string) => `R-${String(Number(digits)).padStart(3, '0')}`;

export function normaliseRuleId(raw: string): string | null {
  const m = /^\s*[Rr]-?(\d{1,6})\s*$/.exec(raw);
  return m ? idOfDigits(m[1] as string) : null;
}

/** Phrases per verb; `RULEIDMARK` stands for the rule id (replaced by that marker in the text first). */
const VERB_PHRASES: Record<RuleRequestVerb, readonly RegExp[]> = {
  validate: [
    /\b(?:validate|confirm|revalidate|re-validate|reconfirm)\s+(?:the\s+)?(?:rule\s+)?RULEIDMARK\b/i,
    /\bRULEIDMARK\s+(?:still\s+)?(?:holds|applies|stands|is\s+(?:still\s+)?(?:right|correct|valid|true|good|accurate))\b/i,
    /\bRULEIDMARK\s+(?:is\s+)?still\s+(?:right|correct|valid|true|good|accurate)\b/i,
  ],
  retire: [
    /\b(?:retire|drop|remove|delete|discard|deprecate|scrap|forget)\s+(?:the\s+)?(?:rule\s+)?RULEIDMARK\b/i,
    /\bRULEIDMARK\s+(?:is\s+)?(?:obsolete|outdated|no\s+longer\s+needed|not\s+needed\s+anymore)\b/i,
  ],
  approve: [
    /\b(?:approve|accept|endorse|promote)\s+(?:the\s+)?(?:candidate\s+)?(?:rule\s+)?(?:candidate\s+)?RULEIDMARK\b/i,
    /\bRULEIDMARK\s+(?:is\s+)?approved\b/i,
  ],
  reject: [
    /\b(?:reject|decline|refuse|deny)\s+(?:the\s+)?(?:candidate\s+)?(?:rule\s+)?(?:candidate\s+)?RULEIDMARK\b/i,
    /\bRULEIDMARK\s+(?:is\s+)?rejected\b/i,
  ],
};

/**
 * Negations anywhere in the sentence: "don't retire R-002", "never drop R-002", "R-003 no longer
 * holds", "R-003 isn't right", "R-003 doesn't hold". ("no longer needed" is itself a retire phrase,
 * so it is taken out before this test.)
 */
const NEGATION = /\b(?:not|don'?t|do\s+not|never|no\s+longer|isn'?t|doesn'?t|does\s+not|won'?t|shouldn'?t|can'?t|cannot|stop\s+(?:validating|retiring))\b/i;

/** Stands for the rule id in the phrases above (a word no sentence uses). */
const MARKER = 'RULEIDMARK';

/** Words of each verb anywhere in the sentence: "validate R-3, then retire it" names both, so it is unclear. */
const VERB_WORDS: Record<RuleRequestVerb, RegExp> = {
  validate: /\b(?:validat|revalidat|confirm|reconfirm)\w*/i,
  retire: /\b(?:retir|drop|remov|delet|discard|deprecat|scrap|forget|obsolete|outdated)\w*/i,
  approve: /\b(?:approv|accept|endors|promot)\w*/i,
  reject: /\b(?:reject|declin|refus|deny|denie)\w*/i,
};

/**
 * Reads a validate, retire, approve or reject request. Null unless exactly one rule id is named, exactly one verb's
 * phrase matches around it, no word of the other verb appears, and the sentence carries no negation.
 */
export function parseRuleRequest(text: string): RuleRequest | null {
  const normalised = text.replace(/’/g, "'");
  const ids = new Set([...normalised.matchAll(RULE_ID)].map((m) => idOfDigits(m[1] as string)));
  if (ids.size !== 1) return null;
  const marked = normalised.replace(RULE_ID, MARKER);
  const verbs = (Object.keys(VERB_PHRASES) as RuleRequestVerb[]).filter((verb) => VERB_PHRASES[verb].some((p) => p.test(marked)));
  if (verbs.length !== 1 || Object.values(VERB_WORDS).filter((w) => w.test(marked)).length > 1) return null;
  if (NEGATION.test(marked.replace(/\bno\s+longer\s+needed\b|\bnot\s+needed\s+anymore\b/gi, ''))) return null;
  return { verb: verbs[0] as RuleRequestVerb, ruleId: [...ids][0] as string };
}
