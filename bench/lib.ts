import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectorHints } from '../src/shared/event-loop';
import { sqlSingletons } from '../src/shared/plugin-sql-globals';
import { describeSpan, procSample } from './proc-sample';

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** `a / b` to two places, NaN when `b` is 0: a figure at the largest size against the same at the smallest. */
export const ratioOf = (a: number, b: number) => round(b === 0 ? Number.NaN : a / b, 2);

/** One JSON line on stdout: the benchmark's result. */
export function report(result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** A process's resident set now (VmRSS) or at its highest so far (VmHWM), in MB (Linux); null where /proc has it not (no /proc, or the process has exited). */
export function processMemoryMb(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string)?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

/** The process's peak RSS so far in MB (VmHWM; Linux), or null where /proc is not there. */
export const peakRssMb = (): number | null => processMemoryMb('self', 'VmHWM');

/** Bun's heap statistics after a full collection: what is live. */
export function collectedHeapStats(): ReturnType<typeof import('bun:jsc').heapStats> {
  Bun.gc(true);
  const { heapStats } = require('bun:jsc') as typeof import('bun:jsc');
  return heapStats();
}

/**
 * The live heap after a full collection: its size, the memory held outside it (array buffers and
 * the like), and the object types with the most objects, to see what a process keeps.
 * `webassembly_functions` counts the functions of live WebAssembly instances: about 6,500 for one
 * PGlite, twice that while a closed runtime's PGlite is still reachable (as it was from the
 * bench's own loop before bench/scale.ts ran each step in a function of its own).
 */
export function liveHeap(types = 10): { heap_mb: number; extra_mb: number; objects: number; webassembly_functions: number; pglite_memory_mb: number | null; top_types: [string, number][] } {
  const stats = collectedHeapStats();
  const top = Object.entries(stats.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, types);
  return {
    heap_mb: Math.round(stats.heapSize / 1_048_576),
    extra_mb: Math.round(stats.extraMemorySize / 1_048_576),
    objects: stats.objectCount,
    webassembly_functions: stats.objectTypeCounts.WebAssemblyFunction ?? 0,
    pglite_memory_mb: pgliteMemoryMb(),
    top_types: top,
  };
}

/**
 * The size of the WebAssembly memory of plugin-sql's PGlite in this process (null when there is
 * none). It only grows: what one statement needed at most (a sort, a large result) stays
 * allocated, and counted in RSS once touched, for the life of the process.
 */
export function pgliteMemoryMb(): number | null {
  const heap = (pgliteClient()?.mod as { HEAPU8?: Uint8Array } | undefined)?.HEAPU8;
  return heap ? Math.round(heap.length / 1_048_576) : null;
}

/** A progress line on stderr, with the process's RSS and its peak so far (where a peak happened). */
export function note(message: string): void {
  process.stderr.write(`[bench] ${message} (rss ${Math.round(process.memoryUsage().rss / 1_048_576)} MB, peak ${peakRssMb() ?? '?'} MB, pglite memory ${pgliteMemoryMb() ?? '-'} MB)\n`);
}

export async function withTempDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function timeMs<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/**
 * Times `work` and the longest event-loop stall during it (the longest delay of a 5 ms timer) and
 * how many stalls were longer than the goal (`stalls_over_100_ms`), with
 * what ran in that stall: the longest PGlite statement (`stall_sql`: its time and text; null when it
 * ran none, or the runtime is not on PGlite), and how many statements ran and their total time
 * (`stall_statements`: a stall of many short statements is a chain of awaits with no turn of the
 * event loop between; one with few is JavaScript or the collector), and the collector hints given
 * in it and their time (`stall_hints`, `collectorHints`). Work the bench itself does
 * synchronously (generating the rows it feeds in) goes through `untimed`, so it is not taken for a
 * stall of the plugin's.
 *
 * With BENCH_STALL_LOG_MS set, every stall longer than that many milliseconds is also written to
 * stderr as it is seen (`stall <ms> ms at <ms since start> (since the epoch: <ms>): <statements>`;
 * the epoch time is when it began, to find its samples in a `bun --cpu-prof` profile), so that it lands among
 * what the runtime logs there (with `BUN_JSC_logGC=1`, Bun's collections before it), with where
 * its time went by Linux's counters (`bench/proc-sample.ts`: the main thread running, waiting for
 * a CPU, the host's steal, I/O), sampled at every turn of the meter while stalls are logged.
 */
const STALL_LOG_MS = Number(process.env.BENCH_STALL_LOG_MS ?? Number.POSITIVE_INFINITY);
/** Calls longer than this are written out by `timeCalls` (`bench/scale-calls.ts`), and every hint where it falls; unset: nothing is. */
export const CALL_LOG_MS = Number(process.env.BENCH_CALL_LOG_MS ?? Number.POSITIVE_INFINITY);

/** The goal for a stall; `withStallMeter` counts the stalls longer than this (`stalls_over_100_ms`). */
export const STALL_GOAL_MS = 100;

export async function withStallMeter<T>(
  work: (untimed: <R>(bench: () => R) => R) => Promise<T>,
): Promise<{ value: T; ms: number; stall_ms: number; stalls_over_100_ms: number; stall_sql: string | null; stall_statements: { count: number; ms: number }; stall_hints: { count: number; ms: number } }> {
  watchStatementsOnce();
  watchHintsOnce();
  let expected = performance.now() + 5;
  let worst = 0;
  let overGoal = 0;
  let worstSql: string | null = null;
  let worstStatements = { count: 0, ms: 0 };
  let worstHints = { count: 0, ms: 0 };
  // The statement and hint totals at the meter's last turn: what ran since is the difference.
  let atTurn = { statements: { ...allStatements }, hints: { ...allHints } };
  // Linux's counters at each turn, when stalls are logged: where a logged stall's time went.
  let lastSample = Number.isFinite(STALL_LOG_MS) ? procSample() : null;
  const seeTurn = (now: number) => {
    const sample = lastSample ? procSample() : null;
    const totals = { statements: { ...allStatements }, hints: { ...allHints } };
    const sinceTurn = countedSince(atTurn.statements, totals.statements);
    if (now - expected > STALL_LOG_MS) {
      const where = lastSample && sample ? `; ${describeSpan(lastSample, sample)}` : '';
      process.stderr.write(`stall ${round(now - expected, 1)} ms at ${Math.round(now)} ms (since the epoch: ${Math.round(performance.timeOrigin + expected)}): ${sinceTurn.count} statements, ${round(sinceTurn.ms, 1)} ms; longest ${longestStatement(160) ?? 'none'}${where}\n`);
    }
    if (sample) lastSample = sample;
    if (now - expected > STALL_GOAL_MS) overGoal++;
    if (now - expected > worst) {
      worst = now - expected;
      worstSql = longestStatement(160);
      worstStatements = { count: sinceTurn.count, ms: round(sinceTurn.ms, 1) };
      const hints = countedSince(atTurn.hints, totals.hints);
      worstHints = { count: hints.count, ms: round(hints.ms, 1) };
    }
    longestSinceTurn = null;
    atTurn = totals;
  };
  longestSinceTurn = null;
  const timer = setInterval(() => {
    const now = performance.now();
    seeTurn(now);
    expected = now + 5;
  }, 5);
  const untimed = <R>(bench: () => R): R => {
    seeTurn(performance.now());
    try {
      return bench();
    } finally {
      expected = performance.now() + 5;
    }
  };
  try {
    const { ms, value } = await timeMs(() => work(untimed));
    // The time since the last tick counts too: work that never yields starves the timer entirely.
    seeTurn(performance.now());
    return { value, ms, stall_ms: round(worst, 1), stalls_over_100_ms: overGoal, stall_sql: worstSql, stall_statements: worstStatements, stall_hints: worstHints };
  } finally {
    clearInterval(timer);
  }
}

/**
 * With BENCH_COLLECTOR_HINTS=off, the plugin's collector hints (`collectorHints`) are not given in
 * the bench's processes (the agent process `bench/scale.ts` starts inherits the setting): Bun's
 * collector left to its own triggers, to compare the pauses and the memory with and without them.
 * It matters on PGlite only: on PostgreSQL the plugin gives no hints.
 */
if (process.env.BENCH_COLLECTOR_HINTS === 'off') collectorHints.hint = () => false;
/**
 * With BENCH_COLLECTOR_HINTS=eden, each hint runs a young-generation collection on the spot
 * (`edenGC` from `bun:jsc`) instead of `Bun.gc(false)`, which first cleans up mimalloc's free pages
 * on the calling thread (once in a few thousand hints, 268–291 ms in the sixteenth and seventeenth
 * runs) and then only asks for a collection. The plugin's hint calls `Bun.gc(false)`; in the
 * bench's processes that call is redirected (`Bun.gc(true)`, the bench's own, is left alone). In
 * the eighteenth run these hints took 6.5 ms at the median and up to 22 ms, so the hints' back-off
 * stopped them (50 in the run, about 3,000 otherwise) and the process went over 1 GiB.
 */
if (process.env.BENCH_COLLECTOR_HINTS === 'eden') {
  const { edenGC } = await import('bun:jsc');
  const gc = Bun.gc;
  Bun.gc = (force?: boolean) => {
    if (force) gc(true);
    else edenGC();
  };
}

/** The longest PGlite statement since the stall meter's last turn (its text and time), for `stall_sql`. */
let longestSinceTurn: { ms: number; sql: string } | null = null;
/** The longest statement since the stall meter's last turn, as `<ms> ms: <its first chars of text>`, or null. */
function longestStatement(chars: number): string | null {
  return longestSinceTurn ? `${round(longestSinceTurn.ms, 1)} ms: ${longestSinceTurn.sql.slice(0, chars)}` : null;
}
/** Every statement seen since the process began watching: how many, and their time. */
const allStatements = { count: 0, ms: 0 };

/** How many ran between two totals (`statementTotals`, `hintTotals`), and their time. */
export function countedSince(from: { count: number; ms: number }, to: { count: number; ms: number }): { count: number; ms: number } {
  return { count: to.count - from.count, ms: to.ms - from.ms };
}

/** How many PGlite statements ran so far, and their time (watching the current client from now on if it was not). */
export function statementTotals(): { count: number; ms: number } {
  watchStatementsOnce();
  return { ...allStatements };
}
let hintsWatched = false;
/** Every collector hint given (that asked the collector) since the process began watching: how many, and their time. */
const allHints = { count: 0, ms: 0 };

/** How many collector hints were given so far, and their time (watching them from now on if they were not). */
export function hintTotals(): { count: number; ms: number } {
  watchHintsOnce();
  return { ...allHints };
}

/** Times the process's collector hints for the stall meter (once). */
function watchHintsOnce(): void {
  if (hintsWatched) return;
  hintsWatched = true;
  const hint = collectorHints.hint.bind(collectorHints);
  collectorHints.hint = (...args: Parameters<typeof hint>) => {
    const started = performance.now();
    const asked = hint(...args);
    if (asked) {
      const ms = performance.now() - started;
      allHints.count++;
      allHints.ms += ms;
      // Among the call marks and Bun's collection log (`BENCH_CALL_LOG_MS`): where each hint fell.
      if (Number.isFinite(CALL_LOG_MS)) process.stderr.write(`hint ${round(ms, 2)} ms\n`);
    }
    return asked;
  };
}

/** The PGlite clients the stall meter watches: a runtime booted again on the same database has a client of its own. */
const watched = new WeakSet<object>();

/** Watches the current PGlite client's statements for the stall meter, once per client; nothing when the runtime is not on PGlite (or not booted yet). */
function watchStatementsOnce(): void {
  const client = pgliteClient();
  if (!client || watched.has(client)) return;
  watched.add(client);
  watchPgliteStatementEnds((ms, sql, parts) => {
    // A statement over 20 ms shows its time by protocol message before its text.
    if (!longestSinceTurn || ms > longestSinceTurn.ms) longestSinceTurn = { ms, sql: ms > 20 ? `[${parts()}] ${sql}` : sql };
    allStatements.count++;
    allStatements.ms += ms;
  });
}

/**
 * Calls `ended` as each statement of plugin-sql's PGlite client ends (an Execute 'E' or a simple
 * Query 'Q'), with the time of all its protocol messages (parse, bind, describe, execute, and the
 * Sync that ended the statement before it, where an implicit transaction commits) and its SQL.
 * `parts()` gives that time by message type (`S 0.1 P 0.0 B 88.2 D 0.0 E 4.1`), to tell planning
 * (bind) from execution and from the commit of the statement before; valid only during the call,
 * and made only when asked (no string per statement in the measured process otherwise).
 */
export function watchPgliteStatementEnds(ended: (ms: number, sql: string, parts: () => string) => void): void {
  let inStatement = 0;
  const byKind = new Map<number, number>();
  const describeParts = () => [...byKind].map(([k, t]) => `${String.fromCharCode(k)} ${t.toFixed(1)}`).join(' ');
  watchPgliteStatements((kind, ms, sql) => {
    inStatement += ms;
    byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
    if (kind !== 0x45 && kind !== 0x51) return;
    ended(inStatement, sql.trim(), describeParts);
    inStatement = 0;
    byKind.clear();
  });
}

/** plugin-sql's PGlite client of this process, or undefined. */
function pgliteClient(): Record<string, unknown> | undefined {
  const manager = sqlSingletons()?.pgLiteClientManager as { client: Record<string, unknown> } | undefined;
  return manager?.client;
}

/**
 * Calls `seen` after every protocol message plugin-sql's PGlite client runs (each runs
 * synchronously on the main thread): the message's type byte, its time, and the SQL of the
 * statement it belongs to (from the last Parse 'P' or simple Query 'Q', whitespace collapsed, its
 * first 200 characters).
 */
export function watchPgliteStatements(seen: (kind: number, ms: number, sql: string) => void): void {
  const client = pgliteClient();
  if (!client) throw new Error('no PGlite client found: this bench needs plugin-sql on PGlite');
  const original = (client.execProtocolRawSync as (m: Uint8Array) => Uint8Array).bind(client);
  let sql = '';
  client.execProtocolRawSync = (message: Uint8Array) => {
    if (message[0] === 0x50 || message[0] === 0x51) sql = new TextDecoder().decode(message.subarray(5, 205)).replace(/\0/g, ' ').replace(/\s+/g, ' ');
    const start = performance.now();
    try {
      return original(message);
    } finally {
      seen(message[0] as number, performance.now() - start, sql);
    }
  };
}

/** The longest PGlite statements run while it is on: each runs synchronously, so each is a stall of at least its length. */
export class StatementTimer {
  private worst: { ms: number; sql: string }[] = [];
  /** Time per statement text (its first 80 characters), to see where a long piece of work goes. */
  private byText = new Map<string, { ms: number; n: number }>();
  totalMs = 0;

  install(): void {
    watchPgliteStatements((_kind, ms, sql) => {
      this.totalMs += ms;
      const text = sql.slice(0, 80);
      const seen = this.byText.get(text) ?? { ms: 0, n: 0 };
      seen.ms += ms;
      seen.n += 1;
      this.byText.set(text, seen);
      if (ms > 5) this.note(ms, sql);
    });
  }

  private note(ms: number, sql: string): void {
    this.worst.push({ ms: round(ms, 1), sql: sql.slice(0, 120) });
    this.worst.sort((a, b) => b.ms - a.ms);
    this.worst.length = Math.min(this.worst.length, 3);
  }

  /** The longest statements since the last call, and the time spent in statements; then starts over. */
  take(): { longest_statements: { ms: number; sql: string }[]; statements_ms: number } {
    const out = { longest_statements: this.worst, statements_ms: Math.round(this.totalMs) };
    this.worst = [];
    this.totalMs = 0;
    this.byText.clear();
    return out;
  }

  /** Like `take`, with the `top` statement texts that took the most time in all (PGlite protocol messages: a statement's parse, bind and execute each count). */
  takeWithHeaviest(top = 6): ReturnType<StatementTimer['take']> & { heaviest_statements: { ms: number; calls: number; sql: string }[] } {
    const heaviest = [...this.byText.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([text, t]) => ({ ms: Math.round(t.ms), calls: t.n, sql: text }));
    return { ...this.take(), heaviest_statements: heaviest };
  }
}

/**
 * What fills each event-loop stall: the PGlite statements run between two turns of the event loop
 * (a 2 ms timer), each with the JavaScript time before it. Once `install`ed, every stretch between
 * two turns longer than `thresholdMs` is printed as one JSON line (`bench`, the current `phase`,
 * its length, when it began in ms since the epoch, as `bun --cpu-prof` profiles count, and its
 * statements) and counted, in all (`stalls`) and per phase (`stallsIn`).
 */
export class StallTracer {
  phase = 'boot';
  stalls = 0;
  readonly stallsIn: Record<string, number> = {};
  private phaseStart = performance.now();
  private steps: { js_ms: number; sql_ms: number; sql: string }[] = [];
  private lastTurn = performance.now();
  private lastStep = performance.now();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly bench: string,
    private readonly thresholdMs: number,
  ) {}

  /** Starts a phase; the one before it is timed (a note on stderr). */
  enter(phase: string): void {
    if (this.phase !== 'boot') note(`${this.phase}: ${Math.round(performance.now() - this.phaseStart)} ms`);
    this.phase = phase;
    this.phaseStart = performance.now();
  }

  /** Starts tracing (plugin-sql's PGlite client must exist: after the runtime's boot). */
  install(): void {
    watchPgliteStatementEnds((ms, sql) => {
      const end = performance.now();
      this.steps.push({ js_ms: round(end - this.lastStep - ms, 1), sql_ms: round(ms, 1), sql: sql.slice(0, 100) });
      this.lastStep = end;
    });
    // Stalls are counted from here: what ran before is not traced.
    this.lastTurn = performance.now();
    this.lastStep = this.lastTurn;
    this.timer = setInterval(() => this.turn(), 2);
  }

  /** A turn of the event loop: reports the stretch since the last one when it was a stall. */
  turn(): void {
    const now = performance.now();
    const ms = now - this.lastTurn;
    if (ms > this.thresholdMs) {
      this.stalls++;
      this.stallsIn[this.phase] = (this.stallsIn[this.phase] ?? 0) + 1;
      report({ bench: this.bench, phase: this.phase, stall_ms: round(ms, 1), started_at_ms: round(performance.timeOrigin + this.lastTurn, 1), tail_js_ms: round(now - this.lastStep, 1), statements: this.steps });
    }
    this.lastTurn = now;
    this.lastStep = now;
    this.steps = [];
  }

  /** Bench work outside the plugin: not traced. */
  untraced<T>(work: () => T): T {
    this.turn();
    try {
      return work();
    } finally {
      this.lastTurn = performance.now();
      this.lastStep = this.lastTurn;
      this.steps = [];
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
