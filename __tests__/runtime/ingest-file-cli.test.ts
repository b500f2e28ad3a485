import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { makeRows } from '../helpers/rows';
import { storedOutcomes } from '../helpers/stored-outcomes';
import { runCli } from '../helpers/cli';


async function run(...args: string[]) {
  return runCli(args, { ...process.env, LOG_LEVEL: 'info' });
}

// More rows than two ingest batches, each line about 700 bytes of text in two- and four-byte
// characters: the file (about 4 MB) is read in four one-megabyte pieces, and characters are cut
// between pieces.
const ROWS = makeRows({ n: 4_600, labels: ['fixed', 'rejected_fp', 'accepted'], category: 'xss', keyPrefix: 'file', summary: (i) => `é ${i} 😀 ${'ж'.repeat(300)} ${'🦀'.repeat(i % 7)}` });
const BAD_LABEL = 2_400;
const refusedRows = (doc: { rejected: { line: number; field: string }[] }) => doc.rejected.map((r) => [r.line, r.field]);

let dir: string;
let db: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-ingest-file-'));
  db = path.join(dir, 'db');
  const rows = ROWS.map((r, i) => (i === BAD_LABEL ? { ...r, label: 'maybe' } : r));
  // A byte-order mark, CRLF breaks, a blank line (line 3), a line that is not JSON (line 4,302), no break at the end.
  const lines = rows.map((r) => JSON.stringify(r));
  lines.splice(2, 0, '   ');
  lines.splice(4_301, 0, '{"finding_key": "cut');
  await writeFile(path.join(dir, 'outcomes.jsonl'), `\uFEFF${lines.join('\r\n')}`);
  await writeFile(path.join(dir, 'outcomes.json'), JSON.stringify(rows, null, 1));
  await writeFile(path.join(dir, 'one.json'), JSON.stringify({ ...ROWS[0], finding_key: 'file-one' }, null, 2));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ingest FILE reads JSONL a piece at a time', () => {
  test('every row of a 4 MB file in four pieces: refusals by line, progress to the last row, text intact', async () => {
    const { stdout, stderr, code } = await run('ingest', path.join(dir, 'outcomes.jsonl'), '--db', db, '--json');
    expect(code).toBe(2);
    const doc = JSON.parse(stdout);
    // 4,600 rows and the line that is not JSON; the blank line is no row.
    expect(doc).toMatchObject({ rows: 4_601, accepted: 4_599, duplicate: 0 });
    // Row 2,400 (0-based) is line 2,402 (the blank line before it); the broken line is 4,302.
    expect(refusedRows(doc)).toEqual([
      [BAD_LABEL + 2, 'label'],
      [4_302, '(line)'],
    ]);
    const progress = stderr.split('\n').filter((line) => line.startsWith('[self-improve] ingested rows: '));
    expect(progress.at(-1)).toBe('[self-improve] ingested rows: 4601/4601');

    const booted = await bootRuntime({ dataDir: db, plugins: [selfImprovePlugin] });
    try {
      const stored = await storedOutcomes(booted.runtime, ROWS.map((r) => r.finding_key as string));
      expect(stored).toHaveLength(4_599);
      const summaries = new Map(stored.map((r) => [r.finding_key, r.summary]));
      for (const [i, row] of ROWS.entries()) if (i !== BAD_LABEL) expect(summaries.get(row.finding_key)).toBe(row.summary);
    } finally {
      await booted.close();
    }
  }, 180_000);

  test('a JSON array and one object over several lines are read whole, as the body of a request is', async () => {
    const array = await run('ingest', path.join(dir, 'outcomes.json'), '--db', db, '--json');
    expect(array.code).toBe(2);
    const doc = JSON.parse(array.stdout);
    expect(doc).toMatchObject({ rows: 4_600, accepted: 0, duplicate: 4_599 });
    // In an array, a row is named by its item number.
    expect(refusedRows(doc)).toEqual([[BAD_LABEL + 1, 'label']]);

    const one = await run('ingest', path.join(dir, 'one.json'), '--db', db, '--json');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ rows: 1, accepted: 1, rejected: [] });
  }, 180_000);

  test('a file that is not there is a usage error, before any agent starts', async () => {
    const missing = await run('ingest', path.join(dir, 'nowhere.jsonl'), '--db', path.join(dir, 'never'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read ${path.join(dir, 'nowhere.jsonl')}: ENOENT`);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });
});
