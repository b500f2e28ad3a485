import { expect, test } from 'bun:test';
import { bootRuntime } from '../../src/runtime/boot';
import { createTestModelsPlugin } from '../helpers/test-models';

test('a real AgentRuntime boots on PGlite and stores a memory', async () => {
  const models = createTestModelsPlugin();
  const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [models.plugin], settings: { EMBEDDING_DIMENSION: '384' } });
  try {
    const id = await runtime.createMemory({ entityId: runtime.agentId, roomId: runtime.agentId, content: { text: 'hello' }, embedding: await runtime.useModel('TEXT_EMBEDDING', { text: 'hello' }) }, 'scan_lessons');
    const got = await runtime.getMemories({ tableName: 'scan_lessons', roomId: runtime.agentId });
    expect(got.map((m) => m.id)).toEqual([id]);
    expect(got[0]?.embedding?.length).toBe(384);
  } finally {
    await close();
  }
});
