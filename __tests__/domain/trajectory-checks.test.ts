import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  type CheckKind,
  type CheckResult,
  classifyResultLine,
  detectChecks,
  EVIDENCE_MAX_CHARS,
  EXIT_CODE_PATTERN,
  parseCommandLine,
  RESULT_RULES,
  verdictFromCounts,
} from '../../src/trajectories/model/checks';

describe('parseCommandLine', () => {
  const table: [string, [CheckKind, string][]][] = [
    ['$ cargo test', [['test', 'cargo test']]],
    ['cargo test --package marketplace --lib trajectories::validate', [['test', 'cargo test --package marketplace --lib trajectories::validate']]],
    ['> jest', [['test', 'jest']]],
    ['user@box:~/app$ npm test', [['test', 'npm test']]],
    ['(.venv) $ python -m pytest -q', [['test', 'python -m pytest -q']]],
    ['$ pytest tests/', [['test', 'pytest tests/']]],
    ['npm run test:unit', [['test', 'npm run test:unit']]],
    ['npx vitest run', [['test', 'npx vitest run']]],
    ['npx jest --ci', [['test', 'npx jest --ci']]],
    ['yarn test', [['test', 'yarn test']]],
    ['pnpm test', [['test', 'pnpm test']]],
    ['bun test __tests__', [['test', 'bun test __tests__']]],
    ['go test ./...', [['test', 'go test ./...']]],
    ['CI=true RUST_BACKTRACE=1 cargo test', [['test', 'cargo test']]],
    ['cd crates/app && cargo build --release', [['build', 'cargo build --release']]],
    ['$ cargo build && cargo test 2>&1 | tail -20', [['build', 'cargo build'], ['test', 'cargo test 2>&1 | tail -20']]],
    ['npm run build', [['build', 'npm run build']]],
    ['npm build', [['build', 'npm build']]],
    ['make', [['build', 'make']]],
    ['$ make -j8 all', [['build', 'make -j8 all']]],
    ['$ make test', [['test', 'make test']]],
    ['make sure the tests pass', []],
    ['make: *** [Makefile:3: all] Error 2', []],
    ["please don't run npm test", []],
    ['The cargo test output follows', []],
    ['jestconfig.json', []],
    ['cargo testing', []],
  ];
  test.each(table)('%p', (text, expected) => {
    expect(parseCommandLine(text).commands.map((c) => [c.kind, c.command])).toEqual(expected);
  });

  const prompts: [string, 'shell' | 'echo' | null][] = [
    ['$ ls', 'shell'],
    ['[dev@box app]$ ls', 'shell'],
    ['❯ ls', 'shell'],
    ['> my-app@1.0.0 test', 'echo'],
    ['ls', null],
    ['$5 total', null],
  ];
  test.each(prompts)('prompt of %p => %p', (text, prompt) => {
    expect(parseCommandLine(text).prompt).toBe(prompt);
  });
});

describe('verdictFromCounts', () => {
  const table: [string, CheckResult | null][] = [
    ['1 failed, 2 passed in 0.31s', 'failed'],
    ['3 passed, 0 failed', 'passed'],
    ['2 passed, 1 xfailed in 0.05s', 'passed'],
    ['1 error in 0.10s', 'failed'],
    ['0 passed', null],
    ['no tests ran', null],
  ];
  test.each(table)('%p => %p', (text, expected) => {
    expect(verdictFromCounts(text)).toBe(expected);
  });
});

describe('classifyResultLine', () => {
  // [visible line, line above, kind, result]; null kind: no result.
  const table: [string, string, CheckKind | 'of_command' | null, CheckResult | null][] = [
    // cargo
    ['test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s', '', 'test', 'passed'],
    ['test result: FAILED. 14 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out', '', 'test', 'failed'],
    ['test result: failed', '', 'test', 'failed'],
    ['failures:', '', 'test', 'failed'],
    ['failures: 0', '', null, null],
    ['Finished dev profile', '', 'build', 'passed'],
    ['Finished release profile', '', 'build', 'passed'],
    ['Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.52s', '', 'build', 'passed'],
    ['Finished `release` profile [optimized] target(s) in 9.10s', '', 'build', 'passed'],
    ['Finished test [unoptimized + debuginfo] target(s) in 2.50s', '', 'build', 'passed'],
    ['Finished reading the file', '', null, null],
    ['error: could not compile `app` (bin "app") due to 2 previous errors', '', 'build', 'failed'],
    ['error[E0308]: mismatched types', '', null, null],
    // generic
    ['All tests passed!', '', 'test', 'passed'],
    ['Not all tests passed', '', null, null],
    // pytest
    ['============================== 3 passed in 0.12s ===============================', '', 'test', 'passed'],
    ['========================= 1 failed, 2 passed in 0.31s =========================', '', 'test', 'failed'],
    ['===== 2 passed, 1 xfailed, 1 warning in 0.05s =====', '', 'test', 'passed'],
    ['3 passed in 0.01s', '', 'test', 'passed'],
    ['============================ no tests ran in 0.01s =============================', '', null, null],
    ['FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200', '', 'test', 'failed'],
    ['I think 3 passed in the end', '', null, null],
    // bun
    ['0 fail', '15 pass', 'test', 'passed'],
    ['2 fail', '13 pass', 'test', 'failed'],
    ['0 fail', '0 pass', null, null],
    ['0 fail', 'something else', null, null],
    ['15 pass', '', null, null],
    // go
    ['ok  \tgithub.com/acme/app/parser\t0.012s', '', 'test', 'passed'],
    ['ok  \tgithub.com/acme/app/parser\t(cached)', '', 'test', 'passed'],
    ['PASS', '', 'test', 'passed'],
    ['FAIL', '', 'test', 'failed'],
    ['FAIL\tgithub.com/acme/app/parser\t0.015s', '', 'test', 'failed'],
    ['--- FAIL: TestParse (0.00s)', '', 'test', 'failed'],
    ['?   \tgithub.com/acme/app/cmd\t[no test files]', '', null, null],
    ['ok, moving on', '', null, null],
    // jest / vitest
    ['PASS src/sum.test.ts', '', 'test', 'passed'],
    ['FAIL src/api.test.ts', '', 'test', 'failed'],
    ['Tests:       1 failed, 2 passed, 3 total', '', 'test', 'failed'],
    ['Tests:       3 passed, 3 total', '', 'test', 'passed'],
    ['Test Suites: 1 failed, 1 passed, 2 total', '', 'test', 'failed'],
    ['Test Files  2 passed (2)', '', 'test', 'passed'],
    ['Test Files  1 failed | 1 passed (2)', '', 'test', 'failed'],
    ['Tests  5 passed (5)', '', 'test', 'passed'],
    ['Tests: the new ones passed', '', null, null],
    // make / npm
    ['make: *** [Makefile:12: all] Error 2', '', 'of_command', 'failed'],
    ['make[1]: *** [src/Makefile:40: main.o] Error 1', '', 'of_command', 'failed'],
    ['npm ERR! code ELIFECYCLE', '', 'of_command', 'failed'],
    ['npm error Lifecycle script `build` failed with error:', '', 'of_command', 'failed'],
    ['npm WARN deprecated', '', null, null],
  ];
  test.each(table)('%p (after %p) => %p %p', (text, previous, kind, result) => {
    const shown = classifyResultLine(text, previous);
    expect({ kind: shown?.kind ?? null, result: shown?.result ?? null }).toEqual({ kind, result });
  });

  test('RESULT_RULES: every rule fires on at least one golden line', () => {
    const fired = new Set<string>();
    for (const [text, previous] of table) {
      for (const [name, rule] of Object.entries(RESULT_RULES)) if (rule.verdict(text, previous)) fired.add(name);
    }
    expect([...fired].sort()).toEqual(Object.keys(RESULT_RULES).sort());
  });
});

describe('EXIT_CODE_PATTERN', () => {
  const table: [string, number | null][] = [
    ['Exit code 0', 0],
    ['exit code: 1', 1],
    ['exited with code 2', 2],
    ['Process exited with status 1', 1],
    ['exit status 1', 1],
    ['Command failed with exit code 127.', 127],
    ['Exit Code: -1', -1],
    ['exit 1', null],
    ['exit code unknown', null],
    ['exit code 0x1', null],
  ];
  test.each(table)('%p => %p', (text, code) => {
    const m = EXIT_CODE_PATTERN.exec(text);
    expect(m ? Number(m[1]) : null).toBe(code);
  });
});

type Row = [kind: CheckKind, command: string | null, result: CheckResult | null, line: number];
const rows = (texts: string[]): Row[] => detectChecks(texts).checks.map((c) => [c.kind, c.command, c.result, c.line]);

describe('detectChecks: commands, results and exit codes together', () => {
  const table: [string, string[], Row[]][] = [
    [
      'cargo test that passes',
      ['$ cargo test', 'Compiling myproject v0.1.0', 'Finished test [unoptimized + debuginfo] target(s) in 2.50s', 'Running unittests src/lib.rs', '', 'running 15 tests', 'test result: ok. 15 passed; 0 failed; 0 ignored'],
      [
        ['test', 'cargo test', null, 1],
        ['build', 'cargo test', 'passed', 3],
        ['test', 'cargo test', 'passed', 7],
      ],
    ],
    [
      'exit code goes to the command above, only the first one',
      ['cargo build', 'Exit code 0', 'Exit code 1'],
      [
        ['build', 'cargo build', null, 1],
        ['build', 'cargo build', 'passed', 2],
      ],
    ],
    [
      'a shell prompt running something else ends the command',
      ['$ npm run build', '$ ls', 'exited with code 2'],
      [['build', 'npm run build', null, 1]],
    ],
    [
      'npm echo lines do not end the command; npm ERR! takes its kind',
      ['$ npm test', '> app@1.0.0 test', '> jest', 'Tests:       1 failed, 1 total', 'npm ERR! Test failed.', 'Exit code 1'],
      [
        ['test', 'npm test', null, 1],
        ['test', 'jest', null, 3],
        ['test', 'jest', 'failed', 4],
        ['test', 'jest', 'failed', 5],
        ['test', 'jest', 'failed', 6],
      ],
    ],
    [
      'make error with no command above counts as build',
      ['make: *** No rule to make target `install`.  Stop.'],
      [['build', null, 'failed', 1]],
    ],
  ];
  test.each(table)('%s', (_name, texts, expected) => {
    expect(rows(texts)).toEqual(expected);
  });

  test('exit codes are all recorded, attributed or not', () => {
    expect(detectChecks(['Exit code 3', 'cargo build', 'exit status 0', 'Exit code 1']).exitCodes).toEqual([
      { code: 3, line: 1 },
      { code: 0, line: 3 },
      { code: 1, line: 4 },
    ]);
  });

  test('evidence is the line, cut to EVIDENCE_MAX_CHARS', () => {
    const long = `test result: ok. ${'x'.repeat(500)}`;
    const [check] = detectChecks([long]).checks;
    expect(check?.evidence).toBe(long.slice(0, EVIDENCE_MAX_CHARS));
  });

  test('property: at most one result per line, lines in range and ordered', () => {
    const pool = ['$ cargo test', 'test result: ok.', 'failures:', 'Exit code 1', 'npm ERR! x', '$ ls', 'PASS', 'FAIL', 'Finished dev profile', 'hello'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 30 }), (texts) => {
        const results = detectChecks(texts).checks.filter((c) => c.result !== null).map((c) => c.line);
        expect(new Set(results).size).toBe(results.length);
        expect(results).toEqual([...results].sort((a, b) => a - b));
        for (const line of results) expect(line >= 1 && line <= texts.length).toBe(true);
      }),
    );
  });
});
