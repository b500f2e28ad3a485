import { createUniqueUuid, type IAgentRuntime, type Memory, type UUID } from '@elizaos/core';
import { z } from 'zod';
import { loadConfig } from './config';
import { decideTrust, type Trust } from './trust';
import { errorText } from './error-text';

const LOG_SRC = 'plugin:self-improve:trust';

/** What this module reads of a world's metadata (the database is a boundary: anything else is ignored). */
const worldMetadataSchema = z
  .object({
    roles: z.record(z.string(), z.unknown()).optional(),
    ownership: z.object({ ownerId: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();

/**
 * The ids SELF_IMPROVE_TRUSTED_ENTITIES stands for: each listed id as written and as the runtime
 * derives an entity id from a client's user id (`createUniqueUuid(runtime, id)`). The 1.7.2 server
 * hands a messaging-API user id (`POST /api/messaging/sessions` `userId`) to the agent unchanged as
 * the entity id; some of its routes (e.g. `/api/agents/:id/speech/conversation`) derive it. Listing
 * the user id covers both.
 */
export function listedEntityIds(runtime: IAgentRuntime): Set<string> {
  const listed = new Set<string>();
  for (const id of loadConfig(runtime).SELF_IMPROVE_TRUSTED_ENTITIES) {
    listed.add(id);
    listed.add(createUniqueUuid(runtime, id).toLowerCase());
  }
  return listed;
}

/** The sender's role and the owner of the message's world (its `worldId`, else its room's); nothing when there is no world. */
async function worldFacts(runtime: IAgentRuntime, message: Pick<Memory, 'entityId' | 'roomId' | 'worldId'>): Promise<{ role?: string; ownerId?: string }> {
  const worldId: UUID | undefined = message.worldId ?? (await runtime.getRoom(message.roomId))?.worldId;
  if (!worldId) return {};
  const world = await runtime.getWorld(worldId);
  const metadata = worldMetadataSchema.safeParse(world?.metadata ?? {});
  if (!metadata.success) return {};
  const role = metadata.data.roles?.[message.entityId];
  const ownerId = metadata.data.ownership?.ownerId;
  return { ...(typeof role === 'string' ? { role } : {}), ...(ownerId === undefined ? {} : { ownerId }) };
}

/**
 * Whether the sender of `message` may teach and change the agent's rules (`decideTrust`): the
 * agent itself, an OWNER or ADMIN of the message's world (core's `metadata.roles`, or the world's
 * `ownership.ownerId`), or an entity listed in SELF_IMPROVE_TRUSTED_ENTITIES. A failed read of the
 * room or world is logged and counts as not trusted.
 */
export async function trustOf(runtime: IAgentRuntime, message: Pick<Memory, 'entityId' | 'roomId' | 'worldId'>): Promise<Trust> {
  let facts: { role?: string; ownerId?: string } = {};
  try {
    facts = await worldFacts(runtime, message);
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, entityId: message.entityId, error: errorText(error) }, 'could not read the world of a message; its sender counts as not trusted');
  }
  return decideTrust({ entityId: message.entityId, agentId: runtime.agentId, listed: listedEntityIds(runtime), ...facts });
}

/** `trustOf(...).trusted`. */
export async function isTrusted(runtime: IAgentRuntime, message: Pick<Memory, 'entityId' | 'roomId' | 'worldId'>): Promise<boolean> {
  return (await trustOf(runtime, message)).trusted;
}
