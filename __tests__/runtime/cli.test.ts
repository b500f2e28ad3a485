import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeRows } from '../helpers/rows';
import { runCli } from '../helpers/cli';

let dir: string;

async function run(...args: string[]) {
  return runCli(args, { ...process.env, LOG_LEVEL: 'info' });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-cli-'));
  const rows = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'cli' });
  const lines = rows.map((r) => JSON.stringify(r));
  lines.splice(3, 0, '{"finding_key": "broken"');
  lines.push(JSON.stringify({ ...rows[0], finding_key: 'cli-bad', label: 'maybe' }));
  await writeFile(path.join(dir, 'outcomes.jsonl'), lines.join('\n'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('ingest --json: one JSON document on stdout, exit 2 with the refused rows by line, good rows kept', async () => {
  const db = path.join(dir, 'db');
  const { stdout, stderr, code } = await run('ingest', path.join(dir, 'outcomes.jsonl'), '--db', db, '--json');
  expect(code).toBe(2);
  const doc = JSON.parse(stdout);
  expect(stdout.trim().split('\n')).toHaveLength(1);
  expect(doc).toMatchObject({ rows: 42, accepted: 40, duplicate: 0 });
  expect(doc.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual([
    [4, '(line)'],
    [42, 'label'],
  ]);
  // The runtime's logs went to stderr, not stdout.
  expect(stderr.length).toBeGreaterThan(0);

  const learn = await run('learn', '--now', '2026-11-12T00:00:00Z', '--db', db, '--json');
  expect(learn.code).toBe(0);
  expect(JSON.parse(learn.stdout)).toMatchObject({ as_of: '2026-11-12T00:00:00.000Z', pending_outcomes: 40, lessons_created: 1 });

  const lessons = await run('lessons', '--db', db, '--json');
  expect(lessons.code).toBe(0);
  const listed = JSON.parse(lessons.stdout);
  expect(listed.count).toBe(1);
  expect(listed.lessons[0]).toMatchObject({ type: 'scan-model-lesson', category: 'false-positive-pattern', sample_size: 40 });

  const again = await run('ingest', path.join(dir, 'outcomes.jsonl'), '--db', db, '--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ accepted: 0, duplicate: 40 });
}, 120_000);

test('usage errors exit 1 and say what is wrong', async () => {
  const unknown = await run('frobnicate');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('unknown command "frobnicate"; one of ingest, learn, lessons, triage, metrics, replay, trajectories, ledger');
  const badNow = await run('learn', '--now', 'yesterday', '--db', path.join(dir, 'db2'));
  expect(badNow.code).toBe(1);
  expect(badNow.stderr).toContain('--now must be an ISO-8601 time');
  const noFile = await run('ingest', '--json');
  expect(noFile.code).toBe(1);
  expect(JSON.parse(noFile.stdout)).toEqual({ error: 'ingest needs a FILE (JSONL of outcome rows, or a .sarif log)' });
}, 60_000);

test('triage, metrics and replay: one JSON document each, with the exit codes of ingest', async () => {
  const db = path.join(dir, 'db-triage');
  await run('ingest', path.join(dir, 'outcomes.jsonl'), '--db', db, '--json');
  const findings = path.join(dir, 'findings.jsonl');
  const [row] = makeRows({ n: 1, labels: ['fixed'], category: 'xss', keyPrefix: 'cli-new' });
  await writeFile(findings, [JSON.stringify({ ...row, label: undefined }), JSON.stringify({ ...row, finding_key: 'cli-other', project: 'elsewhere' }), '{"finding_key": "x"}'].join('\n'));
  const triage = await run('triage', findings, '--db', db, '--json');
  expect(triage.code).toBe(2);
  const predicted = JSON.parse(triage.stdout);
  expect(predicted.predictions.map((p: { finding_key: string; evidence_n: number }) => [p.finding_key, p.evidence_n])).toEqual([
    ['cli-new-0', 40],
    ['cli-other', 0],
  ]);
  // 30 of the 40 stored outcomes were false positives
  expect(predicted.predictions[0].p_false_positive).toBeGreaterThan(0.6);
  expect(predicted.rejected.every((r: { line: number }) => r.line === 3)).toBe(true);
  expect(predicted.rejected.length).toBeGreaterThan(0);

  const metrics = await run('metrics', '--db', db, '--json', '--now', '2026-11-13T00:00:00Z', '--k', '5');
  expect(metrics.code).toBe(0);
  const report = JSON.parse(metrics.stdout);
  expect(report).toMatchObject({ as_of: '2026-11-13T00:00:00.000Z', k: 5, overall: { findings: 40, outcomes: 40, false_positive_rate: 0.75 } });
  // --slices takes a value: of the examples' two projects, the one with the most outcomes.
  const examples = path.join(dir, 'db-examples');
  expect((await run('ingest', path.join(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), '--db', examples, '--json')).code).toBe(0);
  const capped = await run('metrics', '--db', examples, '--json', '--slices', '1');
  expect(capped.code).toBe(0);
  const cappedReport = JSON.parse(capped.stdout);
  expect(cappedReport).toMatchObject({ slice_limit: 1, slice_totals: { project: 2 }, pending_outcomes: 0 });
  expect(Object.keys(cappedReport.by_project)).toEqual([Object.entries(JSON.parse((await run('metrics', '--db', examples, '--json')).stdout).by_project as Record<string, { outcomes: number }>).sort((a, b) => b[1].outcomes - a[1].outcomes)[0]?.[0] as string]);
  const badK = await run('metrics', '--db', db, '--k', 'five');
  expect(badK.code).toBe(1);
  expect(badK.stderr).toContain('--k must be an integer from 1 to 100000 (got "five")');
  // Too large for a LIMIT: refused by the CLI, never sent to the database.
  const hugeK = await run('metrics', '--db', db, '--k', '99999999999999999999');
  expect(hugeK.code).toBe(1);
  expect(hugeK.stderr).toContain('--k must be an integer from 1 to 100000 (got "99999999999999999999")');

  // the 40 outcomes recorded 30 penalties of -70 and 10 rewards of +100 in the reward ledger
  const verify = await run('ledger', 'verify', '--db', db, '--json');
  expect(verify.code).toBe(0);
  expect(JSON.parse(verify.stdout)).toEqual({ verification: { ok: true, count: 40, total: 10 * 100 - 30 * 70, keyed: 0, integrity: 'unkeyed', note: expect.stringContaining('unkeyed: detects accidental corruption only') } });
  const progress = await run('ledger', 'export', '--format', 'progress.json', '--db', db, '--json');
  expect(JSON.parse(progress.stdout)).toMatchObject({ schema_version: '1.0.0', reinforcement_learning_ledger: { total_score: -1_100 } });
  const badFormat = await run('ledger', 'export', '--db', db);
  expect(badFormat.code).toBe(1);
  expect(badFormat.stderr).toContain('--format progress.json');

  const example = path.join(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl');
  const replay = await run('replay', example, '--json');
  expect(replay.code).toBe(0);
  const replayed = JSON.parse(replay.stdout);
  expect(replayed).toMatchObject({ rows: 600, rejected: [] });
  expect(replayed.brier).toBeLessThan(replayed.brier_baseline);
  expect(replayed.lessons_created).toBeGreaterThan(0);
}, 120_000);
