/**
 * An error in words for a log line or a message: its own message and, when it wraps others
 * (`cause`), the innermost one's. drizzle wraps every database error in "Failed query: <sql>
 * params: ..." and keeps the database's own reason ("timeout exceeded when trying to connect",
 * "deadlock detected") only in its cause. Not for answers to outside callers, which must not see
 * the statement: those get `databaseReason` (shared/sql.ts).
 */
export function errorText(error: unknown): string {
  const own = error instanceof Error ? error.message : String(error);
  let root: unknown = error;
  for (let depth = 0; root instanceof Error && root.cause !== undefined && root.cause !== null && depth < 10; depth++) root = root.cause;
  if (root === error) return own;
  const cause = root instanceof Error ? root.message : String(root);
  return cause === own || own.includes(cause) ? own : `${own} (cause: ${cause})`;
}
