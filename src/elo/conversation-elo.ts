import { createUniqueUuid, type IAgentRuntime, type Memory } from '@elizaos/core';
import { type AnswerVerdict, answeredMessageId, REWARD_BY_VERDICT } from './model/answer-verdict';
import { type ItemRef, messageContextId } from './model/exposures';
import type { EloBookService } from './elo-book-service';
import { ELO_BOOK_SERVICE } from '../shared/service-names';
import { errorText } from '../shared/error-text';

const LOG_SRC = 'plugin:self-improve:elo';

/** Messages of the room read to find the previous answer (newest first, up to the judging message). */
export const RECENT_MESSAGES_READ = 20;

/** What a verdict did in the ELO book. */
export interface VerdictSettlement {
  /** The person's message whose answer was judged, or null when none was found (or the speaker may not judge). */
  answeredMessageId: string | null;
  /** The items of that answer's prompt that moved; empty when they were already judged. */
  moved: ItemRef[];
}

/**
 * A person's praise or correction settles the items that were in the prompt of the agent's
 * previous answer: praise (`answer_praised`) is a win for each, a correction (`answer_corrected`)
 * a loss that also takes back the rank boosts they got there. Only trusted speakers judge
 * (`trusted`, from `trustOf`): anyone else's verdict moves nothing and leaves the answer to be
 * judged. The context is forgotten once settled, so an answer is judged once, however many
 * messages praise it or evaluators (or re-runs) see them; the forgetting is stored with the ELO
 * batches, so it holds across a restart. Nothing when the ELO book is not running; a failed read
 * of the conversation is logged and judges nothing. Never throws for want of data.
 */
export async function settleAnswerVerdict(runtime: IAgentRuntime, message: Memory, verdict: AnswerVerdict, trusted: boolean): Promise<VerdictSettlement> {
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  if (!book || !trusted || !message.id || message.createdAt === undefined) return { answeredMessageId: null, moved: [] };
  let recent: Memory[];
  try {
    recent = await runtime.getMemories({ tableName: 'messages', roomId: message.roomId, end: message.createdAt, count: RECENT_MESSAGES_READ });
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, messageId: message.id, error: errorText(error) }, 'could not read the conversation; the previous answer is not judged');
    return { answeredMessageId: null, moved: [] };
  }
  const answered = answeredMessageId(
    recent.filter((m) => m.id !== undefined).map((m) => ({
      id: m.id as string,
      entityId: m.entityId,
      createdAt: m.createdAt ?? 0,
      ...(typeof m.content?.inReplyTo === 'string' ? { inReplyTo: m.content.inReplyTo } : {}),
      hasText: typeof m.content?.text === 'string' && m.content.text.trim() !== '',
    })),
    { id: message.id, createdAt: message.createdAt },
    runtime.agentId,
    (id) => createUniqueUuid(runtime, id),
  );
  if (answered === null) return { answeredMessageId: null, moved: [] };
  const moved = book.settle(messageContextId(answered), REWARD_BY_VERDICT[verdict], `answer_${verdict}`, { forget: true });
  return { answeredMessageId: answered, moved };
}
