import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Action, EventType, ModelType, type Plugin, type UUID } from '@elizaos/core';
import { handlePostTrajectory } from '../../src/trajectories/surfaces/trajectory-routes';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { recordingResponse } from '../helpers/route-response';
import { chatMessage, emptyState, startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

const CI_LOG = [
  '$ git log -1',
  'commit 3f2a9c1d7e8b4a6c5d0e1f2a3b4c5d6e7f8a9b0c',
  'Author: Dev <dev@example.com>',
  '$ cargo test',
  '   Compiling shop v0.1.0',
  'running 15 tests',
  'test result: ok. 15 passed; 0 failed; 0 ignored',
  '$ git commit -am "Fix rounding in totals"',
  '[main 9d8c7b6] Fix rounding in totals',
  '    token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked in a log',
].join('\n');

/** A test-only action that "runs the tests" and reports what a real CI step would print. */
const runTestsAction: Action = {
  name: 'RUN_TESTS',
  description: 'runs the project tests',
  similes: [],
  examples: [],
  validate: async () => true,
  handler: async () => ({ success: true, text: CI_LOG }),
};
const toolsPlugin: Plugin = { name: 'test-tools', description: 'a test action', actions: [runTestsAction] };

describe('trajectories on a real runtime', () => {
  let agent: TestAgent;
  let service: TrajectoryService;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-traj-'));
    agent = await startAgent({ plugins: [createTestModelsPlugin({ textSmall: () => 'ok, running the tests' }).plugin, toolsPlugin] });
    service = await trajectoryServiceOf(agent.runtime);
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a run with an action, a model call and a passing test result is stored, scored and redacted', async () => {
    const runtime = agent.runtime;
    const message = await chatMessage(runtime, 'please fix the rounding bug and run the tests');
    await runtime.createMemory(message, 'messages');
    const runId = runtime.startRun(message.roomId) as UUID;
    const startTime = Date.now();
    await runtime.emitEvent(EventType.RUN_STARTED, { runtime, source: 'test', runId, messageId: message.id, roomId: message.roomId, entityId: message.entityId, startTime, status: 'started' });
    await runtime.useModel(ModelType.TEXT_SMALL, { prompt: 'x'.repeat(2_400) });
    const response = { ...message, id: undefined, entityId: runtime.agentId, content: { text: 'running tests', actions: ['RUN_TESTS'] } };
    await runtime.processActions(message, [response as never], emptyState());
    await runtime.emitEvent(EventType.RUN_ENDED, { runtime, source: 'test', runId, messageId: message.id, roomId: message.roomId, entityId: message.entityId, startTime, status: 'completed', endTime: Date.now(), duration: 1 });
    runtime.endRun();

    const [stored] = (await service.page({ limit: 1 })).trajectories;
    expect(stored?.source).toBe('runtime');
    expect(stored?.run_id).toBe(runId);
    const e = stored?.evaluation;
    // completeness 0.4 + 0.4 + 0.2; tokens 600 + 6 > 500 (0.4) and 1 tool call (0); CI passed
    expect(e?.quality).toMatchObject({ completeness: 1, complexity: 0.4, reward_signal: 1 });
    expect(e?.quality.quality).toBeCloseTo(0.4 + 0.3 * 0.4 + 0.3, 9);
    expect(e).toMatchObject({ initial_commit: '3f2a9c1d7e8b4a6c5d0e1f2a3b4c5d6e7f8a9b0c', final_commit: '9d8c7b6', ci: 'passed', ended: true, tool_calls: 1, accepted: true });
    expect(e?.token_count).toBeGreaterThan(600);
    expect(e?.reward.total_sats).toBe(e ? e.reward.base_sats + e.reward.quality_bonus_sats + e.reward.ci_bonus_sats + e.reward.complexity_bonus_sats : -1);
    expect(stored?.transcript).toContain('please fix the rounding bug');
    expect(stored?.transcript).toContain('[action RUN_TESTS]');
    expect(stored?.transcript).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(stored?.redaction.level).toBe('standard');
    // its reward is recorded in the reward ledger, pointing back at the stored trajectory
    const [tx] = await (await rewardLedgerOf(runtime)).history({ limit: 1, category: 'trajectory_accepted' });
    expect(tx).toMatchObject({ type: 'reward', points: e?.reward.total_sats, source: 'trajectory', source_ref: stored?.id });
  });

  test('POST /self-improve/trajectories scores, stores and answers; the same log again is the same trajectory', async () => {
    const log = `${CI_LOG}\nSession ended`;
    const first = recordingResponse();
    await handlePostTrajectory({ body: log, headers: {}, query: { id: 'external-1' } }, first.res, agent.runtime);
    expect(first.sent.status).toBe(200);
    const body = first.sent.body as { trajectory: { id: string; source: string; evaluation: { ci: string } }; errors: unknown[] };
    expect(body.trajectory).toMatchObject({ source: 'http', evaluation: { ci: 'passed' } });
    const again = recordingResponse();
    await handlePostTrajectory({ body: log, headers: {}, query: { id: 'external-1' } }, again.res, agent.runtime);
    expect((again.sent.body as { trajectory: { id: string } }).trajectory.id).toBe(body.trajectory.id);
    expect((await service.page({ limit: 50 })).trajectories.filter((t) => t.run_id === 'external-1')).toHaveLength(1);

    const empty = recordingResponse();
    await handlePostTrajectory({ body: '', headers: {} }, empty.res, agent.runtime);
    expect(empty.sent.status).toBe(400);
  });

  test('a secret at the storage cut-off is redacted before the transcript is cut', async () => {
    // "[output] " + 19,985 x + " " puts the token at character 19,995 of the transcript; it is cut at 20,000.
    const text = `${'x'.repeat(19_985)} ghp_abcdefghijklmnopqrstuvwxyz0123456789 tail`;
    const { stored } = await service.submit(text, 'http', 'cut-off');
    expect(stored.transcript.length).toBeLessThanOrEqual(20_000);
    expect(stored.transcript).not.toContain('ghp_');
    expect(stored.redaction.counts.token).toBe(1);
  });

  test('the CLI scores, previews and exports', async () => {
    const db = path.join(dir, 'db');
    const file = path.join(dir, 'session.log');
    await writeFile(file, `${CI_LOG}\nSession ended\n`);
    const weak = path.join(dir, 'weak.log');
    await writeFile(weak, 'hello\n');
    const cli = path.join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts');
    const run = async (...args: string[]) => {
      const proc = Bun.spawn([process.execPath, 'run', cli, ...args], { stdout: 'pipe', stderr: 'pipe' });
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { stdout, code };
    };
    const scored = await run('trajectories', 'score', file, weak, '--db', db, '--json');
    expect(scored.code).toBe(0);
    const doc = JSON.parse(scored.stdout);
    expect(doc.trajectories.map((t: { trajectory: { evaluation: { accepted: boolean } } }) => t.trajectory.evaluation.accepted)).toEqual([true, false]);

    const preview = await run('trajectories', 'preview', '--db', db, '--json');
    expect(JSON.parse(preview.stdout)).toMatchObject({ count: 2, accepted: 1 });

    const exported = await run('trajectories', 'export', '--db', db);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ source: 'cli', evaluation: { accepted: true } });
    expect(exported.stdout).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');

    const bad = await run('trajectories', 'frobnicate', '--db', db);
    expect(bad.code).toBe(1);
  }, 120_000);
});
