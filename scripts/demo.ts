import '../src/cli/quiet';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChannelType, type Memory, stringToUuid } from '@elizaos/core';
import { describeLesson } from '../src/cli/outcome-commands';
import { progressPrinter, routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/runtime/boot';
import { loadModelPlugins } from '../src/runtime/model-plugins';
import { ingestText } from '../src/services/ingest-text';
import { scanOutcomeServiceOf } from '../src/services/scan-outcome-service';

/**
 * The main job, end to end on a real AgentRuntime: ingest three weeks of labelled scan outcomes,
 * let the runtime run its evaluators after a message (as it does in production), and show what
 * the agent learned, with the evidence behind each lesson.
 */
async function main(): Promise<void> {
  routeConsoleToStderr();
  const say = (line = '') => process.stderr.write(`${line}\n`);
  const file = path.join(import.meta.dir, '..', 'examples', 'outcomes.jsonl');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'self-improve-demo-'));
  const modelPlugins = await loadModelPlugins();
  say(`plugin-self-improve demo — database ${dataDir} (PGlite), language model: ${modelPlugins.length ? modelPlugins.map((p) => p.name).join(', ') : 'none (lessons written from statistics)'}`);
  const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin, ...modelPlugins], agentName: 'Sentinel' });
  try {
    const service = await scanOutcomeServiceOf(runtime);

    say(`\n1. Ingesting ${path.relative(process.cwd(), file)}`);
    const text = await readFile(file, 'utf8');
    const ingested = await ingestText(service, text, progressPrinter('ingested rows', 0));
    say(`   ${ingested.rows} rows: ${ingested.accepted} accepted, ${ingested.duplicate} duplicate, ${ingested.rejected.length} rejected`);

    say('\n2. A message arrives; the runtime runs its evaluators after it');
    const user = stringToUuid('demo-user');
    const room = stringToUuid('demo-dm');
    await runtime.ensureConnection({ entityId: user, roomId: room, worldId: runtime.agentId, userName: 'reviewer', source: 'demo', type: ChannelType.DM, channelId: 'demo-dm' });
    const message: Memory = {
      id: stringToUuid(`demo-message-${Date.now()}`),
      entityId: user,
      agentId: runtime.agentId,
      roomId: room,
      content: { text: 'I labelled last week’s scan findings; anything to learn?', channelType: ChannelType.DM },
      createdAt: Date.now(),
    };
    const started = Date.now();
    const ran = await runtime.evaluate(message, { values: {}, data: {}, text: '' }, false);
    say(`   evaluators run: ${(ran ?? []).map((e) => e.name).join(', ') || 'none'} (${Date.now() - started} ms)`);

    const lessons = service.listLessons();
    say(`\n3. What the agent learned: ${lessons.length} lessons`);
    for (const lesson of lessons) say(`\n${describeLesson(lesson)}`);

    say('\n4. Feeding the same file again changes nothing (idempotent intake)');
    const again = await ingestText(service, text);
    const counts = await service.counts();
    say(`   ${again.accepted} accepted, ${again.duplicate} duplicate; stored outcomes ${counts.outcomes}, pending ${counts.pending}, lessons ${counts.lessons}`);
  } finally {
    await close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
