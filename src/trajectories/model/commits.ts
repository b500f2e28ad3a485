/** Which seed 004 "Git Commit Detection" pattern saw a commit hash. */
export type CommitSource = 'commit_output' | 'log' | 'push_range' | 'git_commit_line';

export interface CommitSighting {
  hash: string;
  /** 1-based line number, as editors and SARIF count. */
  line: number;
  source: CommitSource;
}

/**
 * When one line gives the same hash to several patterns, the most specific source is kept:
 * lower is more specific.
 */
export const COMMIT_SOURCE_RANK: Record<CommitSource, number> = {
  commit_output: 0,
  log: 1,
  push_range: 2,
  git_commit_line: 3,
};

/**
 * `git commit` output: `[main def456a] Add feature X`, `[feature/x 1a2b3c4] …`,
 * `[main (root-commit) abc1234] …`, `[detached HEAD 1a2b3c4] …`; group 1 is the hash. The branch
 * obeys git's ref rules (no space, `[ ] ~ ^ : ? * \`), so make's `[ 12%] Building CXX object`
 * never matches, and `[INFO 2024] message` fails on the hash (7 to 40 hex). The bracket is
 * structure enough: an all-digit abbreviation (`[main 1234567]`, ~4% of 7-char hashes) counts.
 */
export const COMMIT_OUTPUT_PATTERN = /^\[(?:detached HEAD|[^\s[\]~^:?*\\]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] \S/;

/**
 * `git log` / `git show`: `commit <7 to 40 hex>` at the start of the line, then a space, `(` or
 * the end (`commit 3f2a… (HEAD -> main)`); group 1 is the hash. `commit message is empty` fails on
 * the hex.
 */
export const LOG_COMMIT_PATTERN = /^commit ([0-9a-f]{7,40})(?=[\s(]|$)/;

/** A `git log` command printing one commit a line (`--oneline`, `--pretty=oneline`, `--format=oneline`). */
export const ONELINE_LOG_COMMAND_PATTERN = /\bgit\s+(?:--no-pager\s+)?log\b.*\s--(?:oneline|pretty=oneline|format=oneline)\b/;

/**
 * An entry of that output, `abc123f Previous commit`: read only on the lines right after the
 * command and up to the first line that is not one (the seed's own "initial commit" example would
 * otherwise go unseen: that line names neither "git" nor a `commit <hash>`).
 */
export const ONELINE_ENTRY_PATTERN = /^([0-9a-f]{7,40}) \S/;

/**
 * `git push` output: `   abc1234..def5678  main -> main`, or `+ abc1234...def5678 main -> main
 * (forced update)`; group 2 is the new head, the only hash recorded (group 1 is where the remote
 * was, not a commit of the session). The ` -> ` ref mapping is required, so a bare range in prose
 * or in `git diff a..b` is not push output, and `foo..bar` fails on the hex.
 */
export const PUSH_RANGE_PATTERN = /^\+?\s*([0-9a-f]{7,40})\.\.\.?([0-9a-f]{7,40})\s+\S+\s+->\s+\S+/;

/** A 7 to 40 hex token standing alone: not part of a longer word, hex run (a sha256) or `a-b` id. */
export const HEX_TOKEN_PATTERN = /(?<![\w-])[0-9a-f]{7,40}(?![\w-])/;

/** A line naming both "git" and "commit", case-insensitive substrings as the seed says. */
export function mentionsGitCommit(text: string): boolean {
  return /git/i.test(text) && /commit/i.test(text);
}

/**
 * On a "git … commit" line with no other structure, a hex token is taken as a hash only when it
 * holds both a digit and a letter a–f: `1234567` is a number, `deadbeef`/`defaced` are words.
 * The price is missing the ~4% of 7-char abbreviations that are all digits.
 */
export function isMixedHex(token: string): boolean {
  return /[0-9]/.test(token) && /[a-f]/.test(token);
}

interface Candidate {
  hash: string;
  source: CommitSource;
  column: number;
}

function structuredCandidate(text: string, afterOnelineLog: boolean): Candidate | null {
  const output = COMMIT_OUTPUT_PATTERN.exec(text);
  if (output?.[1] !== undefined) return { hash: output[1], source: 'commit_output', column: text.indexOf(output[1]) };
  const log = LOG_COMMIT_PATTERN.exec(text) ?? (afterOnelineLog ? ONELINE_ENTRY_PATTERN.exec(text) : null);
  if (log?.[1] !== undefined) return { hash: log[1], source: 'log', column: text.indexOf(log[1]) };
  const push = PUSH_RANGE_PATTERN.exec(text);
  if (push?.[2] !== undefined) return { hash: push[2], source: 'push_range', column: text.indexOf(`..${push[2]}`) };
  return null;
}

function candidatesOnLine(text: string, afterOnelineLog: boolean): Candidate[] {
  const found: Candidate[] = [];
  const structured = structuredCandidate(text, afterOnelineLog);
  if (structured) found.push(structured);
  if (mentionsGitCommit(text)) {
    for (const m of text.matchAll(new RegExp(HEX_TOKEN_PATTERN.source, 'g'))) {
      if (isMixedHex(m[0])) found.push({ hash: m[0], source: 'git_commit_line', column: m.index ?? 0 });
    }
  }
  const best = new Map<string, Candidate>();
  for (const c of found) {
    const seen = best.get(c.hash);
    if (!seen || COMMIT_SOURCE_RANK[c.source] < COMMIT_SOURCE_RANK[seen.source]) best.set(c.hash, c);
  }
  return [...best.values()].sort((a, b) => a.column - b.column);
}

/**
 * Every commit hash seen, in line order (left to right within a line). `texts` are visible lines
 * (ANSI stripped, trimmed). A hash seen on several lines gives several sightings; on one line,
 * one sighting with its most specific source (`COMMIT_SOURCE_RANK`).
 */
export function detectCommits(texts: readonly string[]): CommitSighting[] {
  const sightings: CommitSighting[] = [];
  let afterOnelineLog = false;
  texts.forEach((text, index) => {
    const candidates = candidatesOnLine(text, afterOnelineLog);
    for (const c of candidates) sightings.push({ hash: c.hash, line: index + 1, source: c.source });
    afterOnelineLog = ONELINE_LOG_COMMAND_PATTERN.test(text) || (afterOnelineLog && ONELINE_ENTRY_PATTERN.test(text));
  });
  return sightings;
}
