import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostileOutcomeRows } from '../helpers/hostile-rows';
import { eventRow, mergeEvent, thrice } from '../helpers/seed-events';
import { runCli } from '../helpers/cli';

const STEP_MS = 120_000;
let dir: string;

async function run(...args: string[]) {
  return runCli(args, { ...process.env, LOG_LEVEL: 'warn' });
}

/** A JSONL line as JSON.stringify writes it (NUL as \u0000, a lone surrogate as \ud800: JSON.parse gives them back). */
const line = (row: unknown) => JSON.stringify(row);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-hostile-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('ingest FILE: every good row kept, each hostile row refused by its line and field; exit 2; learning then runs', async () => {
  const { good, bad } = hostileOutcomeRows('cli-hostile');
  // Line 1 good, then each bad row followed by a good one; `1e999` written as JSON text, as a file would hold it.
  const lines = [line(good[0])];
  bad.forEach((b, i) => {
    lines.push(b.field === 'confidence' && b.row.confidence !== null ? line({ ...b.row, confidence: 0.5 }).replace('"confidence":0.5', '"confidence":1e999') : line(b.row));
    if (good[i + 1]) lines.push(line(good[i + 1]));
  });
  const file = path.join(dir, 'outcomes.jsonl');
  await writeFile(file, lines.join('\n'));
  const db = path.join(dir, 'db-outcomes');

  const ingest = await run('ingest', file, '--db', db, '--json');
  expect(ingest.code).toBe(2);
  const report = JSON.parse(ingest.stdout);
  expect(report).toMatchObject({ rows: good.length + bad.length, accepted: good.length, duplicate: 0 });
  const badLines = bad.map((b) => 1 + lines.findIndex((l) => l.includes(`"${b.row.finding_key}"`)));
  expect(report.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual(bad.map((b, i) => [badLines[i], b.field]));
  bad.forEach((b, i) => expect(report.rejected[i].message).toMatch(b.message));

  const learn = await run('learn', '--now', '2026-11-12T00:00:00Z', '--db', db, '--json');
  expect(learn.code).toBe(0);
  expect(JSON.parse(learn.stdout)).toMatchObject({ pending_outcomes: good.length, failed_groups: [] });

  const again = await run('ingest', file, '--db', db, '--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ accepted: 0, duplicate: good.length });
}, STEP_MS);

test('ingest FILE.sarif: a result whose message holds a NUL is refused by its path; the other results are stored', async () => {
  const result = (guid: string, text: string) => ({ ruleId: 'js/xss', guid, message: { text }, suppressions: [{ kind: 'inSource', justification: 'false positive' }] });
  const sarif = {
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'CodeQL', version: '2.19.0' } }, properties: { project: 'payments' }, results: [result('g-1', 'ok'), result('g-2', 'xss\u0000'), result('g-3', 'fine 😀')] }],
  };
  const file = path.join(dir, 'scan.sarif');
  await writeFile(file, JSON.stringify(sarif));
  const ingest = await run('ingest', file, '--db', path.join(dir, 'db-sarif'), '--now', '2026-11-02T00:00:00Z', '--json');
  expect(ingest.code).toBe(2);
  const report = JSON.parse(ingest.stdout);
  expect(report.outcomes).toEqual({ accepted: 2, duplicate: 0 });
  expect(report.rejected.map((r: { path: string; field: string }) => [r.path, r.field])).toEqual([['runs[0].results[1]', 'summary']]);
}, STEP_MS);

test('events ingest FILE: good events kept, hostile ones refused by line and field, a broken line with a NUL logged; exit 2', async () => {
  const good = thrice(mergeEvent, 1);
  const lines = [
    line(good[0]),
    line(eventRow(5, { type: 'mistake', category: 'shell', problem: 'nul\u0000', solution: 'x' })),
    line(good[1]),
    line(eventRow(6, { type: 'mistake', category: 'shell', tags: ['\uD800'], problem: 'p', solution: 's' })),
    line({ ...eventRow(7, { type: 'mistake', category: 'shell', problem: 'p', solution: 's' }), ts: '0001-01-01T00:00:00Z' }),
    '{"type": "mistake", "problem": "raw \u0000 byte',
    line(good[2]),
  ];
  const file = path.join(dir, 'events.jsonl');
  await writeFile(file, lines.join('\n'));
  const db = path.join(dir, 'db-events');

  const ingest = await run('events', 'ingest', file, '--db', db, '--json');
  expect(ingest.code).toBe(2);
  const report = JSON.parse(ingest.stdout);
  expect(report).toMatchObject({ rows: 7, accepted: 3, duplicate: 0, parse_errors: 1, rules_promoted: ['R-001'] });
  expect(report.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual([
    [6, '(line)'],
    [2, 'problem'],
    [4, 'tags.0'],
    [5, 'ts'],
  ]);
  expect(report.rejected[1].message).toMatch(/^problem contains a NUL character \(U\+0000\)/);
  expect(report.rejected[2].message).toMatch(/unpaired UTF-16 surrogate/);
  expect(report.rejected[3].message).toMatch(/^ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z/);

  const logged = await run('events', 'parse-errors', '--db', db, '--json');
  expect(JSON.parse(logged.stdout).parse_errors.map((e: { line: string }) => e.line)).toEqual(['{"type": "mistake", "problem": "raw \uFFFD byte']);
}, STEP_MS);

test('trajectories score FILE: a step with a NUL is refused by line and field, the trajectory stored with the others; exit 2', async () => {
  const file = path.join(dir, 'run.jsonl');
  await writeFile(
    file,
    [
      line({ kind: 'message', text: 'fix the failing test' }),
      line({ kind: 'tool', name: 'Bash', text: 'bun test\u0000' }),
      line({ kind: 'output', text: '1 pass' }),
      line({ kind: 'model', text: 'done', tokens: null }),
      '{"kind":"model","text":"more","tokens":1e999}',
      line({ kind: 'tool', name: 'Bash', text: 'git commit', ts: '0001-01-01T00:00:00Z' }),
    ].join('\n'),
  );
  const db = path.join(dir, 'db-trajectories');
  const score = await run('trajectories', 'score', file, '--db', db, '--json');
  expect(score.code).toBe(2);
  const [scored] = JSON.parse(score.stdout).trajectories;
  expect(scored.errors.map((e: { line: number; field: string }) => [e.line, e.field])).toEqual([
    [2, 'text'],
    [4, 'tokens'],
    [5, 'tokens'],
    [6, 'ts'],
  ]);
  expect(scored.trajectory.run_id).toBe(file);

  const listed = await run('trajectories', 'preview', '--db', db, '--json');
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout).count).toBe(1);
}, STEP_MS);
