// Two processes on one PostgreSQL database (plugin-sql's PostgreSQL path, over the wire): two CLI
// ingests at once, and an agent beside the CLI. Every rewarded outcome is paid once, the ledger
// verifies, and each process sees what the other wrote. See helpers/postgres-server.ts for what
// serves the database (PGlite behind self-improve pglite-server by default; a real PostgreSQL with
// SELF_IMPROVE_TEST_POSTGRES_URL).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { scanOutcomeServiceOf } from '../../src/scan/scan-outcome-service';
import { ledgerCounts } from '../helpers/ledger-counts';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server';
import { makeRows } from '../helpers/rows';

const LABELS = ['fixed', 'rejected_fp', 'ignored', 'accepted', 'reopened'] as const;
let dir: string;

async function cli(database: TestPostgres, ...args: string[]) {
  const env = { ...process.env, LOG_LEVEL: 'warn', SELF_IMPROVE_LESSON_MODEL: 'off', SELF_IMPROVE_LEDGER_RECONCILE_EVERY: '500', POSTGRES_URL: database.url };
  return runCli(args, env);
}

async function jsonl(name: string, rows: Record<string, unknown>[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

async function withAgent<T>(database: TestPostgres, work: (agent: Awaited<ReturnType<typeof bootRuntime>>) => Promise<T>): Promise<T> {
  const agent = await bootRuntime({ postgresUrl: database.url, plugins: [selfImprovePlugin], settings: { EMBEDDING_DIMENSION: '384', SELF_IMPROVE_LESSON_MODEL: 'off' } });
  try {
    return await work(agent);
  } finally {
    await agent.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-pg-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('two CLI processes ingesting into one PostgreSQL database at once', () => {
  test('3,000 rows each, 1,000 of them the same: every rewarded outcome paid once, the ledger verifies', async () => {
    const database = await startTestPostgres();
    try {
      const shared = makeRows({ n: 1_000, labels: [...LABELS], keyPrefix: 'shared', stepMinutes: 1 });
      const first = await jsonl('first.jsonl', [...shared, ...makeRows({ n: 2_000, labels: [...LABELS], keyPrefix: 'first', stepMinutes: 1 })]);
      const second = await jsonl('second.jsonl', [...makeRows({ n: 2_000, labels: [...LABELS], keyPrefix: 'second', stepMinutes: 1 }), ...shared]);
      // The first process migrates the schema (on a fresh database; two first boots at once would
      // both migrate), then both ingest at once.
      expect((await cli(database, 'ledger', 'score', '--json')).code).toBe(0);
      const [a, b] = await Promise.all([cli(database, 'ingest', first, '--json'), cli(database, 'ingest', second, '--json')]);
      // Exit 0, and nothing logged at error level (plugin-sql's warnings about optional extensions aside).
      const errorLines = (stderr: string) => stderr.split('\n').filter((line) => /^\s*Error\b/.test(line));
      expect([a.code, b.code, errorLines(a.stderr), errorLines(b.stderr)]).toEqual([0, 0, [], []]);
      const [ra, rb] = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
      // Each shared row is stored once, by whichever process got there first.
      expect(ra.accepted + rb.accepted).toBe(5_000);
      expect(ra.duplicate + rb.duplicate).toBe(1_000);

      const verify = await cli(database, 'ledger', 'verify', '--json');
      expect(verify.code).toBe(0);
      // 5,000 outcomes, one label in five `ignored` (no points): 4,000 entries.
      expect(JSON.parse(verify.stdout).verification).toMatchObject({ ok: true, count: 4_000 });
      await withAgent(database, async (agent) => {
        expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 4_000, entries: 4_000, paidTwice: 0, unpaid: 0 });
      });
    } finally {
      await database.stop();
    }
  }, 300_000);
});

describe('an agent and the CLI on one PostgreSQL database', () => {
  test('each sees the outcomes the other stored, and the ledger pays each once', async () => {
    const database = await startTestPostgres();
    try {
      await withAgent(database, async (agent) => {
        const service = await scanOutcomeServiceOf(agent.runtime);
        const fromAgent = await service.ingest(makeRows({ n: 200, labels: [...LABELS], keyPrefix: 'agent', stepMinutes: 5 }));
        expect(fromAgent.accepted).toBe(200);

        // The CLI, another process, ingests while the agent runs, and sees the agent's outcomes.
        const fromCli = await cli(database, 'ingest', await jsonl('cli.jsonl', makeRows({ n: 300, labels: [...LABELS], keyPrefix: 'cli', stepMinutes: 5 })), '--json');
        expect(fromCli.code).toBe(0);
        expect(JSON.parse(fromCli.stdout).accepted).toBe(300);
        const score = JSON.parse((await cli(database, 'ledger', 'score', '--json')).stdout);
        expect(score.metrics.actions_total).toBe(400);

        // The agent sees the CLI's outcomes as soon as the CLI has committed them.
        expect(await ledgerCounts(agent.runtime)).toEqual({ rewarded: 400, entries: 400, paidTwice: 0, unpaid: 0 });
        const again = await service.ingest(makeRows({ n: 300, labels: [...LABELS], keyPrefix: 'cli', stepMinutes: 5 }));
        expect([again.accepted, again.duplicate]).toEqual([0, 300]);
      });
    } finally {
      await database.stop();
    }
  }, 300_000);
});

describe('two CLI processes learning from one PostgreSQL database at once', () => {
  test('lessons, evidence and reinforcements are those of one learning run', async () => {
    const database = await startTestPostgres();
    try {
      // 12 groups of 60 outcomes, one every 8 hours: each group spans three 7-day windows.
      const rows = Array.from({ length: 12 }, (_, g) =>
        makeRows({ n: 60, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: `cat${g}`, keyPrefix: `g${g}`, stepMinutes: 8 * 60 }),
      ).flat();
      expect((await cli(database, 'ingest', await jsonl('groups.jsonl', rows), '--json')).code).toBe(0);
      const [a, b] = await Promise.all([cli(database, 'learn', '--now', '2026-12-31T00:00:00Z', '--json'), cli(database, 'learn', '--now', '2026-12-31T00:00:00Z', '--json')]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const listed = JSON.parse((await cli(database, 'lessons', '--json')).stdout) as { lessons: { reinforcements: number; evidence_count: number }[] };
      expect(listed.lessons).toHaveLength(12);
      expect(listed.lessons.map((l) => [l.reinforcements, l.evidence_count])).toEqual(Array.from({ length: 12 }, () => [2, 60]));
    } finally {
      await database.stop();
    }
  }, 300_000);
});
