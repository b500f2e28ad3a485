/**
 * Keeps stdout for the command's one result. While a command runs, everything the runtime or a
 * library prints through `console` goes to stderr; `printResult` writes to the real stdout.
 */
export function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

export function printResult(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Progress on stderr, at most every `everyMs`, and always the last step. */
export function progressPrinter(label: string, everyMs = 500): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done < total && now - last < everyMs) return;
    last = now;
    process.stderr.write(`[self-improve] ${label}: ${done}/${total}\n`);
  };
}
