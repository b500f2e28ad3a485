import { describe, expect, test } from 'bun:test';
import { answeredMessageId, answerVerdictOf, type RoomMessage } from '../../src/elo/model/answer-verdict';
import { runEloReward } from '../../src/trajectories/model/run-outcome';

const AGENT = 'agent';
const PERSON = 'person';
const replyIdOf = (id: string) => `reply-to:${id}`;
const msg = (id: string, entityId: string, createdAt: number, extra: Partial<RoomMessage> = {}): RoomMessage => ({ id, entityId, createdAt, hasText: true, ...extra });

describe('answerVerdictOf', () => {
  test.each([
    ['success', 'positive', 'praised'],
    ['mistake', 'negative', 'corrected'],
    ['feedback', 'negative', 'corrected'],
    ['feedback', 'positive', 'praised'],
    ['discovery', 'positive', null],
    ['debug_session', 'negative', null],
  ] as const)('%s (%s) → %s', (type, polarity, verdict) => {
    expect(answerVerdictOf({ type, polarity })).toBe(verdict);
  });
});

describe('answeredMessageId', () => {
  const now = { id: 'praise', createdAt: 100 };
  test('the person message the agent last replied to, by inReplyTo as core writes it', () => {
    const room = [msg('q1', PERSON, 10), msg('a1', AGENT, 20, { inReplyTo: replyIdOf('q1') }), msg('q2', PERSON, 30), msg('a2', AGENT, 40, { inReplyTo: replyIdOf('q2') })];
    expect(answeredMessageId(room, now, AGENT, replyIdOf)).toBe('q2');
  });
  test('an inReplyTo that is the id itself counts too; a reply without one answered the last person message before it', () => {
    expect(answeredMessageId([msg('q1', PERSON, 10), msg('a1', AGENT, 20, { inReplyTo: 'q1' })], now, AGENT, replyIdOf)).toBe('q1');
    expect(answeredMessageId([msg('q1', PERSON, 10), msg('q2', PERSON, 15), msg('a1', AGENT, 20)], now, AGENT, replyIdOf)).toBe('q2');
  });
  test('the judging message itself, later messages and replies without text (IGNORE) are not the previous answer', () => {
    const room = [msg('q1', PERSON, 10), msg('a1', AGENT, 20, { inReplyTo: replyIdOf('q1') }), msg('q2', PERSON, 30), msg('ignore', AGENT, 40, { inReplyTo: replyIdOf('q2'), hasText: false }), msg('praise', PERSON, 100), msg('a3', AGENT, 110, { inReplyTo: replyIdOf('praise') })];
    expect(answeredMessageId(room, now, AGENT, replyIdOf)).toBe('q1');
  });
  test('no verdict without a previous answer, or when the message it answered is not in view', () => {
    expect(answeredMessageId([msg('q1', PERSON, 10)], now, AGENT, replyIdOf)).toBeNull();
    expect(answeredMessageId([msg('a1', AGENT, 20, { inReplyTo: replyIdOf('older') }), msg('q1', PERSON, 30)], now, AGENT, replyIdOf)).toBeNull();
  });
});

describe('runEloReward', () => {
  const chat = { accepted: false, initial_commit: null, final_commit: null, ci: null };
  test.each([
    ['accepted', { ...chat, accepted: true }, false, 1],
    ['a chat run that completed', chat, false, 0],
    ['a chat run that failed or timed out', chat, true, 0],
    ['a run with commits that failed', { ...chat, initial_commit: 'abc1234' }, true, -1],
    ['a run with a CI result that failed', { ...chat, ci: 'failed' as const }, true, -1],
    ['a run with work that completed but was not accepted', { ...chat, ci: 'passed' as const }, false, 0],
  ])('%s', (_what, evaluation, failed, reward) => {
    expect(runEloReward(evaluation, failed)).toBe(reward as 1 | -1 | 0);
  });
});
