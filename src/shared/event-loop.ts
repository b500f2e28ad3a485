import { AsyncLocalStorage } from 'node:async_hooks';
import { pgliteInProcess } from './plugin-sql-globals';

/**
 * Gives the event loop a turn (timers, I/O, other requests) before going on. Long work on PGlite
 * needs it: its queries resolve through promise jobs alone, so a loop of awaited queries never
 * lets a timer or an HTTP request run until the whole loop ends. Every chunk of the plugin's long
 * work passes here, so here it also hints the collector (`collectorHints`, `hintInTurn`).
 *
 * Work started by `inTurns` takes turns with the other such work: one piece of it goes on per turn.
 * Everything else goes on in the next turn, every waiter in the same one.
 */
export function yieldToEventLoop(): Promise<void> {
  const turns = turnTaking.getStore();
  return hintInTurn(turns ? () => turns.next() : () => new Promise((resolve) => setImmediate(resolve)));
}

/**
 * Takes a turn (`turn`), hints the collector there, and when the hint asked it to run, takes
 * another turn before going on: a hint (up to 54 ms on the 1M bench database) never runs in the
 * same turn as the work that yields, before or after it. Given at the end of that work's turn, it
 * made one stall of both: 123.7 ms in the thirty-seventh 1M run's rollup, a 54 ms hint, a young
 * collection and a statement.
 */
function hintInTurn(turn: () => Promise<void>): Promise<void> {
  return turn().then(() => (collectorHints.hint() ? turn() : undefined));
}

/**
 * Runs `work` (background work started beside other background work: the start-up's lessons, ELO
 * book, ledger sums, metrics rollup and report, prompt context) so that its yields take turns with
 * those of the other work run here: one of them goes on per turn of the event loop, oldest first
 * (`TurnQueue`), and the event loop waits for one statement of theirs at a time. Left to the plain
 * yield, every piece ran a statement in the same turn: on the fifth 1M run's database that made 45
 * gaps over 60 ms after the services were ready, up to 320 ms, of statements of 20–60 ms; with
 * every yield of the process taking turns (tried at d985fb8) they were 4, up to 90 ms. That version
 * made the 10k ingest 19% slower (2,718–3,233 rows/s against 3,405–3,804, three pairs of runs), so
 * the ingest, learning and requests are left to the plain yield.
 */
export function inTurns<T>(work: () => T): T {
  return turnTaking.run(backgroundTurns, work);
}

/**
 * In work run by `inTurns`, a turn of its own for what follows a statement's result (`queryRows`
 * awaits it); elsewhere none (undefined). On PostgreSQL the statements of the start-up's background
 * work run at once on the pool's connections, and their results come back in one turn of the event
 * loop: each piece went on with its work there, outside its turn. In agent processes starting on
 * the fifty-fifth run's 1M database such turns (an ELO page admitted into the content index, a
 * turn of the lessons' load) were stalls of up to 63 ms, 76 ms under `bun --cpu-prof`, and one of
 * 103 ms in the run itself.
 */
export function turnForResult(): Promise<void> | undefined {
  return turnTaking.getStore()?.next();
}

/**
 * A turn of its own for the next step of a service's start, in line with the work run by
 * `inTurns`. The runtime starts every service of the plugin at once when its initialization ends,
 * and their steps resolve through promise jobs alone: on the ninth 1M run's database the five
 * starts ran as one stall of 60 statements, 317-550 ms, right after `initialize` returned (when
 * the server already routes messages to the agent, and its other agents wait too). Requests and
 * messages that arrive between two steps wait for the start (`pluginStarted`). Unlike `inTurns`,
 * this puts nothing in scope: timers and listeners a start sets up keep the plain yield.
 */
export function startTurn(): Promise<void> {
  return hintInTurn(() => backgroundTurns.next());
}

/**
 * Waiters resumed one per turn of the event loop, in the order they came (`setImmediate` between
 * two): what one does until its next wait runs in that turn alone.
 */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a turn of the event loop of its own, after every waiter that came before. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) this.schedule();
    });
  }

  /** Waiters not yet resumed. */
  get length(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}

/** The process's queue for work run by `inTurns`. */
const backgroundTurns = new TurnQueue();
const turnTaking = new AsyncLocalStorage<TurnQueue>();

/** Least time between two hints to the collector. */
export const COLLECTOR_HINT_EVERY_MS = 250;
/**
 * A hint runs on the calling thread for a time that grows with the heap: 0.3 ms at 30 MB and 3 ms
 * at 400 MB in a probe, a median of 12 ms and up to 67 ms in the bench process on the 1M database
 * (bench/stall-trace.ts under `--cpu-prof`: 4% of its time, and most of the stalls over 100 ms it
 * was in). The next hint so waits at least this many times as long as the last one took (hints
 * take at most 1% of the thread), and a hint that took over COLLECTOR_HINT_MAX_MS stops them for
 * COLLECTOR_HINT_RETRY_MS, twice as long after each slow hint in a row (at most
 * COLLECTOR_HINT_RETRY_MAX_MS): on such a heap a hint is itself a stall, a heap that large seldom
 * shrinks again, and Bun's own collector, which runs from the turns the plugin's long work gives
 * the event loop, is left to it. (An agent process on the 1M bench database, warmed up, hints in
 * 3–8 ms.)
 */
export const COLLECTOR_HINT_COST_SHARE = 100;
export const COLLECTOR_HINT_MAX_MS = 10;
export const COLLECTOR_HINT_RETRY_MS = 600_000;
export const COLLECTOR_HINT_RETRY_MAX_MS = 64 * COLLECTOR_HINT_RETRY_MS;

/**
 * Under Bun, asks its collector to run (concurrently, `Bun.gc(false)`) at most every 250 ms, less
 * often when hints are slow, and not at all for a while when one was very slow
 * (`COLLECTOR_HINT_COST_SHARE`). Every query through plugin-sql leaves garbage behind, and Bun
 * collects it from its event loop: a loop of awaited queries that never gives the loop a turn
 * grows the process until it ends. `bench/collector-hint.ts` (5,000
 * lesson-like memories written on a 24 GB machine): peak RSS 1,182 MB with no turn, 478 MB with a
 * turn every 10 writes, 450 MB with this hint as well. Nothing under Node (V8 bounds its own heap).
 * The process has one (`collectorHints`); a test makes its own, so hints the rest of the process
 * gave (some slow, on a big heap) never decide what it sees.
 *
 * Hints are given only while plugin-sql runs PGlite in this process (`pgliteInProcess`), whose
 * garbage they are for. An agent on PostgreSQL waits on a socket for each statement, and Bun's
 * collector runs from those turns: on the 1M bench database on PostgreSQL, without hints, the
 * bench's process and an agent process held no more (576 and 465 MB against 645 and 540 MB with
 * them), twelve agent processes started on it alternately with and without hints had the same
 * RSS and provider times, and the one stall over 100 ms of the run with hints (a 145.8 ms hint)
 * was gone (docs/scale-runs.md, the forty-fifth run).
 */
export class CollectorHints {
  private nextHintMs = Number.NEGATIVE_INFINITY;
  /** How long the hints stop after the next slow one. */
  private retryMs = COLLECTOR_HINT_RETRY_MS;

  /** `wanted`: whether hints are given now (by default, while plugin-sql runs PGlite in this process). */
  constructor(private readonly wanted: () => boolean = pgliteInProcess) {}

  /** `clock` times the hint itself (a test's may be fake). True when the collector was asked. */
  hint(nowMs = performance.now(), clock: () => number = () => performance.now()): boolean {
    const gc = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun?.gc;
    if (gc === undefined || nowMs < this.nextHintMs || !this.wanted()) return false;
    const startedMs = clock();
    gc(false);
    const costMs = clock() - startedMs;
    if (costMs > COLLECTOR_HINT_MAX_MS) {
      this.nextHintMs = nowMs + this.retryMs;
      this.retryMs = Math.min(2 * this.retryMs, COLLECTOR_HINT_RETRY_MAX_MS);
    } else {
      this.nextHintMs = nowMs + Math.max(COLLECTOR_HINT_EVERY_MS, COLLECTOR_HINT_COST_SHARE * costMs);
      this.retryMs = COLLECTOR_HINT_RETRY_MS;
    }
    return true;
  }
}

/** The process's hints, given from every `yieldToEventLoop`. */
export const collectorHints = new CollectorHints();
