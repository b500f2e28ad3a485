/**
 * Seed 003 event rows (the wire format of POST /self-improve/events and `events ingest`) that the
 * rule book promotes to known rules: three events of one lesson make a rule under the default
 * SELF_IMPROVE_RULE_MIN_CONFIRMATIONS (3). Times are minutes after `T0`.
 */
import { T0 } from './rule-fixtures';

const MINUTE = 60_000;

export type SeedEventRow = Record<string, unknown>;

export const eventRow = (minute: number, fields: SeedEventRow): SeedEventRow => ({ ts: new Date(T0 + minute * MINUTE).toISOString(), confidence: 'testing', source: 'session', ...fields });

/** Three of these: a CHECK rule in `git` ("Check: search the diff for conflict markers before committing"). */
export const mergeEvent = (minute: number) =>
  eventRow(minute, { type: 'debug_session', category: 'git', tags: ['merge'], problem: 'a merge left conflict markers in the config file', solution: 'search the diff for conflict markers before committing' });

/** Three of these: a NEVER rule in `shell` whose text holds markup (shown as text, never as HTML). */
export const rmEvent = (minute: number) =>
  eventRow(minute, { type: 'mistake', category: 'shell', tags: ['rm', 'script'], problem: 'a cleanup script deleted the wrong folder', solution: 'Never run rm -rf on a path built from a <b>variable</b> in a script' });

/** Three of each: a MUST and a NEVER rule in `deploy` that conflict (both flagged for review). */
export const mustDeploy = (minute: number) =>
  eventRow(minute, { type: 'feedback', category: 'deploy', tags: [], problem: 'the weekly release slipped and customers waited all weekend for the fix', solution: 'Always deploy to production on Friday mornings', greg_feedback: 'ship it on Friday morning' });
export const neverDeploy = (minute: number) =>
  eventRow(minute, { type: 'mistake', category: 'deploy', tags: ['migration'], problem: 'a database migration broke checkout while nobody could roll back', solution: 'Never deploy to production on Friday mornings' });

/** `make(start)`, `make(start + 1)`, `make(start + 2)`: enough for one promotion. */
export const thrice = (make: (minute: number) => SeedEventRow, start: number): SeedEventRow[] => [make(start), make(start + 1), make(start + 2)];

export const jsonl = (rows: readonly (SeedEventRow | string)[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n');
