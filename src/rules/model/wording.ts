import { lexicalTokens, lexicalVector } from '../../shared/lexical-vector';
import type { RuleType } from './types';

/**
 * What the words of a rule say about its type and its topic, without a model. The type comes
 * from how the text starts ("Never …", "Always …", "Check …", "Prefer …"); the topic is the text
 * without those words and without negations, so "Never force-push to main" and "Always
 * force-push to main" have the same topic (and conflict).
 */

/** Leading cues, tried in this order (the first match decides): "must not" is NEVER before "must" is MUST. */
export const TYPE_CUES: readonly (readonly [RegExp, RuleType])[] = [
  [/^(never|don't|dont|do not|avoid|stop|no longer|must not|mustn't|should not|shouldn't)\b/, 'NEVER'],
  [/^(always|must|make sure|ensure|required)\b/, 'MUST'],
  [/^(check|verify|confirm|test|validate|double[- ]check)\b/, 'CHECK'],
  [/^(prefer|favou?r|use|try|consider)\b/, 'PREFER'],
];

/** The type a text's first words name (case-insensitive, after trimming), or null. */
export function typeCue(text: string): RuleType | null {
  const head = text.trim().toLowerCase().replace(/’/g, "'");
  for (const [pattern, type] of TYPE_CUES) if (pattern.test(head)) return type;
  return null;
}

/**
 * Words left out of a topic: type cues, negations and modal verbs (as `lexicalTokens` splits
 * them: "don't" is `don` + `t`), and the words of the rule templates (`instead`).
 */
export const NON_TOPIC_WORDS: ReadonlySet<string> = new Set([
  'never', 'not', 'no', 'don', 'dont', 't', 'do', 'does', 'doesn', 'avoid', 'stop', 'longer',
  'always', 'must', 'mustn', 'should', 'shouldn', 'ensure', 'make', 'sure', 'required',
  'check', 'verify', 'confirm', 'validate', 'prefer', 'favor', 'favour', 'instead',
]);

/** `lexicalTokens(text)` without `NON_TOPIC_WORDS`. */
export function topicTokens(text: string): string[] {
  return lexicalTokens(text).filter((t) => !NON_TOPIC_WORDS.has(t));
}

/** `lexicalVector` of the topic tokens: what a rule is about, whichever way it points. */
export function topicVector(text: string): number[] {
  return lexicalVector(topicTokens(text).join(' '));
}
