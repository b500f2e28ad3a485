import { EventType, type IAgentRuntime, ModelType, type Plugin } from '@elizaos/core';
import { lexicalVector } from '../../src/shared/lexical-vector';

export type TextSmallHandler = (prompt: string) => string | Promise<string>;

/**
 * Deterministic models for tests: TEXT_EMBEDDING is the built-in lexical vector (384 dims),
 * TEXT_SMALL answers with whatever `textSmall` returns for the prompt and, like real model
 * plugins, reports its token use with a MODEL_USED event (≈ characters / 4). Every call is recorded.
 */
export function createTestModelsPlugin(options: { textSmall?: TextSmallHandler; embedding?: boolean } = {}) {
  const calls = { textSmall: [] as { prompt: string; temperature?: number }[], embedding: 0 };
  const models: Plugin['models'] = {};
  if (options.embedding !== false) {
    models[ModelType.TEXT_EMBEDDING] = async (_rt: IAgentRuntime, params: unknown) => {
      calls.embedding++;
      const text = typeof params === 'string' ? params : ((params as { text?: string } | null)?.text ?? '');
      return lexicalVector(text);
    };
  }
  if (options.textSmall) {
    const handler = options.textSmall;
    models[ModelType.TEXT_SMALL] = async (rt: IAgentRuntime, params: { prompt: string; temperature?: number }) => {
      calls.textSmall.push({ prompt: params.prompt, temperature: params.temperature });
      const answer = await handler(params.prompt);
      const prompt = Math.ceil(params.prompt.length / 4);
      const completion = Math.ceil(answer.length / 4);
      await rt.emitEvent(EventType.MODEL_USED, { runtime: rt, source: 'test-models', provider: 'test-models', type: ModelType.TEXT_SMALL, prompt: params.prompt, tokens: { prompt, completion, total: prompt + completion } });
      return answer;
    };
  }
  const plugin: Plugin = { name: 'test-models', description: 'deterministic test models', priority: 100, models };
  return { plugin, calls };
}
