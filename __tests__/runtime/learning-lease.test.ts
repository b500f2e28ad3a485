// The learning lease: one learning pass per agent at a time across processes (two leases here
// stand for two processes on one database).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { LearningLease } from '../../src/scan/learning-lease';
import { dbOf } from '../../src/shared/sql';
import { startAgent, type TestAgent } from '../helpers/runtime';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
});

describe('learning lease', () => {
  test('one holder at a time; a release counts the pass and frees it; an expired lease can be taken over', async () => {
    const db = dbOf(agent.runtime);
    const agentId = '00000000-0000-4000-8000-0000000000aa';
    const [one, two] = [new LearningLease(db, agentId), new LearningLease(db, agentId)];
    expect(await one.tryAcquire()).toBe(0);
    expect(await one.tryAcquire()).toBe(0); // already ours
    expect(await two.tryAcquire()).toBeNull();
    expect(await one.release()).toBe(1);
    expect(await two.tryAcquire()).toBe(1);
    expect(await one.tryAcquire()).toBeNull();
    const waiting = one.acquire();
    expect(await two.release()).toBe(2);
    expect(await waiting).toBe(2);
    expect(await one.release()).toBe(3);

    const [short, other] = [new LearningLease(db, agentId, 1), new LearningLease(db, agentId)];
    expect(await short.tryAcquire()).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await other.tryAcquire()).toBe(3);
    // The holder whose lease ran out no longer counts a pass when it releases.
    expect(await short.release()).toBe(0);
    expect(await other.release()).toBe(4);
  });

  test('a holder that keeps running keeps its lease past the lease length', async () => {
    const db = dbOf(agent.runtime);
    const agentId = '00000000-0000-4000-8000-0000000000bb';
    const [holder, other] = [new LearningLease(db, agentId, 300), new LearningLease(db, agentId)];
    await holder.acquire();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await other.tryAcquire()).toBeNull();
    expect(await holder.release()).toBe(1);
    expect(await other.tryAcquire()).toBe(1);
  });
});
