import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { eventRow, type SeedEventRow } from '../helpers/seed-events';
import { sql } from 'drizzle-orm';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { EVENT_BATCH_ROWS } from '../../src/rules/rule-intake';
import { ruleBookOf } from '../../src/rules/rule-book-service';
import { eventCountOf } from '../../src/rules/model/promotion';
import { SOURCE_EVENT_IDS_KEPT } from '../../src/rules/model/rule-lessons';
import { ruleLessons } from '../../src/rules/tables';
import { dbOf, queryRows } from '../../src/shared/sql';

async function run(...args: string[]) {
  return runCli(args, { ...process.env, LOG_LEVEL: 'warn' });
}

// Four kinds of event, each row about 1.3 kB with two- and four-byte characters in its problem:
// 1,600 rows (more than three batches) make a file of about 2 MB, read in one-megabyte pieces that
// cut characters between them.
const KINDS = ['merge', 'deploy', 'lint', 'cache'];
const ROWS = 1_600;
const event = (i: number): SeedEventRow => {
  const kind = KINDS[i % KINDS.length] as string;
  return eventRow(i, { type: 'debug_session', category: kind, tags: [kind], problem: `the ${kind} step failed ${'ж'.repeat(500)} 😀`, solution: `check the ${kind} step before pushing` });
};
// Row 1,100 (0-based) in the third batch is refused; two lines that are not JSON, in the second and the last batch.
const BAD_ROW = 1_100;
const BROKEN = [`{"ts": "2026-02-02", "problem": "cut ${'🦀'.repeat(40)}`, '{"type": nope}'];

let dir: string;
let db: string;
let lines: string[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-events-file-'));
  db = path.join(dir, 'db');
  lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify(i === BAD_ROW ? { ...event(i), confidence: 'sure' } : event(i)));
  // After the insertions: line 3 is blank, line 701 and line 1,552 are not JSON.
  lines.splice(2, 0, '');
  lines.splice(700, 0, BROKEN[0] as string);
  lines.splice(1_551, 0, BROKEN[1] as string);
  await writeFile(path.join(dir, 'events.jsonl'), `${lines.join('\r\n')}\r\n`);
  await writeFile(path.join(dir, 'events.json'), JSON.stringify(Array.from({ length: ROWS }, (_, i) => (i === BAD_ROW ? { ...event(i), type: 'oops' } : event(i)))));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('events ingest FILE reads JSONL a piece at a time', () => {
  test('a 2 MB file in batches: refusals and broken lines by line, broken lines logged whole, progress to the last row, every event stored', async () => {
    expect(ROWS).toBeGreaterThan(3 * EVENT_BATCH_ROWS);
    const { stdout, stderr, code } = await run('events', 'ingest', path.join(dir, 'events.jsonl'), '--db', db, '--json');
    expect(code).toBe(2);
    const doc = JSON.parse(stdout);
    // Each lesson counted once, though every batch added to it: created by this file, so not also updated.
    expect(doc).toMatchObject({ rows: ROWS + 2, accepted: ROWS - 1, duplicate: 0, parse_errors: 2, lessons_created: KINDS.length, lessons_updated: 0 });
    // Row 1,100 is line 1,103: the blank line and the broken line before it.
    expect(doc.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual([
      [701, '(line)'],
      [1_552, '(line)'],
      [BAD_ROW + 3, 'confidence'],
    ]);
    const progress = stderr.split('\n').filter((line) => line.startsWith('[self-improve] ingested events: '));
    expect(progress.at(-1)).toBe(`[self-improve] ingested events: ${ROWS + 2}/${ROWS + 2}`);

    // Each broken line in the log as it was written, without its CR, cut characters whole.
    const logged = await run('events', 'parse-errors', '--db', db, '--json');
    expect(JSON.parse(logged.stdout).parse_errors.map((e: { line: string; script: string }) => [e.line, e.script])).toEqual([
      [BROKEN[1], 'self-improve events ingest'],
      [BROKEN[0], 'self-improve events ingest'],
    ]);
    const metrics = await run('rules', 'metrics', '--db', db, '--json');
    expect(JSON.parse(metrics.stdout).totals).toMatchObject({ events: ROWS - 1, lessons: KINDS.length });

    // Each lesson's document keeps its newest event ids; every event names its lesson.
    const booted = await bootRuntime({ dataDir: db, plugins: [selfImprovePlugin] });
    try {
      const book = await ruleBookOf(booted.runtime);
      const lessons = book.ruleLessons().sort((a, b) => KINDS.indexOf(a.category) - KINDS.indexOf(b.category));
      // Row 1,100 is of the first kind.
      const perKind = KINDS.map((_, k): number => ROWS / KINDS.length - (k === BAD_ROW % KINDS.length ? 1 : 0));
      expect(lessons.map((l) => [l.category, eventCountOf(l), l.sourceEventIds.length, l.eventConfirmations])).toEqual(KINDS.map((kind, k) => [kind, perKind[k] as number, SOURCE_EVENT_IDS_KEPT, perKind[k] as number]));
      const stored = await queryRows<{ n: number }>(dbOf(booted.runtime), sql`SELECT max(jsonb_array_length(doc->'sourceEventIds'))::int AS n FROM ${ruleLessons}`);
      expect(stored).toEqual([{ n: SOURCE_EVENT_IDS_KEPT }]);
      for (const lesson of lessons) {
        const provenance = await book.ruleLessonEvents(lesson.id);
        expect(provenance.map((e) => e.category)).toEqual(Array(eventCountOf(lesson)).fill(lesson.category));
        expect(provenance.slice(-SOURCE_EVENT_IDS_KEPT).map((e) => e.id)).toEqual(lesson.sourceEventIds);
        expect((await book.ruleLessonEvents(lesson.id, 3)).map((e) => e.id)).toEqual(lesson.sourceEventIds.slice(-3));
      }
    } finally {
      await booted.close();
    }

    // Again: every stored row is known (their ids are their content), the bad one refused again.
    const again = await run('events', 'ingest', path.join(dir, 'events.jsonl'), '--db', db, '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: ROWS + 2, accepted: 0, duplicate: ROWS - 1 });
  }, 300_000);

  test('a file that cannot be read is a usage error naming it, before any database is made', async () => {
    const missing = path.join(dir, 'missing.jsonl');
    const { stderr, code } = await run('events', 'ingest', missing, '--db', path.join(dir, 'never'));
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot read ${missing}: ENOENT`);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });

  test('a JSON array is read whole, its rows named by 0-based item', async () => {
    const { stdout, code } = await run('events', 'ingest', path.join(dir, 'events.json'), '--db', db, '--json');
    expect(code).toBe(2);
    const doc = JSON.parse(stdout);
    // Item 1,100 is refused for its type; every other item is the row stored from the JSONL file.
    expect(doc).toMatchObject({ rows: ROWS, accepted: 0, duplicate: ROWS - 1 });
    expect(doc.rejected).toEqual([{ index: BAD_ROW, field: 'type', message: expect.stringContaining('(got "oops")') }]);
  }, 300_000);
});
