// The keyed ledger on a real runtime and through the CLI: an unkeyed ledger keeps verifying and
// goes on keyed once SELF_IMPROVE_LEDGER_SECRET is set (its head signed from then on); a signed
// checkpoint taken with `ledger checkpoint` (or GET /ledger/checkpoint) later shows a rewrite of
// the whole table by someone without the key; without the key nothing is appended onto a keyed
// ledger and nothing is "recovered" away.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type LedgerTransaction, transactionHash } from '../../src/ledger/model/chain';
import { handleLedgerCheckpoint } from '../../src/ledger/surfaces/ledger-routes';
import { ledgerTable, ledgerHead } from '../../src/ledger/tables';
import { rewardLedgerOf } from '../../src/ledger/reward-ledger-service';
import { dbOf } from '../../src/shared/sql';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { runCli } from '../helpers/cli';

const SECRET = 'correct horse battery staple 42';
const keyed = { SELF_IMPROVE_LEDGER_SECRET: SECRET, SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000000' };

async function cli(env: Record<string, string>, ...args: string[]) {
  return runCli(args, { ...process.env, LOG_LEVEL: 'error', ...env });
}

/** Rewrites every row as someone with write access and no key would: points doubled, re-hashed with SHA-256, re-linked, head moved. */
async function rewriteWithoutKey(agent: TestAgent): Promise<void> {
  const db = dbOf(agent.runtime);
  const rows = (await db.execute(sql`SELECT tx_json FROM ${ledgerTable} WHERE agent_id = ${agent.runtime.agentId}::uuid ORDER BY sequence`)).rows.map((r) => r.tx_json as LedgerTransaction);
  let previous: LedgerTransaction | null = null;
  for (const tx of rows) {
    const { hash: _h, hash_alg: _k, ...body } = { ...tx, points: tx.points * 2 };
    const forged = { ...body, prev_hash: previous?.hash ?? body.prev_hash, running_total: (previous?.running_total ?? 0) + body.points };
    const row: LedgerTransaction = { ...forged, hash: transactionHash(forged) };
    await db.execute(sql`UPDATE ${ledgerTable} SET tx_json = ${JSON.stringify(row)}::jsonb WHERE agent_id = ${agent.runtime.agentId}::uuid AND sequence = ${row.sequence}`);
    previous = row;
  }
  await db.execute(sql`UPDATE ${ledgerHead} SET last_hash = ${previous?.hash ?? ''}, mac = NULL WHERE agent_id = ${agent.runtime.agentId}::uuid`);
}

describe('a ledger keyed with SELF_IMPROVE_LEDGER_SECRET', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-keyed-'));
    const unkeyed = await startAgent({ dataDir: dir });
    await unkeyed.service.ingest(makeRows({ n: 3, labels: ['fixed'], keyPrefix: 'before' }));
    await unkeyed.close();
    agent = await startAgent({ dataDir: dir, settings: keyed });
  }, 60_000);
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the unkeyed rows keep verifying; new ones are keyed, and verify says which are which', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 3, keyed: 0, integrity: 'unkeyed' });
    await agent.service.ingest(makeRows({ n: 2, labels: ['rejected_fp'], keyPrefix: 'after' }));
    const verification = await ledger.verify();
    expect(verification).toMatchObject({ ok: true, count: 5, total: 160, keyed: 2, integrity: 'partly_keyed' });
    expect((verification as { note: string }).note).toContain('transactions 1 to 3 are unkeyed');
    expect((await ledger.history({ limit: 5 })).map((t) => t.hash_alg ?? 'sha256')).toEqual(['hmac-sha256', 'hmac-sha256', 'sha256', 'sha256', 'sha256']);
  });

  test('GET /ledger/checkpoint signs the head; 409 without a secret', async () => {
    const r = recordingResponse();
    await handleLedgerCheckpoint({ query: {} } as never, r.res as never, agent.runtime as never);
    expect(r.sent).toMatchObject({ status: 200, body: { version: 1, agent_id: agent.runtime.agentId, sequence: 5, running_total: 160, mac: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const plain = await startAgent();
    try {
      const refused = recordingResponse();
      await handleLedgerCheckpoint({ query: {} } as never, refused.res as never, plain.runtime as never);
      expect(refused.sent).toMatchObject({ status: 409, body: { code: 'no_secret' } });
    } finally {
      await plain.close();
    }
  }, 60_000);

  test('a rewrite of the whole table without the key: the chain is no longer keyed, the checkpoint names the rewrite, reconciliation cuts nothing away', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    const made = await ledger.checkpoint('2026-12-01T00:00:00.000Z');
    expect(made.ok).toBe(true);
    const checkpoint = (made as { checkpoint: Parameters<typeof ledger.verifyCheckpoint>[0] }).checkpoint;
    expect(await ledger.verifyCheckpoint(checkpoint)).toMatchObject({ verification: { ok: true }, checkpoint: { ok: true, sequence: 5 } });
    await rewriteWithoutKey(agent);
    // Every row re-hashed as plain SHA-256 (head signature dropped) is a chain of its own: the chain
    // alone only says it is no longer keyed; the checkpoint names the rewrite.
    const verification = await ledger.verify();
    expect(verification).toMatchObject({ ok: true, keyed: 0, integrity: 'unkeyed' });
    expect((verification as { note: string }).note).toContain('SELF_IMPROVE_LEDGER_SECRET is set and no transaction is keyed yet');
    expect(await ledger.verifyCheckpoint(checkpoint)).toMatchObject({ verification: { ok: true }, checkpoint: { ok: false, code: 'head_differs' } });
    // Reconciliation flags the doubled points for review; it cuts nothing away and appends nothing.
    expect(await ledger.reconcile()).toMatchObject({ ok: false, quarantined: 0, appended: 0, mismatched: 5 });
  });
});

describe('a keyed ledger whose last rows are cut off behind its back', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ settings: keyed });
    await agent.service.ingest(makeRows({ n: 4, labels: ['fixed'], keyPrefix: 'cut' }));
  });
  afterAll(async () => {
    await agent.close();
  });

  test('head moved back to the new last row: its signature no longer matches; signature dropped: a keyed ledger with an unsigned head; neither is "recovered"', async () => {
    const ledger = await rewardLedgerOf(agent.runtime);
    expect(await ledger.verify()).toMatchObject({ ok: true, count: 4, keyed: 4, integrity: 'keyed' });
    const db = dbOf(agent.runtime);
    const [, third] = await ledger.history({ limit: 2 });
    await db.execute(sql`DELETE FROM ${ledgerTable} WHERE agent_id = ${agent.runtime.agentId}::uuid AND sequence = 4`);
    await db.execute(sql`UPDATE ${ledgerHead} SET count = 3, last_hash = ${third?.hash ?? ''} WHERE agent_id = ${agent.runtime.agentId}::uuid`);
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { code: 'head_forged' } });
    expect(await ledger.reconcile()).toMatchObject({ ok: false, quarantined: 0, appended: 0, chain_problem: { code: 'key_mismatch' } });
    await db.execute(sql`UPDATE ${ledgerHead} SET mac = NULL WHERE agent_id = ${agent.runtime.agentId}::uuid`);
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { code: 'head_unsigned' } });
    // Appends onto a head the key did not sign are refused, not chained onto it.
    ledger.registerSource('test_event', async (refs) => new Set(refs));
    expect(await ledger.append({ type: 'reward', category: 'guard_decision', points: 1, action: 'x', source: 'test_event', source_ref: 'e-1' })).toMatchObject({ ok: false, code: 'key_mismatch' });
    expect(await ledger.verify()).toMatchObject({ ok: false, first: { code: 'head_unsigned' } });
  });
});

describe('the CLI: ledger checkpoint, ledger verify --checkpoint', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-keyed-cli-'));
    await writeFile(path.join(dir, 'rows.jsonl'), makeRows({ n: 6, labels: ['fixed', 'accepted', 'rejected_fp'], keyPrefix: 'cli' }).map((r) => JSON.stringify(r)).join('\n'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('checkpoint --out, then verify --checkpoint: ok; the table rewritten without the key: exit 1 naming the problem', async () => {
    const db = path.join(dir, 'db');
    const out = path.join(dir, 'checkpoint.json');
    expect((await cli(keyed, 'ingest', path.join(dir, 'rows.jsonl'), '--db', db)).code).toBe(0);
    const made = await cli(keyed, 'ledger', 'checkpoint', '--out', out, '--db', db);
    expect(made.code).toBe(0);
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ version: 1, sequence: 6, running_total: 160 });

    const ok = await cli(keyed, 'ledger', 'verify', '--checkpoint', out, '--db', db);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('keyed (HMAC-SHA256)');
    expect(ok.stdout).toContain('checkpoint ok: the chain up to tx-6 (total 160)');

    const noKey = await cli({}, 'ledger', 'checkpoint', '--db', db, '--json');
    expect(noKey.code).toBe(1);
    expect(JSON.parse(noKey.stdout)).toMatchObject({ code: 'no_secret' });

    // A run without the key stores its outcomes but appends nothing unkeyed onto the keyed ledger.
    const more = path.join(dir, 'more.jsonl');
    await writeFile(more, makeRows({ n: 2, labels: ['fixed'], keyPrefix: 'keyless' }).map((r) => JSON.stringify(r)).join('\n'));
    expect(JSON.parse((await cli({}, 'ingest', more, '--db', db, '--json')).stdout)).toMatchObject({ accepted: 2 });
    expect(JSON.parse((await cli(keyed, 'ledger', 'verify', '--db', db, '--json')).stdout).verification).toMatchObject({ ok: true, count: 6, keyed: 6 });

    const agent = await startAgent({ dataDir: db, settings: keyed });
    try {
      await rewriteWithoutKey(agent);
    } finally {
      await agent.close();
    }
    const bad = await cli(keyed, 'ledger', 'verify', '--checkpoint', out, '--db', db, '--json');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ verification: { ok: true, integrity: 'unkeyed' }, checkpoint: { ok: false, code: 'head_differs' } });
    expect(bad.stdout).toContain('no transaction is keyed yet');

    await writeFile(out, JSON.stringify({ ...JSON.parse(await readFile(out, 'utf8')), running_total: 999 }));
    const forged = await cli(keyed, 'ledger', 'verify', '--checkpoint', out, '--db', db, '--json');
    expect(JSON.parse(forged.stdout).checkpoint).toMatchObject({ ok: false, code: 'forged_checkpoint' });
    await writeFile(out, '{"version": 1}');
    const notOne = await cli(keyed, 'ledger', 'verify', '--checkpoint', out, '--db', db);
    expect(notOne.code).toBe(1);
    expect(notOne.stderr).toContain('not a ledger checkpoint: agent_id');
  }, 180_000);
});
