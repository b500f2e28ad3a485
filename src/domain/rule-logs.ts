/**
 * Seed 003's two append-only logs of the rules system: the guard log (which rules matched an
 * action the agent was about to take, and how it went) and the parse-error log (lines that were
 * not JSON). Inside the code times are epoch ms; the seed's snake_case entries with ISO-8601
 * times are the wire format, also kept as-is in the database.
 */

/** How an action the guard looked at turned out; set once, after the action. */
export const GUARD_OUTCOMES = ['success', 'failure'] as const;
export type GuardOutcome = (typeof GUARD_OUTCOMES)[number];

/** One guard check (seed 003 guard-log format). */
export interface GuardEntry {
  /** `g-103052-a1b2c3` style. */
  id: string;
  tsMs: number;
  /** The action the agent was about to take, in words. */
  action: string;
  /** Ids of the rules that matched, best first. */
  matchedRules: string[];
  /** Match score per matched rule id, in [0, 1]. */
  scores: Record<string, number>;
  /** Whether a save (a rule that kept the agent from a known mistake) was logged. */
  saveLogged: boolean;
  /** Unset until the action has run. */
  outcome?: GuardOutcome;
}

/** The seed's guard-log line. */
export interface GuardEntryWire {
  id: string;
  ts: string;
  action: string;
  matched_rules: string[];
  scores: Record<string, number>;
  save_logged: boolean;
  outcome?: GuardOutcome;
}

export function guardEntryToWire(e: GuardEntry): GuardEntryWire {
  const wire: GuardEntryWire = { id: e.id, ts: new Date(e.tsMs).toISOString(), action: e.action, matched_rules: [...e.matchedRules], scores: { ...e.scores }, save_logged: e.saveLogged };
  if (e.outcome) wire.outcome = e.outcome;
  return wire;
}

export function guardEntryFromWire(w: GuardEntryWire): GuardEntry {
  const entry: GuardEntry = { id: w.id, tsMs: Date.parse(w.ts), action: w.action, matchedRules: [...w.matched_rules], scores: { ...w.scores }, saveLogged: w.save_logged };
  if (w.outcome) entry.outcome = w.outcome;
  return entry;
}

/** A line that could not be parsed (seed 003 parse-error format). */
export interface ParseErrorEntry {
  tsMs: number;
  /** The parser's message. */
  error: string;
  /** The offending text, as received. */
  line: string;
  /** What was parsing: an evaluator, a route, a CLI command (the seed's script name). */
  script: string;
}

/** The seed's parse-error line. */
export interface ParseErrorWire {
  ts: string;
  error: string;
  line: string;
  script: string;
}

export function parseErrorToWire(e: ParseErrorEntry): ParseErrorWire {
  return { ts: new Date(e.tsMs).toISOString(), error: e.error, line: e.line, script: e.script };
}

export function parseErrorFromWire(w: ParseErrorWire): ParseErrorEntry {
  return { tsMs: Date.parse(w.ts), error: w.error, line: w.line, script: w.script };
}
