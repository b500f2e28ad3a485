import type { EventDraft } from '../../rules/model/event-draft';

/** What a person said about the agent's previous answer: praise is a win for what was in its prompt, a correction a loss. */
export type AnswerVerdict = 'praised' | 'corrected';

/** The ELO outcome of each verdict, as `settle` takes it (reward > 0 a win, < 0 a loss). */
export const REWARD_BY_VERDICT: Record<AnswerVerdict, 1 | -1> = { praised: 1, corrected: -1 };

/**
 * The verdict a feedback event passes on the answer before it: a `success` (praise) is `praised`,
 * a `mistake` (a correction) `corrected`, an instruction (`feedback`) by its polarity — "no,
 * never do that" corrects, "perfect, always do it like this" praises. Anything else (a discovery,
 * a debugging session) judges no answer: null.
 */
export function answerVerdictOf(draft: Pick<EventDraft, 'type' | 'polarity'>): AnswerVerdict | null {
  if (draft.type === 'success') return 'praised';
  if (draft.type === 'mistake') return 'corrected';
  if (draft.type === 'feedback') return draft.polarity === 'positive' ? 'praised' : draft.polarity === 'negative' ? 'corrected' : null;
  return null;
}

/** A message of the room as the verdict needs it. */
export interface RoomMessage {
  id: string;
  entityId: string;
  createdAt: number;
  /** The id the runtime wrote in the agent's reply (`content.inReplyTo`). */
  inReplyTo?: string;
  /** Whether it says anything: an IGNORE reply has no text and answered nothing. */
  hasText: boolean;
}

/**
 * The id of the message whose answer a person's new message (`current`) judges: the agent's last
 * reply with text in the room before `current`, and the person's message that reply answered —
 * the one whose id is its `inReplyTo`, or whose id `replyIdOf` turns into it (core 1.7.2 writes
 * `createUniqueUuid(runtime, message.id)` there); a reply without `inReplyTo` answered the last
 * message of a person before it. Null when there is no such reply, or the message it answered is
 * not among `messages` (better no verdict than one on the wrong answer).
 */
export function answeredMessageId(
  messages: readonly RoomMessage[],
  current: { id: string; createdAt: number },
  agentId: string,
  replyIdOf: (messageId: string) => string,
): string | null {
  const before = messages.filter((m) => m.id !== current.id && m.createdAt <= current.createdAt).sort((a, b) => a.createdAt - b.createdAt);
  const answer = before.filter((m) => m.entityId === agentId && m.hasText).at(-1);
  if (!answer) return null;
  const asked = before.filter((m) => m.entityId !== agentId && m.createdAt <= answer.createdAt);
  if (answer.inReplyTo === undefined) return asked.at(-1)?.id ?? null;
  return asked.find((m) => m.id === answer.inReplyTo || replyIdOf(m.id) === answer.inReplyTo)?.id ?? null;
}
