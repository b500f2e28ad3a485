import type { IAgentRuntime, Memory, UUID } from '@elizaos/core';

/**
 * A memory the agent owns: entity, room and world are the agent itself (core 1.7.2 creates the
 * agent's own room and world at start-up), so the memory viewer shows it and one agent never sees
 * another's.
 */
export function agentMemory(
  runtime: IAgentRuntime,
  id: UUID,
  text: string,
  metadata: Record<string, unknown>,
  options: { createdAt: number; unique: boolean; embedding?: number[] },
): Memory {
  const agentId = runtime.agentId;
  return {
    id,
    agentId,
    entityId: agentId,
    roomId: agentId,
    worldId: agentId,
    content: { text, source: 'plugin-self-improve' },
    metadata: metadata as Memory['metadata'],
    createdAt: options.createdAt,
    unique: options.unique,
    ...(options.embedding ? { embedding: options.embedding } : {}),
  };
}
