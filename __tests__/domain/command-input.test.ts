import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectEvery, fileTextChunks, readFileHead } from '../../src/cli/session';
import { UsageError } from '../../src/cli/args';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-command-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function pieces(file: string, chunkBytes: number): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of fileTextChunks(file, chunkBytes)) out.push(piece);
  return out;
}

describe('fileTextChunks', () => {
  test('pieces of any size join to the text readFile gives: characters of 2-4 bytes cut between pieces, a byte-order mark, a bad byte', async () => {
    const file = path.join(dir, 'mixed.jsonl');
    const bytes = Buffer.concat([Buffer.from('\uFEFF{"s": "é😀ж"}\r\n{"t": "'), Buffer.from([0xff, 0xc3]), Buffer.from('🦀"}\n')]);
    await writeFile(file, bytes);
    const whole = await readFile(file, 'utf8');
    for (const size of [1, 2, 3, 5, 7, 1 << 20]) {
      const got = await pieces(file, size);
      expect(got.join('')).toBe(whole);
      if (size === 1) expect(got.length).toBeGreaterThan(10);
    }
  });

  test('an unreadable file is a usage error naming it', async () => {
    const missing = path.join(dir, 'missing.jsonl');
    const error = await pieces(missing, 16).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`cannot read ${missing}: ENOENT`);
  });

  test('readFileHead reads until it has the characters asked for after the leading whitespace', async () => {
    const file = path.join(dir, 'head.json');
    await writeFile(file, `${' '.repeat(100_000)}{"$schema": "sarif"}${'x'.repeat(200_000)}`);
    const head = await readFileHead(file, 2_000);
    expect(head.trimStart().startsWith('{"$schema": "sarif"}')).toBe(true);
    expect(head.trimStart().length).toBeGreaterThanOrEqual(2_000);
    expect(head.length).toBeLessThan(300_000);
  });
});

test('collectEvery collects each time the rows done pass another step, however the batches fall', () => {
  const at: number[] = [];
  let done = 0;
  const collect = collectEvery(10_000, () => at.push(done));
  for (done of [2_000, 4_000, 9_999, 10_000, 12_000, 19_999, 25_000, 26_000, 35_001, 35_002]) collect(done);
  expect(at).toEqual([10_000, 25_000, 35_001]);
});
