import { randomUUID } from 'node:crypto';
import { eventually, post, request } from './http';
import type { RealServer } from './real-server';
import type { RecordedPrompt } from './test-model-server';

export interface ChatSession {
  sessionId: string;
  userId: string;
}

/** A chat session as the web UI opens one: POST /api/messaging/sessions. */
export async function openSession(server: RealServer, userId: string = randomUUID()): Promise<ChatSession> {
  const answer = await post(`${server.origin}/api/messaging/sessions`, 'application/json', JSON.stringify({ agentId: server.agentId, userId }));
  if (answer.status !== 201) throw new Error(`session not created: ${answer.status} ${answer.text}`);
  return { sessionId: answer.json.sessionId, userId };
}

export interface ChatTurn {
  reply: string;
  /** The message-handler prompt the model received for this message. */
  prompt: RecordedPrompt;
}

/**
 * Sends one message through the messaging API (the server's own message bus takes it to the agent)
 * and waits until the agent's reply is in the session, then until the plugin's evaluators have run
 * for it (`settleMs`: they run after the reply is sent).
 */
export async function say(server: RealServer, session: ChatSession, text: string, settleMs = 1_500): Promise<ChatTurn> {
  const url = `${server.origin}/api/messaging/sessions/${session.sessionId}/messages`;
  const sent = await post(url, 'application/json', JSON.stringify({ content: text }));
  if (sent.status !== 201) throw new Error(`message not accepted: ${sent.status} ${sent.text}`);
  const sentAt = Number(sent.json.userMessage.created_at);
  const reply = await eventually(`the agent's reply to ${JSON.stringify(text)}`, async () => {
    const listed = await request(`${url}?limit=20`);
    const replies = (listed.json?.messages ?? []) as { content: string; isAgent: boolean; createdAt: string }[];
    return replies.find((m) => m.isAgent && Date.parse(m.createdAt) >= sentAt)?.content;
  });
  const prompt = server.model
    .replyPrompts()
    .filter((p) => p.prompt.includes(text))
    .at(-1);
  if (!prompt) throw new Error(`no message-handler prompt carried ${JSON.stringify(text)}`);
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return { reply, prompt };
}
