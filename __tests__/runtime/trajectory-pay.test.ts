import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { type TrajectoryService, trajectoryServiceOf } from '../../src/trajectories/trajectory-service';
import { startAgent, type TestAgent } from '../helpers/runtime';

/** An accepted session log; `variant` makes its content (and so its identity) differ. */
const log = (variant: string) =>
  ['$ npm test', 'Tests: 40 passed, 40 total', `$ git commit -am "fix ${variant}"`, '[main 9d8c7b6] fix', '$ git commit -am "tests"', '[main 1a2b3c4] tests'].join('\n');

describe('who a submitted trajectory pays, and how much', () => {
  let agent: TestAgent;
  let service: TrajectoryService;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: '400' } });
    service = await trajectoryServiceOf(agent.runtime);
  });
  afterAll(async () => {
    await agent.close();
  });

  const paidEntries = async () => (await (await rewardLedgerOf(agent.runtime)).history({ limit: 100, category: 'trajectory_accepted' })).map((t) => t.points);

  test('pay: false stores and scores, and pays nothing', async () => {
    const { stored } = await service.submit(log('unpaid'), 'http', 'x', { pay: false });
    expect(stored.evaluation.accepted).toBe(true);
    expect(stored.paid_sats).toBe(0);
    expect(await paidEntries()).toEqual([]);
  });

  test('submitted trajectories share a daily cap; the same content under another id is the same trajectory', async () => {
    const first = await service.submit(log('one'), 'cli', 'a');
    const earned = first.stored.evaluation.reward.total_sats;
    expect(earned).toBeGreaterThan(200);
    expect(earned).toBeLessThan(400);
    expect(first.stored.paid_sats).toBe(earned);
    const sameContent = await service.submit(log('one'), 'cli', 'b');
    expect(sameContent.stored.id).toBe(first.stored.id);
    const second = await service.submit(log('two'), 'cli', 'c');
    expect(second.stored.paid_sats).toBe(400 - earned);
    const third = await service.submit(log('three'), 'http', 'd');
    expect(third.stored.paid_sats).toBe(0);
    expect(await paidEntries()).toEqual([400 - earned, earned]);
  });

  test('concurrent submissions cannot spend the same sats twice', async () => {
    const results = await Promise.all(['p', 'q', 'r'].map((v) => service.submit(log(v), 'cli', v)));
    expect(results.map((r) => r.stored.paid_sats)).toEqual([0, 0, 0]);
  });
});
