import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type CheckResult, type CheckSighting, ciFromChecks, detectSignals, visibleText } from '../../src/trajectories/model/detect';

describe('visibleText', () => {
  const table: [string, string][] = [
    ['\u001b[33mcommit abc1234\u001b[m', 'commit abc1234'],
    ['\u001b[1m\u001b[32m    Finished\u001b[0m `dev` profile', 'Finished `dev` profile'],
    ['test result: ok.\r', 'test result: ok.'],
    ['Compiling 1/3\rCompiling 2/3\r   Finished dev profile\r\n'.trimEnd(), 'Finished dev profile'],
    ['   ok  \tpkg\t0.01s  ', 'ok  \tpkg\t0.01s'],
  ];
  test.each(table)('%p => %p', (line, visible) => {
    expect(visibleText(line)).toBe(visible);
  });
});

describe('ciFromChecks', () => {
  const check = (line: number, result: CheckResult | null): CheckSighting => ({ kind: 'test', command: null, result, line, evidence: '' });
  const table: [string, CheckResult | null, CheckSighting[]][] = [
    ['no checks', null, []],
    ['commands only', null, [check(1, null), check(5, null)]],
    ['last result passed', 'passed', [check(1, 'failed'), check(2, null), check(3, 'passed')]],
    ['last result failed after passes', 'failed', [check(1, 'passed'), check(2, 'passed'), check(3, 'failed'), check(4, null)]],
  ];
  test.each(table)('%s => %p', (_name, ci, checks) => {
    expect(ciFromChecks(checks)).toBe(ci);
  });
});

const split = (log: string) => log.split('\n');

describe('detectSignals on whole sessions', () => {
  const cargoFix = `$ git log -1 --oneline
abc123f Previous commit
$ cargo test
   Compiling myproject v0.1.0 (/work/myproject)
error[E0308]: mismatched types
error: could not compile \`myproject\` (lib test) due to 1 previous error
$ cargo test
   Compiling myproject v0.1.0 (/work/myproject)
    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 2.50s
     Running unittests src/lib.rs (target/debug/deps/myproject-1a2b3c4d)

running 15 tests
test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

$ git commit -am "Add feature X"
[main def456a] Add feature X
 1 file changed, 3 insertions(+)
$ git push
To github.com:acme/myproject.git
   def456a..0b1c2d3  main -> main`;

  const pytestFail = `$ pytest -q
..F.                                                                     [100%]
=================================== FAILURES ===================================
__________________________________ test_login __________________________________
FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200
========================= 1 failed, 3 passed in 0.31s ==========================`;

  const jest = `$ npm test

> app@1.0.0 test
> jest

PASS src/sum.test.ts
FAIL src/api.test.ts
Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 4 passed, 5 total
Snapshots:   0 total
Time:        1.234 s`;

  const vitest = `$ npx vitest run

 ✓ src/sum.test.ts (3 tests) 2ms

 Test Files  1 passed (1)
      Tests  3 passed (3)
   Start at  10:00:00
   Duration  312ms`;

  const goTest = `$ go test ./...
?   \tgithub.com/acme/app/cmd\t[no test files]
--- FAIL: TestParse (0.00s)
    parse_test.go:12: got 1, want 2
FAIL
FAIL\tgithub.com/acme/app/parser\t0.015s
ok  \tgithub.com/acme/app/store\t0.020s
FAIL`;

  const bunTest = `$ bun test
bun test v1.4.4

__tests__/sum.test.ts:
(pass) sum > adds [0.10ms]

 15 pass
 0 fail
 32 expect() calls
Ran 15 tests across 3 files. [120.00ms]`;

  const makeBuild = `$ make
cc -c main.c -o main.o
main.c:3:1: error: expected ';' before '}' token
make: *** [Makefile:5: main.o] Error 1
Exit code 2`;

  const toolCalls = `cargo build --release
    Finished \`release\` profile [optimized] target(s) in 9.10s
Exit code 0
Now let me run the tests.
please don't run npm test
Exit code 1`;

  type Expect = { commits: string[]; ci: CheckResult | null; results: number; exitCodes: number[] };
  const table: [string, string, Expect][] = [
    ['cargo: failed compile, then fixed, committed and pushed', cargoFix, { commits: ['abc123f', 'def456a', '0b1c2d3'], ci: 'passed', results: 3, exitCodes: [] }],
    ['pytest with a failure', pytestFail, { commits: [], ci: 'failed', results: 2, exitCodes: [] }],
    ['jest with a failing file', jest, { commits: [], ci: 'failed', results: 4, exitCodes: [] }],
    ['vitest all green', vitest, { commits: [], ci: 'passed', results: 2, exitCodes: [] }],
    ['go test: a later ok does not hide the final FAIL', goTest, { commits: [], ci: 'failed', results: 5, exitCodes: [] }],
    ['bun test green', bunTest, { commits: [], ci: 'passed', results: 1, exitCodes: [] }],
    ['make failure with an exit code', makeBuild, { commits: [], ci: 'failed', results: 2, exitCodes: [2] }],
    ['tool calls without prompts; a command takes only its first exit code', toolCalls, { commits: [], ci: 'passed', results: 2, exitCodes: [0, 1] }],
    ['no signals at all', 'Hello\nHow can I help?', { commits: [], ci: null, results: 0, exitCodes: [] }],
  ];
  test.each(table)('%s', (_name, log, expected) => {
    const signals = detectSignals(split(log));
    expect({
      commits: signals.commits.map((c) => c.hash),
      ci: signals.ci,
      results: signals.checks.filter((c) => c.result !== null).length,
      exitCodes: signals.exitCodes.map((e) => e.code),
    }).toEqual(expected);
  });

  test('the cargo session: each check with its command, kind and line', () => {
    const checks = detectSignals(split(cargoFix)).checks.map((c) => [c.kind, c.command, c.result, c.line]);
    expect(checks).toEqual([
      ['test', 'cargo test', null, 3],
      ['build', 'cargo test', 'failed', 6],
      ['test', 'cargo test', null, 7],
      ['build', 'cargo test', 'passed', 9],
      ['test', 'cargo test', 'passed', 13],
    ]);
  });
});

describe('detectSignals properties', () => {
  const pool = [
    '$ cargo test',
    'test result: ok. 1 passed; 0 failed',
    'test result: FAILED. 0 passed; 1 failed',
    'Exit code 1',
    'Exit code 0',
    '$ ls',
    '[main 1a2b3c4] Fix',
    'commit 9f8e7d6',
    'npm ERR! x',
    'just prose',
    '',
  ];
  const session = fc.array(fc.oneof(fc.constantFrom(...pool), fc.string({ maxLength: 40 })), { maxLength: 25 });

  test('property: ci is the result of the last check with one, null iff none', () => {
    fc.assert(
      fc.property(session, (lines) => {
        const { checks, ci } = detectSignals(lines);
        const results = checks.flatMap((c) => (c.result === null ? [] : [c.result]));
        expect(ci).toBe(results[results.length - 1] ?? null);
      }),
    );
  });

  test('property: a final cargo verdict decides ci, whatever came before', () => {
    fc.assert(
      fc.property(session, fc.boolean(), (lines, ok) => {
        const last = ok ? 'test result: ok. 3 passed; 0 failed' : 'test result: FAILED. 2 passed; 1 failed';
        expect(detectSignals([...lines, last]).ci).toBe(ok ? 'passed' : 'failed');
      }),
    );
  });

  test('property: detection is line-local up to shifting, so a prefix of blank lines only shifts line numbers', () => {
    fc.assert(
      fc.property(session, fc.integer({ min: 1, max: 5 }), (lines, pad) => {
        const base = detectSignals(lines);
        const shifted = detectSignals([...Array<string>(pad).fill(''), ...lines]);
        expect(shifted.commits).toEqual(base.commits.map((c) => ({ ...c, line: c.line + pad })));
        expect(shifted.checks).toEqual(base.checks.map((c) => ({ ...c, line: c.line + pad })));
        expect(shifted.ci).toBe(base.ci);
      }),
    );
  });
});
