// `kill -9` of the CLI in the middle of `self-improve ingest` and of `self-improve learn`, then a
// re-run: every rewarded outcome has exactly one ledger entry, `ledger verify` is ok, and lesson
// reinforcement counters are what a run without the crash gives.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI_SOURCE, runCli } from '../helpers/cli';
import { ledgerCounts } from '../helpers/ledger-counts';
import { makeRows } from '../helpers/rows';
import { startAgent } from '../helpers/runtime';

const ENV = { ...process.env, LOG_LEVEL: 'warn', SELF_IMPROVE_LESSON_MODEL: 'off', SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '1000' };
let dir: string;

async function run(...args: string[]) {
  return runCli(args, ENV);
}

/** Runs the CLI and sends it SIGKILL as soon as its stderr matches `when`; the line that matched. */
async function runAndKill(when: RegExp, ...args: string[]): Promise<{ matched: string; signal: unknown }> {
  const proc = Bun.spawn([process.execPath, 'run', CLI_SOURCE, ...args], { stdout: 'ignore', stderr: 'pipe', env: ENV });
  const decoder = new TextDecoder();
  let seen = '';
  let matched = '';
  for await (const chunk of proc.stderr) {
    seen += decoder.decode(chunk, { stream: true });
    const hit = seen.split('\n').find((line) => when.test(line));
    if (hit) {
      matched = hit;
      proc.kill('SIGKILL');
      break;
    }
  }
  await proc.exited;
  return { matched, signal: proc.signalCode };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-crash-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('kill -9 during ingest, then a re-run', () => {
  test('10,000 rows in five batches, killed after the first: the re-run pays every rewarded outcome once and the ledger verifies', async () => {
    const file = path.join(dir, 'outcomes.jsonl');
    await writeFile(file, makeRows({ n: 10_000, labels: ['fixed', 'rejected_fp', 'ignored', 'accepted', 'reopened'], keyPrefix: 'crash', stepMinutes: 1 }).map((r) => JSON.stringify(r)).join('\n'));
    const db = path.join(dir, 'db-ingest');
    const killed = await runAndKill(/ingested rows: [0-9]+\/10000/, 'ingest', file, '--db', db);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.matched).not.toContain('10000/10000');

    const rerun = await run('ingest', file, '--db', db, '--json');
    expect(rerun.code).toBe(0);
    const done = JSON.parse(rerun.stdout);
    expect(done.accepted + done.duplicate).toBe(10_000);
    expect(done.duplicate).toBeGreaterThan(0);

    const verify = await run('ledger', 'verify', '--db', db, '--json');
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout).verification).toMatchObject({ ok: true, count: 8_000 });
    const score = await run('ledger', 'score', '--db', db, '--json');
    expect(JSON.parse(score.stdout).metrics.actions_total).toBe(8_000);

    const agent = await startAgent({ dataDir: db });
    try {
      expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 8_000, entries: 8_000, paidTwice: 0, unpaid: 0 });
    } finally {
      await agent.close();
    }
  }, 240_000);
});

describe('kill -9 during learn, then a re-run', () => {
  test('60 groups, killed after the first: the re-run leaves every lesson as a run without the crash', async () => {
    // 60 groups of 60 outcomes, one every 8 hours: three 7-day windows each, so lessons get reinforced.
    const rows = Array.from({ length: 60 }, (_, g) =>
      makeRows({ n: 60, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: `cat${g}`, keyPrefix: `g${g}`, stepMinutes: 8 * 60 }),
    ).flat();
    const file = path.join(dir, 'groups.jsonl');
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const [crashed, clean] = [path.join(dir, 'db-learn-crash'), path.join(dir, 'db-learn-clean')];
    for (const db of [crashed, clean]) expect((await run('ingest', file, '--db', db)).code).toBe(0);

    const killed = await runAndKill(/learned groups: [0-9]+\/60/, 'learn', '--now', '2026-12-31T00:00:00Z', '--db', crashed);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.matched).not.toContain('60/60');
    const rerun = await run('learn', '--now', '2026-12-31T00:00:00Z', '--db', crashed, '--json');
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).pending_outcomes).toBeLessThan(3_600);
    expect((await run('learn', '--now', '2026-12-31T00:00:00Z', '--db', clean)).code).toBe(0);
    // A second re-run finds nothing to do and changes nothing.
    expect(JSON.parse((await run('learn', '--now', '2027-01-01T00:00:00Z', '--db', crashed, '--json')).stdout).pending_outcomes).toBe(0);

    const lessonsOf = async (db: string) => {
      const listed = JSON.parse((await run('lessons', '--db', db, '--json')).stdout) as { lessons: { id: string; reinforcements: number; evidence_count: number }[] };
      return Object.fromEntries(listed.lessons.map((l) => [l.id, [l.reinforcements, l.evidence_count]]));
    };
    const [afterCrash, withoutCrash] = [await lessonsOf(crashed), await lessonsOf(clean)];
    expect(Object.keys(withoutCrash)).toHaveLength(60);
    expect(Object.values(withoutCrash).every(([r, n]) => r === 2 && n === 60)).toBe(true);
    expect(afterCrash).toEqual(withoutCrash);
    const verify = await run('ledger', 'verify', '--db', crashed, '--json');
    expect(JSON.parse(verify.stdout).verification).toMatchObject({ ok: true, count: 3_600 });
  }, 300_000);
});
