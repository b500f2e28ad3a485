import { z } from 'zod';
import { lineRejections, parseJsonLines } from '../../shared/jsonl';
import { isoDateTimeField } from '../../scan/model/outcome';
import { pathText, unstorableTextMessage, wireNumber, wireProblems } from '../../shared/wire-text';

/** What one step of an agent run was. */
export const STEP_KINDS = ['message', 'model', 'action', 'tool', 'output'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Longest accepted step text and id; longer is an error, not silently cut. */
export const MAX_STEP_TEXT_CHARS = 100_000;
const MAX_NAME_CHARS = 512;

export interface TrajectoryStep {
  kind: StepKind;
  text: string;
  tokens?: number;
  /** The action or tool name. */
  name?: string;
  ok?: boolean;
  /** UTC ISO-8601. */
  ts?: string;
}

export interface TrajectoryInput {
  id?: string;
  steps: TrajectoryStep[];
  started_at?: string;
  ended_at?: string;
  ended: boolean;
  token_count: number;
  tool_calls: number;
}

/** Why one line was skipped: its 1-based line number (0 for the whole body) and the field at fault. */
export interface TrajectoryLineError {
  line: number;
  field: string;
  message: string;
}

export interface ParsedTrajectory {
  trajectory: TrajectoryInput;
  errors: TrajectoryLineError[];
}

/** An ISO-8601 date-time with a zone in 1970-01-01 .. 2100-12-31, normalised to UTC. */
const isoTs = (field: string) => isoDateTimeField(field);

const nameField = (field: string) =>
  z
    .string({ invalid_type_error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(MAX_NAME_CHARS, `${field} must be at most ${MAX_NAME_CHARS} characters`);

/**
 * One JSONL step line. Unknown fields are ignored; JSON null means absent, except for `tokens` (a
 * number field: null is refused); `ts` is normalised to UTC.
 */
export const trajectoryStepSchema = z.object({
  kind: z.enum(STEP_KINDS, {
    errorMap: (issue, ctx) => ({
      message:
        issue.code === 'invalid_type' && ctx.data === undefined
          ? `kind is required; one of ${STEP_KINDS.join(', ')} (or session)`
          : `kind must be one of ${STEP_KINDS.join(', ')} (or session) (got ${JSON.stringify(ctx.data)})`,
    }),
  }),
  text: z
    .string({ required_error: 'text is required', invalid_type_error: 'text must be a string' })
    .max(MAX_STEP_TEXT_CHARS, `text must be at most ${MAX_STEP_TEXT_CHARS} characters`),
  tokens: wireNumber('tokens', 'a non-negative integer', z.number().int('tokens must be a non-negative integer').nonnegative('tokens must be a non-negative integer')).optional(),
  name: nameField('name').optional(),
  ok: z.boolean({ invalid_type_error: 'ok must be true or false' }).optional(),
  ts: isoTs('ts').optional(),
});

/**
 * A session line: `{"kind":"session","id"?,"started_at"?,"ended_at"?}`, or a marker
 * `{"event":"session_end","ts"?}` whose `ts` is the end time. Either may stand on any line (usually the
 * first and the last); for each field the last line that gives it wins.
 */
export const sessionLineSchema = z.object({
  id: nameField('id').optional(),
  started_at: isoTs('started_at').optional(),
  ended_at: isoTs('ended_at').optional(),
});
const sessionEndSchema = z.object({ ts: isoTs('ts').optional() });

/**
 * A command after a prompt at the very start of a line: `$ cmd`, `% cmd`, `> cmd`, optionally after a
 * `user@host` or `user@host:path` prefix (`alice@dev:~/app$ cargo test`). Indented lines are output.
 */
const PROMPT_LINE = /^(?:[\w.-]+@[\w.-]+(?::\S*?)?)?[$%>]\s+(\S.*)$/;
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=\S*$/;
const EXIT_COMMAND = /^(?:exit(?:\s+\d+)?|logout)$/;
const END_LINE = /^(?:session ended\b|script done\b|exit$|logout$)/i;

/** ceil(characters / 4), characters counted as String.length (UTF-16 code units). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** JSON null means absent, except in the number field `tokens`, where it is refused. */
const dropNulls = (raw: object) => Object.fromEntries(Object.entries(raw).filter(([k, v]) => v !== null || k === 'tokens'));

function issuesOf(error: z.ZodError, line: number): TrajectoryLineError[] {
  return error.issues.map((issue) => ({ line, field: issue.path.join('.') || '(line)', message: issue.message }));
}

interface Session {
  id?: string;
  started_at?: string;
  ended_at?: string;
  endSeen: boolean;
}

function parseJsonlSteps(text: string, steps: TrajectoryStep[], errors: TrajectoryLineError[]): Session {
  const session: Session = { endSeen: false };
  const parsed = parseJsonLines(text);
  errors.push(...lineRejections(parsed.errors));
  for (const { line, value } of parsed.values) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ line, field: '(line)', message: 'line must be a JSON object' });
      continue;
    }
    const unstorable = wireProblems(value);
    if (unstorable.length > 0) {
      errors.push(...unstorable.map((p) => ({ line, field: pathText(p.path, '(line)'), message: p.message })));
      continue;
    }
    const raw = dropNulls(value);
    if (raw.event === 'session_end') {
      const end = sessionEndSchema.safeParse(raw);
      if (!end.success) errors.push(...issuesOf(end.error, line));
      else Object.assign(session, { endSeen: true }, end.data.ts ? { ended_at: end.data.ts } : {});
    } else if (raw.kind === 'session') {
      const start = sessionLineSchema.safeParse(raw);
      if (!start.success) errors.push(...issuesOf(start.error, line));
      else Object.assign(session, start.data);
    } else {
      const step = trajectoryStepSchema.safeParse(raw);
      if (!step.success) errors.push(...issuesOf(step.error, line));
      else steps.push(step.data);
    }
  }
  return session;
}

function parseLogSteps(lines: string[], steps: TrajectoryStep[], errors: TrajectoryLineError[]): Session {
  let endSeen = false;
  lines.forEach((raw, i) => {
    const line = raw.trimEnd();
    if (line.trim() === '') return;
    endSeen = false;
    if (line.length > MAX_STEP_TEXT_CHARS) {
      errors.push({ line: i + 1, field: 'text', message: `text must be at most ${MAX_STEP_TEXT_CHARS} characters` });
      return;
    }
    const unstorable = unstorableTextMessage('text', line);
    if (unstorable !== null) {
      errors.push({ line: i + 1, field: 'text', message: unstorable });
      return;
    }
    const command = PROMPT_LINE.exec(line)?.[1]?.trim();
    if (command === undefined) {
      steps.push({ kind: 'output', text: line });
      endSeen = END_LINE.test(line.trim());
      return;
    }
    const words = command.split(/\s+/);
    steps.push({ kind: 'tool', text: command, name: words.find((word) => !ENV_ASSIGNMENT.test(word)) ?? command });
    endSeen = EXIT_COMMAND.test(command);
  });
  return { endSeen };
}

/**
 * Reads an external trajectory (HTTP body or CLI file). The shape is detected from the first non-empty
 * line: a JSON object means JSONL, anything else a plain session log. Errors come sorted by line.
 *
 * - JSONL: every non-empty line is a step `{kind, text, tokens?, name?, ok?, ts?}` (see
 *   `trajectoryStepSchema`) or a session line (see `sessionLineSchema`). A bad line is reported with its
 *   line number and field, and skipped; the good lines are kept.
 * - Plain log: every non-empty line is an `output` step, except a command after a prompt (`PROMPT_LINE`),
 *   which is a `tool` step named by the command's first word (leading `VAR=value` words skipped).
 *
 * Derived: `tool_calls` counts tool and action steps. `token_count` is the sum of `tokens` over the steps
 * that give it when any does, else `estimateTokens` of all step text joined. `ended` is true when an
 * `ended_at` or a `session_end` marker was given, or (plain log) the last non-empty line is a prompt
 * running `exit`/`logout`, a bare `exit`/`logout`, or starts with `Session ended` or `Script done`
 * (the `script(1)` footer). `options.id` wins over a session line's id. Empty input is a `(body)` error.
 *
 * Text the database cannot store (U+0000, an unpaired UTF-16 surrogate, anywhere in a JSONL line,
 * nesting deeper than 64) refuses its line, named by field; in a plain log the line (`text`); in
 * `options.id` the id (line 0, field `id`), which is then not used. Times must lie in
 * 1970-01-01 .. 2100-12-31.
 */
export function parseTrajectoryText(text: string, options: { id?: string } = {}): ParsedTrajectory {
  const steps: TrajectoryStep[] = [];
  const errors: TrajectoryLineError[] = [];
  const lines = text.split(/\r?\n/);
  const first = lines.find((line) => line.trim() !== '')?.trim();
  let session: Session = { endSeen: false };
  if (first === undefined) {
    errors.push({ line: 0, field: '(body)', message: 'trajectory is empty: expected JSONL steps or a session log' });
  } else if (isJsonObject(first)) {
    session = parseJsonlSteps(text, steps, errors);
  } else {
    session = parseLogSteps(lines, steps, errors);
  }
  const given = steps.filter((step) => step.tokens !== undefined);
  const tokenCount =
    given.length > 0
      ? given.reduce((sum, step) => sum + (step.tokens ?? 0), 0)
      : estimateTokens(steps.map((step) => step.text).join(''));
  const idProblem = options.id === undefined ? null : unstorableTextMessage('id', options.id);
  if (idProblem !== null) errors.push({ line: 0, field: 'id', message: `${idProblem}; the id is ignored` });
  const id = (idProblem === null ? options.id : undefined) ?? session.id;
  const trajectory: TrajectoryInput = {
    ...(id !== undefined ? { id } : {}),
    steps,
    ...(session.started_at !== undefined ? { started_at: session.started_at } : {}),
    ...(session.ended_at !== undefined ? { ended_at: session.ended_at } : {}),
    ended: session.ended_at !== undefined || session.endSeen,
    token_count: tokenCount,
    tool_calls: steps.filter((step) => step.kind === 'tool' || step.kind === 'action').length,
  };
  return { trajectory, errors: errors.sort((a, b) => a.line - b.line) };
}

function isJsonObject(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
