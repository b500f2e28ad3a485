import { z } from 'zod';
import { clipText } from '../../shared/prompt-text';
import { isoSeconds, parseWireTimeMs } from './dates';
import { toStorableText } from '../../shared/wire-text';

/**
 * Seed 003's two append-only logs of the rules system: the guard log (which rules matched an
 * action the agent was about to take, and how it went) and the parse-error log (lines that were
 * not JSON). Inside the code times are epoch ms; the seed's snake_case entries with ISO-8601
 * times are the wire format, also kept as-is in the database. One type per log (`GuardEntry`,
 * `ParseErrorEntry`), one wire type each, one zod schema each to read the wire back.
 */

/** How an action the guard looked at turned out: `pending` until the outcome arrives, then set once. */
export const GUARD_OUTCOMES = ['pending', 'success', 'failure'] as const;
export type GuardOutcome = (typeof GUARD_OUTCOMES)[number];
/** An outcome that settles a guard entry. */
export type SettledGuardOutcome = Exclude<GuardOutcome, 'pending'>;

/** One guard check (seed 003 guard-log format). */
export interface GuardEntry {
  /** `g-103052-a1b2c3` style: UTC time of day and 6 random hex digits. */
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
  outcome: GuardOutcome;
}

/** The seed's guard-log line. */
export interface GuardEntryWire {
  id: string;
  ts: string;
  action: string;
  matched_rules: string[];
  scores: Record<string, number>;
  save_logged: boolean;
  outcome: GuardOutcome;
}

/** Longest `action` kept in a guard entry; longer is cut with `…`. */
export const GUARD_ACTION_CHARS = 500;

/**
 * A guard entry at `nowMs` (floored to the second, the wire's precision) for the matches, in
 * their order, scores rounded to 2 decimals, outcome `pending` unless given; a U+0000 or unpaired
 * surrogate in the action text becomes U+FFFD (`toStorableText`). `randomHex` must be 6
 * lower-case hex digits (the caller's randomness; anything else is a programmer error and throws).
 */
export function guardLogEntry(input: {
  nowMs: number;
  action: string;
  matches: readonly { rule: { id: string }; score: number }[];
  randomHex: string;
  saveLogged?: boolean;
  outcome?: GuardOutcome;
}): GuardEntry {
  if (!/^[0-9a-f]{6}$/.test(input.randomHex)) throw new RangeError(`randomHex must be 6 lower-case hex digits (got ${JSON.stringify(input.randomHex)})`);
  const ts = isoSeconds(input.nowMs);
  return {
    id: `g-${ts.slice(11, 19).replace(/:/g, '')}-${input.randomHex}`,
    tsMs: Math.floor(input.nowMs / 1000) * 1000,
    action: toStorableText(clipText(input.action, GUARD_ACTION_CHARS)),
    matchedRules: input.matches.map((m) => m.rule.id),
    scores: Object.fromEntries(input.matches.map((m) => [m.rule.id, Math.round(m.score * 100) / 100])),
    saveLogged: input.saveLogged ?? false,
    outcome: input.outcome ?? 'pending',
  };
}

/** The entry once its outcome is known. */
export function withGuardOutcome(entry: GuardEntry, outcome: SettledGuardOutcome, saveLogged = entry.saveLogged): GuardEntry {
  return { ...entry, outcome, saveLogged };
}

/** `ts` is ISO-8601 UTC to the second (`2026-02-11T10:30:52Z`). */
export function guardEntryToWire(e: GuardEntry): GuardEntryWire {
  return { id: e.id, ts: isoSeconds(e.tsMs), action: e.action, matched_rules: [...e.matchedRules], scores: { ...e.scores }, save_logged: e.saveLogged, outcome: e.outcome };
}

const wireTime = z.string().refine((v) => parseWireTimeMs(v) !== null, 'ts must be an ISO-8601 date-time');

/** A guard-log line read back; an entry written before outcomes were always present reads as `pending`. */
export const guardEntryWireSchema = z.object({
  id: z.string().min(1),
  ts: wireTime,
  action: z.string(),
  matched_rules: z.array(z.string()),
  scores: z.record(z.number().min(0).max(1)),
  save_logged: z.boolean(),
  outcome: z.enum(GUARD_OUTCOMES).default('pending'),
});

export function guardEntryFromWire(w: z.output<typeof guardEntryWireSchema>): GuardEntry {
  return { id: w.id, tsMs: parseWireTimeMs(w.ts) as number, action: w.action, matchedRules: [...w.matched_rules], scores: { ...w.scores }, saveLogged: w.save_logged, outcome: w.outcome };
}

/** Longest `line`, `error` and `script` of a parse-error entry; longer text is cut with `…`. */
export const PARSE_ERROR_LINE_CHARS = 500;

/** A line that could not be parsed (seed 003 parse-error format). */
export interface ParseErrorEntry {
  tsMs: number;
  /** The parser's message. */
  error: string;
  /** The offending text, as received (cut to `PARSE_ERROR_LINE_CHARS`). */
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

/**
 * One parse-error entry at `nowMs`; `error`, `line` and `script` are cut to `PARSE_ERROR_LINE_CHARS`,
 * and a U+0000 or unpaired surrogate in them becomes U+FFFD (`toStorableText`): the log keeps what
 * arrived, as far as the database can hold it.
 */
export function parseErrorEntry(input: { nowMs: number; error: string; line: string; script: string }): ParseErrorEntry {
  const kept = (text: string) => toStorableText(clipText(text, PARSE_ERROR_LINE_CHARS));
  return { tsMs: input.nowMs, error: kept(input.error), line: kept(input.line), script: kept(input.script) };
}

/** `ts` is ISO-8601 UTC with milliseconds. */
export function parseErrorToWire(e: ParseErrorEntry): ParseErrorWire {
  return { ts: new Date(e.tsMs).toISOString(), error: e.error, line: e.line, script: e.script };
}

export const parseErrorWireSchema = z.object({ ts: wireTime, error: z.string(), line: z.string(), script: z.string() });

export function parseErrorFromWire(w: ParseErrorWire): ParseErrorEntry {
  return { tsMs: parseWireTimeMs(w.ts) as number, error: w.error, line: w.line, script: w.script };
}
