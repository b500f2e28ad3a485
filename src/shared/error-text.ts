/**
 * An error in words for a log line or a message: its own message and, when it wraps others
 * (`cause`), the innermost one's. drizzle wraps every database error in "Failed query: <sql>
 * params: ..." and keeps the database's own reason ("timeout exceeded when trying to connect",
 * "deadlock detected") only in its cause. Not for answers to outside callers, which must not see
 * the statement: those get `databaseReason` (shared/sql.ts).
 */
export function errorText(error: unknown): string {
  const own = messageOf(error);
  const root = innermostCause(error);
  if (root === error) return own;
  const cause = messageOf(root);
  return cause === own || own.includes(cause) ? own : `${own} (cause: ${cause})`;
}

/** The message of an Error; anything else as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Causes followed at most (a cycle of causes ends). */
const MAX_CAUSE_DEPTH = 10;

/** The innermost `cause` of a chain of wrapped errors (the error itself when it wraps none). */
export function innermostCause(error: unknown): unknown {
  let root: unknown = error;
  for (let depth = 0; root instanceof Error && root.cause !== undefined && root.cause !== null && depth < MAX_CAUSE_DEPTH; depth++) root = root.cause;
  return root;
}
