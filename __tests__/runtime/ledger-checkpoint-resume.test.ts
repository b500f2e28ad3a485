// A signed checkpoint verifies the chain from the last transaction a reconciliation verified
// (while that one keeps its hash), not from the start: what follows the mark is checked and a
// broken row there refuses the checkpoint. A reconciliation stores its mark signed with the ledger
// secret, so a new process goes on from it too; a mark not signed with the secret is not taken. A
// process with no mark verifies everything, and a checkpoint or verification that finds the chain
// whole leaves its own mark.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { ledgerTable, ledgerVerified } from '../../src/ledger/tables';
import { dbOf } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { startAgent, type TestAgent } from '../helpers/runtime';

const settings = { SELF_IMPROVE_LEDGER_SECRET: 'checkpoint resume secret 0123456789', SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' };

/** Edits one transaction's points in place, its hash left as it was (what only a full verification notices). */
async function editPoints(agent: TestAgent, sequence: number): Promise<void> {
  await dbOf(agent.runtime).execute(
    sql`UPDATE ${ledgerTable} SET tx_json = jsonb_set(tx_json, '{points}', to_jsonb((tx_json->>'points')::int + 1)) WHERE agent_id = ${agent.runtime.agentId}::uuid AND sequence = ${sequence}`,
  );
}

describe('a checkpoint resumes from the last verified transaction', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-checkpoint-resume-'));
    agent = await startAgent({ dataDir: dir, settings });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('after a reconciliation: the same checkpoint as a full verification gives, and rows appended since are checked', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    await agent.service.ingest(makeRows({ n: 12, labels: ['fixed', 'rejected_fp'], keyPrefix: 'one' }));
    expect((await ledger.reconcile('full')).ok).toBe(true);
    const verified = await ledger.verify();
    expect(verified).toMatchObject({ ok: true, count: 12 });
    const at = '2026-12-01T00:00:00.000Z';
    const made = await ledger.checkpoint(at);
    expect(made).toMatchObject({ ok: true, checkpoint: { sequence: 12, running_total: (verified as { total: number }).total } });

    // A row before the mark edited in place: a full verification names it; the checkpoint, resuming after it, does not read it.
    await editPoints(agent, 3);
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { sequence: 3, code: 'bad_hash' } });
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: true, checkpoint: { sequence: 12 } });

    // A row after the mark edited in place: the checkpoint reads it and refuses.
    await agent.service.ingest(makeRows({ n: 4, labels: ['fixed'], keyPrefix: 'two' }));
    await editPoints(agent, 14);
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: false, code: 'ledger_invalid' });
  });

  /** The transactions named by the refusals of two checkpoints asked at once in a new process on the same database. */
  async function refusalInANewProcess(): Promise<string[]> {
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings });
    const ledger = await rewardLedgerOf(agent.runtime);
    const made = await Promise.all([ledger.checkpoint(), ledger.checkpoint()]);
    for (const one of made) expect(one).toMatchObject({ ok: false, code: 'ledger_invalid' });
    return made.map((one) => /tx-\d+/.exec((one as { message: string }).message)?.[0] ?? '');
  }

  test('a new process goes on from the mark the reconciliation stored: it reads what follows, not what was verified before', async () => {
    expect(await dbOf(agent.runtime).execute(sql`SELECT sequence FROM ${ledgerVerified} WHERE agent_id = ${agent.runtime.agentId}::uuid`)).toMatchObject({ rows: [{ sequence: 12 }] });
    expect(await refusalInANewProcess()).toEqual(['tx-14', 'tx-14']);
  }, 60_000);

  test('a stored mark not signed with the secret (moved further, or its signature replaced) is not taken: the whole chain is verified', async () => {
    const agentId = agent.runtime.agentId;
    const [stored] = (await dbOf(agent.runtime).execute(sql`SELECT sequence, hash, keyed, mac FROM ${ledgerVerified} WHERE agent_id = ${agentId}::uuid`)).rows as { sequence: number; hash: string; keyed: number; mac: string }[];
    const [tx16] = (await dbOf(agent.runtime).execute(sql`SELECT tx_json->>'hash' AS hash FROM ${ledgerTable} WHERE agent_id = ${agentId}::uuid AND sequence = 16`)).rows as { hash: string }[];
    expect(stored?.sequence).toBe(12);
    // Past the edited tx-14, its signature left as it was.
    await dbOf(agent.runtime).execute(sql`UPDATE ${ledgerVerified} SET sequence = 16, hash = ${tx16?.hash}, keyed = 16 WHERE agent_id = ${agentId}::uuid`);
    expect(await refusalInANewProcess()).toEqual(['tx-3', 'tx-3']);
    // Where it was, with another signature.
    await dbOf(agent.runtime).execute(sql`UPDATE ${ledgerVerified} SET sequence = 12, hash = ${stored?.hash}, keyed = ${stored?.keyed}, mac = ${'0'.repeat(64)} WHERE agent_id = ${agentId}::uuid`);
    expect(await refusalInANewProcess()).toEqual(['tx-3', 'tx-3']);
    // As it was stored: taken again.
    await dbOf(agent.runtime).execute(sql`UPDATE ${ledgerVerified} SET mac = ${stored?.mac} WHERE agent_id = ${agentId}::uuid`);
    expect(await refusalInANewProcess()).toEqual(['tx-14', 'tx-14']);
  }, 60_000);
});

describe('a checkpoint remembers what it verified', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-checkpoint-remember-'));
    agent = await startAgent({ dataDir: dir, settings });
    await agent.service.ingest(makeRows({ n: 12, labels: ['fixed', 'rejected_fp'], keyPrefix: 'one' }));
    // A new process on that ledger: it has verified nothing yet.
    await agent.close();
    agent = await startAgent({ dataDir: dir, settings });
  }, 60_000);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('in a new process the first checkpoint verifies the whole chain; the next ones resume after it, and still check what was appended since', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    const at = '2026-12-01T00:00:00.000Z';
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: true, checkpoint: { sequence: 12 } });
    // A row the first checkpoint verified, edited since: only a full verification reads it again.
    await editPoints(agent, 5);
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: true, checkpoint: { sequence: 12 } });
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { sequence: 5, code: 'bad_hash' } });
    await agent.service.ingest(makeRows({ n: 4, labels: ['fixed'], keyPrefix: 'two' }));
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: true, checkpoint: { sequence: 16 } });
    await agent.service.ingest(makeRows({ n: 2, labels: ['fixed'], keyPrefix: 'three' }));
    await editPoints(agent, 17);
    expect(await ledger.checkpoint(at)).toMatchObject({ ok: false, code: 'ledger_invalid' });
  }, 60_000);
});
