// Database failures in background work — reconciliation on its timer, the ELO flush, the learning
// task, the rule decay task — are logged; none becomes an unhandled rejection (which would end a
// Node process), and nothing is lost: once the failure clears, reconciliation runs again, the ELO
// batch is written in order and the outcomes are learned. The scenario runs in its own process
// (`bun run`), where a `process.on('unhandledRejection')` listener sees what the process would.
import { expect, test } from 'bun:test';
import path from 'node:path';

const SCENARIO = path.join(import.meta.dir, '..', 'helpers', 'background-failures-scenario.ts');

test('background failures are logged, nothing is lost, and no unhandled rejection reaches the process', async () => {
  const proc = Bun.spawn([process.execPath, 'run', SCENARIO], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LOG_LEVEL: 'error' } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string);
  expect(report.probe).toEqual(['probe']);
  expect(report.reconciliation).toMatchObject({ laterOk: true, ranAgain: true, verify: { ok: true, count: 4 } });
  expect(report.reconciliation.failedLogs.length).toBeGreaterThan(0);
  expect(report.elo).toEqual({ failedLogs: ['warn'], pendingAfterFailure: 1, pendingAfterRecovery: 0, items: 2, logOrder: ['src/a.ts', 'src/b.ts'] });
  expect(report.learning).toEqual({ failedLogs: ['warn'], pendingAfterFailedPass: 24, pendingAfterRecovery: 0 });
  expect(report.decay).toEqual({ failedLogs: ['warn'] });
  expect(report.unhandled).toEqual([]);
}, 120_000);
