export type CheckKind = 'test' | 'build';
export type CheckResult = 'passed' | 'failed';

export interface CheckSighting {
  kind: CheckKind;
  /** The test/build command this belongs to (the latest one above), null when none was seen. */
  command: string | null;
  /** null on the command line itself. */
  result: CheckResult | null;
  /** 1-based line number. */
  line: number;
  /** The visible line, cut to `EVIDENCE_MAX_CHARS`. */
  evidence: string;
}

export interface ExitCodeSighting {
  code: number;
  line: number;
}

export const EVIDENCE_MAX_CHARS = 200;

/** A shell prompt: `$ `, `user@host:~/app$ `, `[user@host app]$ `, `(.venv) $ `, `❯ `. */
export const SHELL_PROMPT_PATTERN = /^(?:\([^)]*\)\s*)?(?:(?:\[[^\]]*\]|[\w.@:~/-]*)\$|❯)\s+/;

/** `> `: the line npm/yarn echo for the script they run (`> jest`); it starts no new shell command. */
export const ECHO_PROMPT_PATTERN = /^>\s+/;

const ENV_ASSIGNMENTS_PATTERN = /^(?:[A-Za-z_]\w*=\S*\s+)*/;
const CHAIN_PATTERN = /&&|\|\||;/;

/**
 * A test command at the start of a command segment: `cargo test`, `npm test`, `npm run test`
 * (and `test:unit`), `yarn test`, `pnpm test`, `bun test`, `pytest`, `python -m pytest`,
 * `go test`, `vitest`, `jest`, `npx vitest`, `npx jest`, `make test`, `make check`.
 */
export const TEST_COMMAND_PATTERN =
  /^(?:cargo test|(?:npm|pnpm|yarn|bun) run test(?::[\w:-]+)?|(?:npm|pnpm|yarn) test|bun test|(?:python3? -m )?pytest|go test|(?:npx |bunx |pnpm exec |yarn )?(?:vitest|jest)|make (?:test|check))(?=\s|$)/;

/** A build command at the start of a command segment: `cargo build`, `npm run build`, `npm build` (and yarn/pnpm), `go build`, `make`. */
export const BUILD_COMMAND_PATTERN = /^(?:cargo build|(?:npm|pnpm|yarn|bun) run build(?::[\w:-]+)?|(?:npm|pnpm|yarn) build|go build|make)(?=\s|$)/;

export interface CommandOnLine {
  kind: CheckKind;
  command: string;
}

export interface ParsedCommandLine {
  prompt: 'shell' | 'echo' | null;
  commands: CommandOnLine[];
}

/**
 * The test/build commands a line runs. The line is split on `&&`, `||` and `;`; each segment,
 * after `VAR=value` prefixes, is a command when it starts with one. A command needs no prompt
 * (agent tool calls have none) but must start its segment: "please don't run npm test" is not a
 * command. `make` with arguments also needs a prompt or a chain (`cd x && make install`), since
 * "make sure …" is common prose; a bare `make` line counts.
 */
export function parseCommandLine(text: string): ParsedCommandLine {
  const shell = SHELL_PROMPT_PATTERN.exec(text);
  const echo = shell ? null : ECHO_PROMPT_PATTERN.exec(text);
  const prompt = shell ? 'shell' : echo ? 'echo' : null;
  const rest = text.slice((shell ?? echo)?.[0].length ?? 0);
  const segments = rest.split(CHAIN_PATTERN).map((s) => s.trim().replace(ENV_ASSIGNMENTS_PATTERN, ''));
  const shellLike = prompt !== null || segments.length > 1;
  const commands: CommandOnLine[] = [];
  for (const segment of segments) {
    const command = segment.slice(0, EVIDENCE_MAX_CHARS);
    if (TEST_COMMAND_PATTERN.test(segment)) commands.push({ kind: 'test', command });
    else if (BUILD_COMMAND_PATTERN.test(segment) && (shellLike || segment === 'make' || !segment.startsWith('make'))) {
      commands.push({ kind: 'build', command });
    }
  }
  return { prompt, commands };
}

/** cargo: `test result: ok. 15 passed; 0 failed` / `test result: FAILED. …`; the seed writes "failed", so any case. */
export const CARGO_TEST_RESULT_PATTERN = /\btest result: (ok|failed)\b/i;
/** `All tests passed!`; "not all tests passed" is no verdict. */
export const ALL_TESTS_PASSED_PATTERN = /(?<!\bnot )\ball tests passed\b/i;
/** cargo's (and RSpec's) `failures:` header, alone on its line; `failures: 0` is a count, not a header. */
export const FAILURES_HEADER_PATTERN = /^failures:$/i;
/** pytest's summary, with or without the `===` rule: `=== 1 failed, 2 passed in 0.12s ===`, `3 passed in 0.01s`. */
export const PYTEST_SUMMARY_PATTERN = /^=*\s*\d+ \w+(?:, \d+ \w+)* in \d+(?:\.\d+)?s\b/;
/** pytest's short summary entry: `FAILED tests/test_a.py::test_b - assert 1 == 2`. */
export const PYTEST_FAILED_TEST_PATTERN = /^FAILED \S+::/;
/** bun test's summary: ` 15 pass` then ` 0 fail` on the next line. */
export const BUN_PASS_COUNT_PATTERN = /^(\d+) pass$/;
export const BUN_FAIL_COUNT_PATTERN = /^(\d+) fail$/;
/** go test: `ok  \tgithub.com/x/y\t0.01s` (or `(cached)`); `?   \tpkg\t[no test files]` is no verdict. */
export const GO_OK_PATTERN = /^ok\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\))/;
/** go's `PASS`, jest's `PASS src/a.test.ts`. */
export const PASS_LINE_PATTERN = /^PASS(?:\s|$)/;
/** go's `FAIL`, `FAIL\tpkg\t0.01s`, `--- FAIL: TestX`; jest's and vitest's `FAIL src/a.test.ts`. */
export const FAIL_LINE_PATTERN = /^(?:FAIL|--- FAIL:)(?:\s|$)/;
/** jest `Tests:       1 failed, 2 passed, 3 total`, `Test Suites: …`; vitest `Test Files  1 failed | 1 passed (2)`, `Tests  5 passed (5)`. */
export const JEST_VITEST_SUMMARY_PATTERN = /^(?:Tests|Test Suites|Test Files):?\s+\d/;
/** cargo: `Finished dev profile`, ``Finished `release` profile [optimized] …``, `Finished dev [unoptimized + debuginfo] …`. */
export const CARGO_FINISHED_PATTERN = /^Finished\s+`?[\w-]+`?\s+(?:profile\b|\[)/;
/** cargo: ``error: could not compile `app` (bin "app") due to 2 previous errors``. */
export const CARGO_COMPILE_ERROR_PATTERN = /^error: could not compile\b/;
/** make: `make: *** [Makefile:3: all] Error 2`, `make[1]: *** …`; every `***` from make stops it. */
export const MAKE_ERROR_PATTERN = /^make(?:\[\d+\])?: \*\*\* /;
/** npm: `npm ERR! …` (npm ≤ 9), `npm error …` (npm ≥ 10). */
export const NPM_ERROR_PATTERN = /^npm (?:ERR!|error)(?:\s|$)/;
/**
 * `Exit code 0`, `exit code: 1`, `exited with code 2`, `Process exited with status 1`, go's
 * `exit status 1`; group 1 is the code. `exit 1` (a command), `exit code unknown` and
 * `exit code 0x1` are not.
 */
export const EXIT_CODE_PATTERN = /\b(?:exit(?:ed)? (?:code|status)|exited with (?:code|status))\s*[:=]?\s*(-?\d+)\b/i;

/**
 * A summary's verdict from its counts: failed when any `N failed` / `N error(s)` has N > 0,
 * passed when some `N passed` has N > 0 and nothing failed, else none. So `0 failed` is no
 * failure and pytest's `1 xfailed` is not "failed".
 */
export function verdictFromCounts(text: string): CheckResult | null {
  let passed = 0;
  let failed = 0;
  for (const m of text.matchAll(/\b(\d+) (passed|failed|errors?)\b/g)) {
    if (m[2] === 'passed') passed += Number(m[1]);
    else failed += Number(m[1]);
  }
  if (failed > 0) return 'failed';
  return passed > 0 ? 'passed' : null;
}

/** bun: `N fail` with N > 0 fails; `0 fail` passes only right after `M pass` with M > 0. */
export function bunVerdict(text: string, previous: string): CheckResult | null {
  const fail = BUN_FAIL_COUNT_PATTERN.exec(text);
  if (!fail) return null;
  if (Number(fail[1]) > 0) return 'failed';
  const pass = BUN_PASS_COUNT_PATTERN.exec(previous);
  return pass && Number(pass[1]) > 0 ? 'passed' : null;
}

const when = (pattern: RegExp, result: CheckResult) => (text: string) => (pattern.test(text) ? result : null);

export type ResultRuleName =
  | 'cargo_test_result'
  | 'all_tests_passed'
  | 'failures_header'
  | 'pytest_summary'
  | 'pytest_failed_test'
  | 'bun_summary'
  | 'go_ok'
  | 'pass_line'
  | 'fail_line'
  | 'jest_vitest_summary'
  | 'cargo_finished'
  | 'cargo_compile_error'
  | 'make_error'
  | 'npm_error';

export interface ResultRule {
  /** `of_command`: the kind of the current command, build when there is none. */
  kind: CheckKind | 'of_command';
  verdict: (text: string, previous: string) => CheckResult | null;
}

/** Every result a line can show; the first rule, in this order, with a verdict decides. */
export const RESULT_RULES: Record<ResultRuleName, ResultRule> = {
  cargo_test_result: {
    kind: 'test',
    verdict: (t) => {
      const m = CARGO_TEST_RESULT_PATTERN.exec(t);
      if (!m) return null;
      return m[1]?.toLowerCase() === 'ok' ? 'passed' : 'failed';
    },
  },
  all_tests_passed: { kind: 'test', verdict: when(ALL_TESTS_PASSED_PATTERN, 'passed') },
  failures_header: { kind: 'test', verdict: when(FAILURES_HEADER_PATTERN, 'failed') },
  pytest_summary: { kind: 'test', verdict: (t) => (PYTEST_SUMMARY_PATTERN.test(t) ? verdictFromCounts(t) : null) },
  pytest_failed_test: { kind: 'test', verdict: when(PYTEST_FAILED_TEST_PATTERN, 'failed') },
  bun_summary: { kind: 'test', verdict: bunVerdict },
  go_ok: { kind: 'test', verdict: when(GO_OK_PATTERN, 'passed') },
  pass_line: { kind: 'test', verdict: when(PASS_LINE_PATTERN, 'passed') },
  fail_line: { kind: 'test', verdict: when(FAIL_LINE_PATTERN, 'failed') },
  jest_vitest_summary: { kind: 'test', verdict: (t) => (JEST_VITEST_SUMMARY_PATTERN.test(t) ? verdictFromCounts(t) : null) },
  cargo_finished: { kind: 'build', verdict: when(CARGO_FINISHED_PATTERN, 'passed') },
  cargo_compile_error: { kind: 'build', verdict: when(CARGO_COMPILE_ERROR_PATTERN, 'failed') },
  make_error: { kind: 'of_command', verdict: when(MAKE_ERROR_PATTERN, 'failed') },
  npm_error: { kind: 'of_command', verdict: when(NPM_ERROR_PATTERN, 'failed') },
};

/** The result a visible line shows, if any; `previous` is the line above it. */
export function classifyResultLine(text: string, previous: string): { kind: ResultRule['kind']; result: CheckResult } | null {
  for (const rule of Object.values(RESULT_RULES)) {
    const result = rule.verdict(text, previous);
    if (result) return { kind: rule.kind, result };
  }
  return null;
}

/**
 * Test/build sightings and exit codes, in line order; `texts` are visible lines. A command line
 * gives one result-less sighting per command and makes the last one current; a shell-prompt line
 * running anything else ends it (an `> ` echo line does not). An exit code is the result of the
 * current command, the first one after it only; with no current command it is recorded in
 * `exitCodes` alone. Any other line gives at most one result (`RESULT_RULES`).
 */
export function detectChecks(texts: readonly string[]): { checks: CheckSighting[]; exitCodes: ExitCodeSighting[] } {
  const checks: CheckSighting[] = [];
  const exitCodes: ExitCodeSighting[] = [];
  let current: CommandOnLine | null = null;
  let currentExitSeen = false;
  texts.forEach((text, index) => {
    const line = index + 1;
    const evidence = text.slice(0, EVIDENCE_MAX_CHARS);
    const parsed = parseCommandLine(text);
    if (parsed.commands.length > 0) {
      for (const c of parsed.commands) checks.push({ kind: c.kind, command: c.command, result: null, line, evidence });
      current = parsed.commands[parsed.commands.length - 1] ?? null;
      currentExitSeen = false;
      return;
    }
    if (parsed.prompt === 'shell') {
      current = null;
      return;
    }
    const exit = EXIT_CODE_PATTERN.exec(text);
    if (exit) {
      const code = Number(exit[1]);
      exitCodes.push({ code, line });
      if (current && !currentExitSeen) {
        checks.push({ kind: current.kind, command: current.command, result: code === 0 ? 'passed' : 'failed', line, evidence });
        currentExitSeen = true;
      }
      return;
    }
    const shown = classifyResultLine(text, texts[index - 1] ?? '');
    if (shown) {
      const kind = shown.kind === 'of_command' ? (current?.kind ?? 'build') : shown.kind;
      checks.push({ kind, command: current?.command ?? null, result: shown.result, line, evidence });
    }
  });
  return { checks, exitCodes };
}
