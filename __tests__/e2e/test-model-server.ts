import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lexicalVector } from '../../src/shared/lexical-vector';

/** One prompt the agent sent to the model, as the model received it. */
export interface RecordedPrompt {
  model: string;
  prompt: string;
  stream: boolean;
  at: number;
}

/** What the test model says to bootstrap's message handler for the next chat message. */
export interface PlannedReply {
  actions: string;
  text: string;
}

/** The texts of an OpenAI Responses API `input` (system and user parts), joined as one prompt. */
function promptOf(input: unknown, instructions: unknown): string {
  const parts: string[] = typeof instructions === 'string' ? [instructions] : [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const item = value as { text?: unknown; content?: unknown };
      if (typeof item.text === 'string') parts.push(item.text);
      else visit(item.content);
    }
  };
  visit(input);
  return parts.join('\n');
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The plugin's feedback classification, answered as a small model would: an imperative correction
 * ("never …", "always …", "don't …") is feedback whose solution is the person's words; praise is a
 * success; "that's wrong" is a mistake; anything else is none.
 */
function feedbackAnswer(prompt: string): string {
  const message = /<person_message>\n([\s\S]*?)\n<\/person_message>/.exec(prompt)?.[1] ?? '';
  if (/\b(never|always|don't|do not)\b/i.test(message)) {
    return JSON.stringify({ type: 'feedback', problem: 'the agent was corrected', solution: message, category: 'general', tags: [], polarity: 'negative' });
  }
  if (/\b(good job|that worked|thanks)\b/i.test(message)) return JSON.stringify({ type: 'success', problem: 'the last answer', solution: message, category: 'general', tags: [], polarity: 'positive' });
  if (/\b(wrong|mistake)\b/i.test(message)) return JSON.stringify({ type: 'mistake', problem: message, solution: '', category: 'general', tags: [], polarity: 'negative' });
  return JSON.stringify({ type: 'none' });
}

/**
 * A loopback OpenAI-compatible model for the real-server suite: `/v1/models`, `/v1/embeddings`
 * (hashed words: the plugin's lexical vector, 384 dimensions) and `/v1/responses` (JSON, or SSE
 * when `stream` is set), as `@elizaos/plugin-openai` 1.6 calls them. It records every prompt. It
 * answers bootstrap's templates in their XML shape (the message handler with the planned reply,
 * REPLY by default) and the plugin's feedback classification (`feedbackAnswer`); everything else (the
 * lesson prompt, reflection) gets `none`, which every caller treats as unusable and falls back from.
 */
export class TestModelServer {
  readonly prompts: RecordedPrompt[] = [];
  embeddings = 0;
  private readonly planned: PlannedReply[] = [];
  private server: Server | null = null;
  private sequence = 0;

  /** The reply the model gives to the next message-handler prompt (then back to REPLY). */
  planReply(reply: PlannedReply): void {
    this.planned.push(reply);
  }

  /** Prompts that contain `needle`, in the order received. */
  promptsContaining(needle: string): RecordedPrompt[] {
    return this.prompts.filter((p) => p.prompt.includes(needle));
  }

  /** The message-handler prompts (the ones that decide the agent's reply), in order. */
  replyPrompts(): RecordedPrompt[] {
    return this.promptsContaining('Generate dialog and actions for the character');
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error), type: 'test_model', code: 'internal' } }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answerFor(prompt: string): string {
    if (prompt.includes('<action>RESPOND | IGNORE | STOP</action>')) {
      return '<response><name>Sentinel</name><reasoning>The message is addressed to me.</reasoning><action>RESPOND</action></response>';
    }
    if (prompt.includes('Generate dialog and actions for the character')) {
      const reply = this.planned.shift() ?? { actions: 'REPLY', text: 'Noted.' };
      return `<response><thought>Answer the person.</thought><actions>${reply.actions}</actions><providers></providers><text>${escapeXml(reply.text)}</text></response>`;
    }
    if (prompt.includes('<person_message>')) return feedbackAnswer(prompt);
    return 'none';
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'test-model', object: 'model', owned_by: 'tests' }] }));
      return;
    }
    const body = await readJson(req);
    if (url.pathname === '/v1/embeddings') {
      this.embeddings++;
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: lexicalVector(String(text ?? '')) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      return;
    }
    if (url.pathname === '/v1/responses') {
      const prompt = promptOf(body.input, body.instructions);
      const stream = body.stream === true;
      this.prompts.push({ model: String(body.model ?? ''), prompt, stream, at: Date.now() });
      this.respond(res, String(body.model ?? 'test-model'), this.answerFor(prompt), stream, Math.ceil(prompt.length / 4));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no test route ${req.method} ${url.pathname}`, type: 'test_model', code: 'not_found' } }));
  }

  private respond(res: ServerResponse, model: string, text: string, stream: boolean, inputTokens: number): void {
    this.sequence++;
    const id = `resp_${this.sequence}`;
    const itemId = `msg_${this.sequence}`;
    const createdAt = Math.floor(Date.now() / 1000);
    const usage = { input_tokens: inputTokens, output_tokens: Math.ceil(text.length / 4), input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'response',
          created_at: createdAt,
          model,
          status: 'completed',
          output: [{ type: 'message', id: itemId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const events = [
      { type: 'response.created', response: { id, created_at: createdAt, model } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: itemId } },
      { type: 'response.output_text.delta', item_id: itemId, delta: text },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: itemId } },
      { type: 'response.completed', response: { usage } },
    ];
    for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }
}
