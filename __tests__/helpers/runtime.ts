import type { AgentRuntime, Memory, Plugin } from '@elizaos/core';
import { ChannelType, stringToUuid } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { bootRuntime, type BootedRuntime } from '../../src/runtime/boot';
import { type ScanOutcomeService, scanOutcomeServiceOf } from '../../src/services/scan-outcome-service';

export interface TestAgent extends BootedRuntime {
  service: ScanOutcomeService;
}

/** Boots a real AgentRuntime (plugin-sql on PGlite) with this plugin and the given model plugins. */
export async function startAgent(options: { plugins?: Plugin[]; settings?: Record<string, string>; dataDir?: string } = {}): Promise<TestAgent> {
  const booted = await bootRuntime({
    dataDir: options.dataDir ?? 'memory://',
    plugins: [selfImprovePlugin, ...(options.plugins ?? [])],
    settings: { EMBEDDING_DIMENSION: '384', ...(options.settings ?? {}) },
  });
  const service = await scanOutcomeServiceOf(booted.runtime);
  return { ...booted, service };
}

let counter = 0;

const USER = stringToUuid('test-user');
const DM_ROOM = stringToUuid('test-dm-room');

/** A chat message from a person in a DM room, as a connector hands it to the runtime (entity and room exist). */
export async function chatMessage(runtime: AgentRuntime, text: string): Promise<Memory> {
  counter++;
  await runtime.ensureConnection({ entityId: USER, roomId: DM_ROOM, worldId: runtime.agentId, userName: 'tester', source: 'test', type: ChannelType.DM, channelId: 'test-dm' });
  return {
    id: stringToUuid(`test-message-${counter}-${text}`),
    entityId: USER,
    agentId: runtime.agentId,
    roomId: DM_ROOM,
    content: { text, channelType: ChannelType.DM },
    createdAt: Date.now(),
  };
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
