import { type ActionResult, type Evaluator, type IAgentRuntime, type Memory, ModelType } from '@elizaos/core';
import { loadConfig } from '../../shared/config';
import { answerVerdictOf } from '../../elo/model/answer-verdict';
import type { EventDraft } from '../model/event-draft';
import { explicitFeedbackEvent, looksLikeFeedback } from '../model/feedback-detect';
import { buildFeedbackPrompt, type ContextLine, MAX_PROMPT_CONTEXT_LINES, MAX_PROMPT_MESSAGE_CHARS, modelFeedbackEvent, parseFeedbackModelOutput } from '../model/feedback-prompt';
import { settleAnswerVerdict } from '../../elo/conversation-elo';
import type { RuleBookService } from '../rule-book-service';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { trustOf } from '../../shared/speaker-trust';
import { errorText } from '../../shared/error-text';

const LOG_SRC = 'plugin:self-improve:rules';
/** The `source` of events this evaluator records. */
export const FEEDBACK_EVENT_SOURCE = 'chat';

/** The text of a message a person sent (not the agent itself), or null. */
function personText(runtime: IAgentRuntime, message: Memory): string | null {
  if (message.entityId === runtime.agentId) return null;
  const text = message.content?.text;
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}

/**
 * The conversation before the message, oldest first: at most `MAX_PROMPT_CONTEXT_LINES` messages
 * of the room with text, none newer than the message. One bounded read; a failed read is logged
 * and gives no context (the message alone is still classified).
 */
async function recentContext(runtime: IAgentRuntime, message: Memory): Promise<ContextLine[]> {
  try {
    const memories = await runtime.getMemories({ tableName: 'messages', roomId: message.roomId, count: MAX_PROMPT_CONTEXT_LINES + 1 });
    const before = message.createdAt ?? Number.POSITIVE_INFINITY;
    return memories
      .filter((m) => m.id !== message.id && (m.createdAt ?? 0) <= before && typeof m.content?.text === 'string' && m.content.text.trim() !== '')
      .sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0))
      .slice(-MAX_PROMPT_CONTEXT_LINES)
      .map((m) => ({ role: m.entityId === runtime.agentId ? 'agent' : 'person', text: m.content.text as string }));
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'could not read the recent conversation; classifying the message alone');
    return [];
  }
}

/**
 * The event a person's message makes, or null when it teaches nothing:
 * - a TEXT_SMALL model is registered and `SELF_IMPROVE_LESSON_MODEL` is not `off`: the model
 *   classifies (`buildFeedbackPrompt` with the recent conversation, `parseFeedbackModelOutput`);
 *   its `none` records nothing; a failed call or an answer that does not parse is logged and the
 *   explicit patterns decide instead;
 * - otherwise the explicit patterns (`explicitFeedbackEvent`).
 * Either way the person's words are the event's `feedback`, unchanged.
 */
async function feedbackDraft(runtime: IAgentRuntime, message: Memory, text: string, nowMs: number): Promise<{ draft: EventDraft | null; via: 'model' | 'patterns' }> {
  const patterns = () => ({ draft: explicitFeedbackEvent(text, { nowMs, source: FEEDBACK_EVENT_SOURCE }), via: 'patterns' as const });
  if (loadConfig(runtime).SELF_IMPROVE_LESSON_MODEL === 'off' || !runtime.getModel(ModelType.TEXT_SMALL)) return patterns();
  let answer: string;
  try {
    const prompt = buildFeedbackPrompt(text, await recentContext(runtime, message));
    answer = String(await runtime.useModel(ModelType.TEXT_SMALL, { prompt, temperature: 0 }));
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'feedback model call failed; explicit patterns used');
    return patterns();
  }
  const parsed = parseFeedbackModelOutput(answer);
  if (!parsed.ok) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, code: parsed.error.code, problem: parsed.error.message }, 'feedback model answer did not parse; explicit patterns used');
    return patterns();
  }
  return { draft: parsed.feedback === null ? null : modelFeedbackEvent(parsed.feedback, { text, nowMs, source: FEEDBACK_EVENT_SOURCE }), via: 'model' };
}

/**
 * FEEDBACK_EXTRACTOR (seed 003 events from conversation): after a person's message that corrects
 * or praises the agent, records an event (`feedback`, `mistake`, `success`, …) in the rule book,
 * where confirmations become a lesson and then a rule. The event carries who said it and whether
 * they were trusted (`trustOf`): only trusted people's confirmations, at most one per person per
 * day, count toward promotion; what anyone else teaches is a candidate rule, shown but never in a
 * prompt until a trusted person approves it. Praise or a correction from a trusted person also
 * judges the agent's previous answer in the ELO book (`settleAnswerVerdict`): the items in that
 * answer's prompt win or lose, once per answer. Runs whether or not the agent answered (`alwaysRun`). `validate` is the cheap pre-filter: a message from a person (not the
 * agent) whose first `MAX_PROMPT_MESSAGE_CHARS` characters `looksLikeFeedback`; no I/O, no model.
 * The event's time is the message's `createdAt`, so evaluating the same message again records
 * nothing new (same event id). Never throws: a failure is logged and the message goes on.
 */
export const feedbackExtractor: Evaluator = {
  name: 'FEEDBACK_EXTRACTOR',
  similes: ['LEARN_FROM_FEEDBACK', 'FEEDBACK_EVENT_EXTRACTOR'],
  description: 'Turns a person correcting or praising the agent into a learning event (with the exact words) in the rule book.',
  alwaysRun: true,
  examples: [
    {
      prompt: 'The agent proposed a deploy script that cleans up with rm -rf.',
      messages: [{ name: '{{name1}}', content: { text: 'No — never run rm -rf in deploy scripts.' } }],
      outcome: 'A feedback event in category shell with the solution "Never run rm -rf in deploy scripts" and the person\'s words as feedback.',
    },
  ],
  validate: async (runtime: IAgentRuntime, message: Memory) => {
    const text = personText(runtime, message);
    return text !== null && looksLikeFeedback(text.slice(0, MAX_PROMPT_MESSAGE_CHARS));
  },
  handler: async (runtime: IAgentRuntime, message: Memory): Promise<ActionResult> => {
    try {
      const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
      const text = personText(runtime, message);
      if (!book || text === null) return { success: false, error: book ? 'not a message from a person' : 'rule book is not running' };
      const { draft, via } = await feedbackDraft(runtime, message, text, message.createdAt ?? Date.now());
      if (!draft) return { success: true, text: 'no feedback in the message', data: { via, eventIds: [] } };
      const trust = await trustOf(runtime, message);
      const verdict = answerVerdictOf(draft);
      const judged = verdict ? await settleAnswerVerdict(runtime, message, verdict, trust.trusted) : null;
      const result = await book.recordDraft(draft, FEEDBACK_EVENT_SOURCE, { teacher: { entityId: message.entityId, trusted: trust.trusted } });
      const eventIds = result.events.map((e) => e.id);
      if (result.rejected.length > 0) runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, messageId: message.id, rejected: result.rejected }, 'feedback event was rejected');
      const summary = `recorded a ${draft.type} event${trust.trusted ? '' : ' from someone who may not teach: what it teaches stays a candidate until a trusted person approves it'}`;
      return { success: true, text: summary, data: { via, eventIds, trusted: trust.trusted, verdict, answeredMessageId: judged?.answeredMessageId ?? null, itemsJudged: judged?.moved.length ?? 0, rulesPromoted: result.rulesPromoted, candidates: result.candidates, rejected: result.rejected } };
    } catch (error) {
      const problem = errorText(error);
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, messageId: message.id, error: problem }, 'feedback extraction failed; the message goes on without it');
      return { success: false, error: problem };
    }
  },
};
