import type { OutcomeLabel } from './outcome';

/** A person telling the agent how a finding turned out, as said in chat. */
export interface LabelRequest {
  findingKey: string;
  label: OutcomeLabel;
}

/**
 * Phrases for each label, tried in this order: "won't fix" must be read before "fix", "reopened"
 * before anything that could match inside it, a false positive before "not a bug" could be read
 * as anything else.
 */
const LABEL_PHRASES: readonly (readonly [OutcomeLabel, RegExp])[] = [
  ['reopened', /\b(?:re-?opened|came back|is back|regressed|reappeared)\b/i],
  ['rejected_fp', /\b(?:false[\s-]?positive|fp|not\s+an?\s+(?:real\s+)?(?:bug|issue|problem|vulnerability))\b/i],
  ['ignored', /\b(?:won'?t\s+fix|wontfix|ignored?|accepted\s+risk)\b/i],
  ['fixed', /\b(?:fixed|has been fixed|patched|resolved)\b/i],
  ['accepted', /\b(?:accepted|confirmed|true\s+positive|is\s+(?:real|valid|legit))\b/i],
];

/** "not fixed", "isn't a false positive", "never confirmed": a negation makes the request unclear, so nothing is recorded. */
const NEGATED = /\b(?:not|isn'?t|wasn'?t|hasn'?t|never|no longer)\s+(?:been\s+|yet\s+|an?\s+)?(?:fixed|patched|resolved|accepted|confirmed|false[\s-]?positive|fp|ignored|re-?opened)\b/i;

const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;
/** Words that start a sentence but never name a finding. */
const NOT_KEYS = new Set(['what', 'which', 'who', 'it', 'this', 'that', 'there', 'here', 'everything', 'nothing', 'something', 'he', 'she', 'they', 'we', 'i', 'you']);

/** The finding's key: quoted or in backticks; else the word after "finding"; else the first word when it is followed by is/was/has/got. */
export function findingKeyIn(text: string): string | null {
  const quoted = /[`"“]([^`"”\n]{1,512})[`"”]/.exec(text);
  if (quoted?.[1]?.trim()) return quoted[1].trim();
  const named = /\bfinding\s+(\S{1,512})/i.exec(text);
  const candidate = named?.[1] ?? /^\s*(\S{1,512})\s+(?:is|was|has|got|had|came|turned|keeps)\b/i.exec(text)?.[1];
  const key = candidate?.replace(TRAILING_PUNCTUATION, '');
  return key && !NOT_KEYS.has(key.toLowerCase()) ? key : null;
}

/**
 * Reads "finding X is a false positive", "X was fixed", "`X` is a won't fix" and the like. Null
 * when no label phrase, a negated one, or no finding key is found: the caller asks rather than
 * guessing. The key is only a candidate: the caller must find it among known findings.
 */
export function parseLabelRequest(text: string): LabelRequest | null {
  const findingKey = findingKeyIn(text);
  if (!findingKey) return null;
  // The key itself may contain words like "fp" or "fixed": only the rest of the sentence says the label.
  const rest = text.split(findingKey).join(' ');
  if (NEGATED.test(rest)) return null;
  const label = LABEL_PHRASES.find(([, pattern]) => pattern.test(rest))?.[0];
  return label ? { findingKey, label } : null;
}
