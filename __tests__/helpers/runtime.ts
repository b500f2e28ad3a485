import type { AgentRuntime, Memory, Plugin, Role, UUID } from '@elizaos/core';
import { ChannelType, stringToUuid } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { bootRuntime, type BootedRuntime } from '../../src/cli/boot';
import { type ScanOutcomeService, scanOutcomeServiceOf } from '../../src/scan/scan-outcome-service';
import { startTestPostgres } from './postgres-server';

export interface TestAgent extends BootedRuntime {
  service: ScanOutcomeService;
}

/**
 * Boots a real AgentRuntime (plugin-sql on PGlite) with this plugin and the given model plugins.
 * Without a `dataDir`, on a throw-away database: an in-memory PGlite, or, with
 * SELF_IMPROVE_TEST_POSTGRES_URL set, a database of its own created on that PostgreSQL server and
 * dropped when the agent closes (so the runtime suite runs on PostgreSQL as it does on PGlite).
 */
export async function startAgent(options: { plugins?: Plugin[]; settings?: Record<string, string>; dataDir?: string } = {}): Promise<TestAgent> {
  const postgres = options.dataDir === undefined && process.env.SELF_IMPROVE_TEST_POSTGRES_URL ? await startTestPostgres() : undefined;
  let booted: BootedRuntime;
  try {
    booted = await bootRuntime({
      ...(postgres ? { postgresUrl: postgres.url } : { dataDir: options.dataDir ?? 'memory://' }),
      plugins: [selfImprovePlugin, ...(options.plugins ?? [])],
      settings: { EMBEDDING_DIMENSION: '384', ...(options.settings ?? {}) },
    });
  } catch (error) {
    await postgres?.stop();
    throw error;
  }
  const close = async () => {
    try {
      await booted.close();
    } finally {
      await postgres?.stop();
    }
  };
  // Tests start from a settled agent: every service of the plugin started (a message handled before
  // the ELO book has started records no retrieval) and every stored lesson read (an agent's start
  // waits for neither). An agent that does not settle is closed (its database dropped) before the
  // error goes on.
  try {
    await Promise.all((selfImprovePlugin.services ?? []).map((s) => booted.runtime.getServiceLoadPromise(s.serviceType as never)));
    const service = await scanOutcomeServiceOf(booted.runtime);
    await service.scanLessonsReady();
    return { ...booted, close, service };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

let counter = 0;

/** The person `chatMessage` speaks as unless told otherwise. */
export const TEST_USER = stringToUuid('test-user');
const DM_ROOM = stringToUuid('test-dm-room');

async function connect(runtime: AgentRuntime, entityId: UUID): Promise<void> {
  await runtime.ensureConnection({ entityId, roomId: DM_ROOM, worldId: runtime.agentId, userName: 'tester', source: 'test', type: ChannelType.DM, channelId: 'test-dm' });
}

/**
 * A chat message from a person (`TEST_USER` unless `from` is given) in a DM room of the test
 * world (whose id is the agent id), as a connector hands it to the runtime (entity and room exist).
 */
export async function chatMessage(runtime: AgentRuntime, text: string, options: { from?: UUID; createdAt?: number } = {}): Promise<Memory> {
  counter++;
  const entityId = options.from ?? TEST_USER;
  await connect(runtime, entityId);
  return {
    id: stringToUuid(`test-message-${counter}-${text}`),
    entityId,
    agentId: runtime.agentId,
    roomId: DM_ROOM,
    content: { text, channelType: ChannelType.DM },
    createdAt: options.createdAt ?? Date.now(),
  };
}

/**
 * Gives `entityId` a role in the test world (`metadata.roles`, ElizaOS's own roles: OWNER, ADMIN or
 * NONE), as a connector does for a server's owner and admins.
 */
export async function grantRole(runtime: AgentRuntime, entityId: UUID, role: 'OWNER' | 'ADMIN' | 'NONE'): Promise<void> {
  await connect(runtime, entityId);
  const world = await runtime.getWorld(runtime.agentId);
  if (!world) throw new Error('the test world was not created');
  const roles = { ...(world.metadata?.roles ?? {}), [entityId]: role as Role };
  await runtime.updateWorld({ ...world, metadata: { ...(world.metadata ?? {}), roles } });
}

export const emptyState = () => ({ values: {}, data: {}, text: '' });

/** The section of composed state text that starts with `header`, up to a blank line or the next `# ` header. */
export function promptSection(text: string, header: string): string {
  const start = text.indexOf(header);
  if (start < 0) return '';
  const lines = text.slice(start).split('\n');
  const end = lines.findIndex((line, i) => i > 0 && (line === '' || line.startsWith('# ')));
  return lines.slice(0, end < 0 ? lines.length : end).join('\n');
}
