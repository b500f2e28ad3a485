import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  COMMIT_OUTPUT_PATTERN,
  type CommitSource,
  detectCommits,
  isMixedHex,
  LOG_COMMIT_PATTERN,
  mentionsGitCommit,
  PUSH_RANGE_PATTERN,
} from '../../src/trajectories/model/commits';

const FULL = '3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a';

type Seen = [hash: string, line: number, source: CommitSource];
const seen = (texts: string[]): Seen[] => detectCommits(texts).map((s) => [s.hash, s.line, s.source]);

describe('COMMIT_OUTPUT_PATTERN ([branch hash] message)', () => {
  const table: [string, string | null][] = [
    ['[main def456a] Add feature X', 'def456a'],
    ['[feature/x 1a2b3c4] Wire the parser', '1a2b3c4'],
    ['[main (root-commit) abc1234] Initial commit', 'abc1234'],
    ['[detached HEAD 9f8e7d6] Try a fix', '9f8e7d6'],
    [`[fix-42 ${FULL}] Full hash`, FULL],
    ['[main 1234567] All-digit abbreviation (the bracket is the evidence)', '1234567'],
    ['[INFO 2024] message', null],
    ['[ 12%] Building CXX object src/CMakeFiles/app.dir/main.cpp.o', null],
    ['[100%] Linking CXX executable app', null],
    ['[main def456a]', null],
    ['[main DEF456A] upper-case is not git output', null],
    ['[ma:in def456a] colon is not allowed in a ref', null],
    ['[main def45] too short', null],
  ];
  test.each(table)('%p => %p', (text, hash) => {
    expect(COMMIT_OUTPUT_PATTERN.exec(text)?.[1] ?? null).toBe(hash);
  });
});

describe('LOG_COMMIT_PATTERN (commit <hash> at line start)', () => {
  const table: [string, string | null][] = [
    [`commit ${FULL}`, FULL],
    [`commit ${FULL} (HEAD -> main, origin/main)`, FULL],
    ['commit abc123f', 'abc123f'],
    ['commit message is empty', null],
    ['commit abc12', null],
    [`commit ${FULL}0`, null],
    [`Merge commit ${FULL}`, null],
    ['commit abc123fg', null],
  ];
  test.each(table)('%p => %p', (text, hash) => {
    expect(LOG_COMMIT_PATTERN.exec(text)?.[1] ?? null).toBe(hash);
  });
});

describe('PUSH_RANGE_PATTERN (old..new ref -> ref)', () => {
  const table: [string, string | null][] = [
    ['abc1234..def5678  main -> main', 'def5678'],
    ['+ abc1234...def5678 main -> main (forced update)', 'def5678'],
    ['abc1234..def5678  HEAD -> feature/x', 'def5678'],
    ['foo..bar  main -> main', null],
    ['abc1234..def5678', null],
    ['git diff abc1234..def5678', null],
    ['1..10  a -> b', null],
  ];
  test.each(table)('%p => %p', (text, hash) => {
    expect(PUSH_RANGE_PATTERN.exec(text)?.[2] ?? null).toBe(hash);
  });
});

describe('isMixedHex and mentionsGitCommit', () => {
  const hex: [string, boolean][] = [
    ['abc123f', true],
    ['1234567', false],
    ['deadbeef', false],
    ['defaced', false],
    [FULL, true],
  ];
  test.each(hex)('isMixedHex(%p) => %p', (token, expected) => {
    expect(isMixedHex(token)).toBe(expected);
  });

  const mentions: [string, boolean][] = [
    ['$ git commit -m "x"', true],
    ['Git Commit created', true],
    ['https://github.com/o/r/commit/abc1234', true],
    ['git push origin main', false],
    ['commit abc1234', false],
  ];
  test.each(mentions)('mentionsGitCommit(%p) => %p', (text, expected) => {
    expect(mentionsGitCommit(text)).toBe(expected);
  });
});

describe('detectCommits on real-looking excerpts', () => {
  const table: [string, string[], Seen[]][] = [
    [
      'seed example: git log --oneline, then git commit',
      ['$ git log -1 --oneline', 'abc123f Previous commit', '', '$ git commit -m "Add feature X"', '[main def456a] Add feature X', '1 file changed, 3 insertions(+)'],
      [
        ['abc123f', 2, 'log'],
        ['def456a', 5, 'commit_output'],
      ],
    ],
    [
      'git log output',
      [`commit ${FULL} (HEAD -> main)`, 'Author: Dev <dev@example.com>', 'Date:   Mon Jan 6 10:00:00 2025 +0000', '', '    Fix the parser'],
      [[FULL, 1, 'log']],
    ],
    [
      'git push output',
      ['$ git push origin main', 'To github.com:acme/app.git', '   abc1234..def5678  main -> main'],
      [['def5678', 3, 'push_range']],
    ],
    [
      'oneline output stops at the first non-entry line',
      ['$ git log --oneline -3', 'a1b2c3d Third', 'e4f5a6b (HEAD -> main) Second', '$ echo done', 'c7d8e9f not after a git log'],
      [
        ['a1b2c3d', 2, 'log'],
        ['e4f5a6b', 3, 'log'],
      ],
    ],
    [
      'loose git/commit line: mixed hex only, left to right',
      ['Created git commit 9c4f2e1 on top of 1234567 after deadbeef and 0a1b2c3'],
      [
        ['9c4f2e1', 1, 'git_commit_line'],
        ['0a1b2c3', 1, 'git_commit_line'],
      ],
    ],
    [
      'one sighting per hash and line, the most specific source wins',
      ['[main 4e5f6a7] Make git commit hooks faster'],
      [['4e5f6a7', 1, 'commit_output']],
    ],
    [
      'the same hash on two lines is two sightings',
      ['[main 4e5f6a7] Fix', 'git commit 4e5f6a7 pushed'],
      [
        ['4e5f6a7', 1, 'commit_output'],
        ['4e5f6a7', 2, 'git_commit_line'],
      ],
    ],
    [
      'near misses: make progress, log levels, words, uuids, sha256',
      [
        '[ 12%] Building CXX object src/main.cpp.o',
        '[INFO 2024] message',
        'commit message is empty',
        'git commit failed: deadbeef',
        'git commit id 550e8400-e29b-41d4-a716-446655440000',
        `git commit sha256 ${'ab12'.repeat(16)}`,
        'feature..bugfix',
      ],
      [],
    ],
  ];
  test.each(table)('%s', (_name, texts, expected) => {
    expect(seen(texts)).toEqual(expected);
  });
});

describe('detectCommits properties', () => {
  const hexChars = fc.constantFrom(...'0123456789abcdef'.split(''));
  const hash = fc.array(hexChars, { minLength: 7, maxLength: 40 }).map((cs) => cs.join(''));

  test('property: on a git commit line, a hex token is found iff it mixes digits and letters', () => {
    fc.assert(
      fc.property(hash, (h) => {
        const hashes = detectCommits([`git commit ${h} done`]).map((s) => s.hash);
        expect(hashes).toEqual(isMixedHex(h) ? [h] : []);
      }),
    );
  });

  test('property: git commit output always gives its hash, whatever the hex', () => {
    fc.assert(
      fc.property(hash, fc.constantFrom('main', 'feature/x', 'fix-1.2'), (h, branch) => {
        expect(seen([`[${branch} ${h}] Message`])).toEqual([[h, 1, 'commit_output']]);
      }),
    );
  });

  test('property: every sighting is a 7 to 40 hex hash on an existing line, in line order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 12 }), fc.array(hash, { maxLength: 3 }), (noise, hashes) => {
        const texts = [...noise, ...hashes.map((h) => `[main ${h}] x`)];
        const sightings = detectCommits(texts);
        for (const s of sightings) {
          expect(s.hash).toMatch(/^[0-9a-f]{7,40}$/);
          expect(s.line).toBeGreaterThanOrEqual(1);
          expect(s.line).toBeLessThanOrEqual(texts.length);
        }
        const lines = sightings.map((s) => s.line);
        expect(lines).toEqual([...lines].sort((a, b) => a - b));
        const appended = sightings.filter((s) => s.line > noise.length).map((s) => [s.hash, s.line, s.source]);
        expect(appended).toEqual(hashes.map((h, i) => [h, noise.length + i + 1, 'commit_output']));
      }),
    );
  });
});
