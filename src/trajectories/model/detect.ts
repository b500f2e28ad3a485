import { type CheckResult, type CheckSighting, detectChecks, type ExitCodeSighting } from './checks';
import { type CommitSighting, detectCommits } from './commits';

export type { CheckKind, CheckResult, CheckSighting, ExitCodeSighting } from './checks';
export type { CommitSighting, CommitSource } from './commits';

/** Seed 004's signals in a session's text: commits for completeness, test/build results for the reward signal. */
export interface TrajectorySignals {
  commits: CommitSighting[];
  checks: CheckSighting[];
  exitCodes: ExitCodeSighting[];
  ci: CheckResult | null;
}

/** CSI escape sequences (colours, cursor moves) of terminal output. */
const ANSI_ESCAPE_PATTERN = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * What a terminal shows of a captured line: escape sequences removed, a trailing CR (CRLF)
 * dropped, only the text after the last remaining CR (a progress line redrawn in place), trimmed.
 */
export function visibleText(line: string): string {
  const plain = line.replace(ANSI_ESCAPE_PATTERN, '').replace(/\r+$/, '');
  return plain.slice(plain.lastIndexOf('\r') + 1).trim();
}

/**
 * The session's CI outcome: the result of the last check with one, by line. So `passed` when at
 * least one test/build result (or exit code of a test/build command) was seen and the last one
 * passed, which means no failure after it; `failed` when the last one failed, even after earlier
 * passes; null with no result at all. At most one result per line, so "last" is well defined.
 */
export function ciFromChecks(checks: readonly CheckSighting[]): CheckResult | null {
  let ci: CheckResult | null = null;
  for (const c of checks) if (c.result !== null) ci = c.result;
  return ci;
}

/**
 * Commits, test/build checks, exit codes and the CI outcome in a session's text, one entry of
 * `lines` per line (terminal output, agent step contents); line numbers in the result are 1-based.
 * Pure: the same lines always give the same signals.
 */
export function detectSignals(lines: readonly string[]): TrajectorySignals {
  const texts = lines.map(visibleText);
  const { checks, exitCodes } = detectChecks(texts);
  return { commits: detectCommits(texts), checks, exitCodes, ci: ciFromChecks(checks) };
}
