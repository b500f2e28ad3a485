import { categoryOf, salientTags } from './event-category';
import { draftText, type EventDraft, MAX_DRAFT_TEXT_CHARS, type Polarity } from './event-draft';

export { type EventDraft, type Polarity, POLARITIES } from './event-draft';
export { buildFeedbackPrompt, type ContextLine, type FeedbackParseResult, type ModelFeedback, modelFeedbackEvent, parseFeedbackModelOutput } from './feedback-prompt';

/**
 * Finding the feedback in what a person tells the agent, without a language model. These
 * patterns are the cheap pre-filter in front of the model (`looksLikeFeedback`) and, when no
 * model is registered, the whole detector (`explicitFeedbackEvent`). They look for the forms
 * people use to correct or praise: an instruction at the start of a sentence ("never …",
 * "don't …", "next time …"), a verdict ("that's wrong", "that didn't work"), praise ("good job",
 * "perfect", "thanks, that worked"). Ordinary questions and tasks ("what's wrong with my code?",
 * "stop the server") do not match.
 */

/** Where a clause starts: the start of the text or of a line, after sentence punctuation or a dash, or after a joining word. */
const CLAUSE_START = String.raw`(?:^|[\n.!?;:,]\s*|\s[—–-]\s*|\b(?:but|and|so|just|ok|okay)\s+)`;

/** Words that start an instruction about how to behave from now on. */
const INSTRUCTION_HEAD = [
  String.raw`never(?!\s+mind\b)`,
  String.raw`always`,
  String.raw`(?:don['’]?t|do\s+not)(?!\s+(?:you|we|i|they|know|worry)\b)`,
  String.raw`stop\s+(?:\w+ing|doing)\b`,
  String.raw`make\s+sure`,
  String.raw`remember\s+to`,
  String.raw`next\s+time`,
  String.raw`from\s+now\s+on`,
  String.raw`in\s+(?:the\s+)?future`,
  String.raw`you\s+(?:should(?:n['’]?t|\s+not)?|must|need\s+to|were\s+supposed\s+to)(?:\s+have)?\b`,
  String.raw`avoid`,
].join('|');

/** An instruction clause: its head, then everything up to the end of the sentence (a `.!?;` before a space or the end, or a newline). */
const INSTRUCTION = new RegExp(`${CLAUSE_START}((?:please\\s+)?(?:${INSTRUCTION_HEAD})\\b[^\\n]*?)(?=[.!?;]+(?:\\s|$)|\\n|$)`, 'i');

/** The person says the agent got it wrong, without saying what to do instead. */
const CORRECTION = [
  /^\s*(?:no|nope|nah)\s*[,.!]/i,
  /^\s*(?:no|nope)\s+(?:that|it|this|you)\b/i,
  /^\s*wrong\b/i,
  /\b(?:that['’]?s|that\s+is|this\s+is|it['’]?s|it\s+is|you['’]?re|you\s+are|was|were)\s+(?:all\s+|completely\s+|totally\s+)?(?:wrong|incorrect)\b/i,
  /\b(?:that['’]?s|that\s+is|this\s+is|it['’]?s|it\s+is)\s+not\s+(?:right|correct|what\s+i\s+(?:asked|wanted|meant|said))\b/i,
  /\b(?:that|it|this)\s+(?:didn['’]?t|did\s+not|doesn['’]?t|does\s+not)\s+work\b/i,
  /\byou\s+(?:broke|forgot|missed|ignored)\b/i,
  /\bi\s+(?:told|asked)\s+you\b/i,
];

/** The person says the agent did well. */
const PRAISE = [
  /\b(?:good|great|nice|excellent|awesome|well)\s+(?:job|work|done|catch)\b/i,
  /^\s*(?:perfect|exactly|excellent|great|awesome|brilliant|spot\s+on|nailed\s+it)\s*(?:[.!,]|$)/i,
  /\b(?:that['’]?s|that\s+is|that\s+was)\s+(?:exactly\s+)?(?:perfect|correct|exactly\s+(?:it|right|what\s+i\s+(?:wanted|needed|asked\s+for)))\b/i,
  /\b(?:that|it)\s+(?:worked|works\s+now|fixed\s+it|did\s+the\s+trick)\b/i,
];

/** Only routes a message to the model: phrasings that are often feedback but say too little to act on without it. */
const MAYBE_FEEDBACK = [/\b(?:i['’]?d|i\s+would)\s+(?:prefer|rather)\b/i, /\bwhy\s+did\s+you\b/i, /\binstead\s+of\b/i, /\b(?:keep\s+in\s+mind|remember\s+that)\b/i];

/**
 * Cheap pre-filter: true when the text matches a correction, praise or instruction pattern, or
 * one of a few phrasings that are often feedback. Only texts that pass are worth a model call.
 */
export function looksLikeFeedback(text: string): boolean {
  return INSTRUCTION.test(text) || [...CORRECTION, ...PRAISE, ...MAYBE_FEEDBACK].some((p) => p.test(text));
}

/** The instruction in a text, as a sentence: "never use rm -rf in scripts" → "Never use rm -rf in scripts". */
export function instructionOf(text: string): string | null {
  const clause = INSTRUCTION.exec(text)?.[1];
  if (!clause) return null;
  const bare = clause
    .replace(/\s+/g, ' ')
    .replace(/^please\s+/i, '')
    .replace(/^(?:next\s+time|from\s+now\s+on|in\s+(?:the\s+)?future)\s*,?\s*/i, '')
    .replace(/[\s,:—–-]+$/u, '')
    .trim();
  if (bare === '') return null;
  return bare.slice(0, MAX_DRAFT_TEXT_CHARS).replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

/**
 * The degraded mode (no language model): an event draft from explicit patterns, or null.
 * - an instruction ("never …", "next time …") → `feedback`, solution = the instruction; polarity
 *   positive when it comes with praise and no correction ("perfect, always do it like this"),
 *   negative otherwise;
 * - a correction without an instruction ("that's wrong") → `mistake`, negative, no solution;
 * - praise → `success`, positive, no solution.
 * `problem` is the message on one line (bounded); `feedback` is the person's words, unchanged.
 * Category and tags come from the instruction when there is one, else from the whole message.
 */
export function explicitFeedbackEvent(text: string, context: { nowMs: number; source: string }): EventDraft | null {
  const instruction = instructionOf(text);
  const corrected = CORRECTION.some((p) => p.test(text));
  const praised = PRAISE.some((p) => p.test(text));
  if (!instruction && !corrected && !praised) return null;
  const type = instruction ? 'feedback' : corrected ? 'mistake' : 'success';
  const polarity: Polarity = instruction ? (praised && !corrected ? 'positive' : 'negative') : corrected ? 'negative' : 'positive';
  const subject = instruction ?? text;
  return {
    tsMs: context.nowMs,
    type,
    category: categoryOf(subject),
    tags: salientTags(subject),
    problem: draftText(text),
    solution: instruction ?? '',
    evidenceLevel: 'testing',
    source: context.source,
    feedback: text,
    polarity,
  };
}

/**
 * An event for an action the agent ran: a failure is a `mistake` (problem = the error), a success
 * a `success`. Category and tags come from the action's name (`GIT_COMMIT` → git).
 */
export function actionOutcomeEvent(input: { actionName: string; succeeded: boolean; error?: string; nowMs: number; source?: string }): EventDraft {
  const words = input.actionName.replace(/[_\-.]+/g, ' ').toLowerCase();
  const error = input.error?.trim() ? draftText(input.error) : 'no error message';
  return {
    tsMs: input.nowMs,
    type: input.succeeded ? 'success' : 'mistake',
    category: categoryOf(words),
    tags: salientTags(words),
    problem: input.succeeded ? `Ran the action ${input.actionName}` : draftText(`The action ${input.actionName} failed: ${error}`),
    solution: input.succeeded ? `${input.actionName} succeeded` : '',
    evidenceLevel: 'testing',
    source: input.source ?? 'action',
    polarity: input.succeeded ? 'positive' : 'negative',
  };
}
