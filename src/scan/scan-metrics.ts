import type { IAgentRuntime } from '@elizaos/core';
import { checkMetricOptions, nextHourAheadAt, reportHoursAhead, type ScanMetricsReport } from './model/metrics';
import type { WeeklyTriageOptions, WeeklyTriageReport } from './model/weekly-triage';
import { MetricRollup, type OutcomeFollower, type RollupPosition } from './metric-rollup-store';
import { rollupMetrics, rollupWeekly } from './metric-rollup-read';
import { HOUR_MS } from './model/grouping';
import { deepFreeze } from '../shared/deep-freeze';
import { inTurns, yieldToEventLoop } from '../shared/event-loop';
import type { Db } from '../shared/sql';
import { errorText } from '../shared/error-text';

/** The follower waits until no outcome has been written for this long and no write or other background work is under way: a bulk ingest keeps the database to itself. */
export const FOLLOW_QUIET_MS = 500;
/** A metrics read rolls up at most this many waiting outcomes itself before it answers; beyond that it answers from the rollup as it is. */
export const READ_CATCH_UP_MAX = 2_000;
/** Slices per dimension a metrics report shows when the caller names no number, and the most it may name. */
export const DEFAULT_METRIC_SLICES = 50;
export const MAX_METRIC_SLICES = 1_000;
/** The largest k of precision@k a metrics request may name (as `SELF_IMPROVE_METRICS_K` may). */
export const MAX_METRICS_K = 100_000;
/** Reports kept for reuse (`ScanMetrics.report`): the dashboard's and a few others. */
export const REPORT_MEMO_SIZE = 8;
/** After the follower catches up, the default report is computed ahead of the next read at most this often. */
export const REPORT_WARM_EVERY_MS = 5_000;
/**
 * The default report of the next hour is computed this long before the hour turns (its drift
 * windows end at the hour, so it is a new report): a dashboard's first read of an hour finds it
 * ready. On the 1M bench database a report took 0.1 s to compute in a settled process, and the
 * first read of an hour in a bench run 1.2 s.
 */
export const REPORT_AHEAD_OF_HOUR_MS = 60_000;

type ReportOptions = { asOfMs: number; k: number; slices: number };

export interface ScanMetricsOptions {
  /** Other background work the follower gives way to (a learning pass). */
  otherWork?: () => boolean;
  /** How many waiting outcomes a read rolls up itself before answering (`READ_CATCH_UP_MAX`). */
  readCatchUpMax?: number;
  /** The options of the report computed ahead of reads (the dashboard's): after the follower catches up, and before each hour turns. None computes nothing ahead. */
  warmOptions?: () => Omit<ReportOptions, 'asOfMs'>;
  /** The clock (tests set it near an hour's turn). */
  now?: () => number;
}

/** What a metrics read says of the outcomes its figures leave out. */
export interface RollupLag {
  /** Outcomes stored but not yet in these figures (the rollup is catching up with a large ingest); 0 when every stored outcome is counted. */
  pending_outcomes: number;
}

/**
 * The scan metrics of one agent, read from the metrics rollup (`MetricRollup`), whose cost does
 * not grow with the outcomes stored. The rollup follows the outcomes off the ingest path: once no
 * outcome write or learning pass is under way and none has been written for `FOLLOW_QUIET_MS`, it
 * rolls up the new outcomes a chunk per transaction, yielding the event loop between chunks
 * (outcomes stored before the rollup existed are rolled up the same way from start-up). A read first rolls up what is still waiting when that
 * is at most `READ_CATCH_UP_MAX` outcomes, so its figures count every stored outcome; with more
 * waiting it answers from the rollup as it is and says how many outcomes are left out.
 */
export class ScanMetrics implements OutcomeFollower {
  readonly rollup: MetricRollup;
  private following: Promise<void> | null = null;
  private lastWriteMs = 0;
  private writes = 0;
  /** Set by every write; the follower stops only after a step that began after the last one found nothing. */
  private dirty = false;
  private stopping = false;
  private upgrading: Promise<void> | null = null;
  /** Reports by rollup version and options (`memoKey`), oldest first, frozen: every reader gets the same object. */
  private readonly memo = new Map<string, ScanMetricsReport>();
  /** Reports being computed, by `memoKey`: a read that asks for one waits for it instead of computing it again. */
  private readonly computing = new Map<string, Promise<ScanMetricsReport>>();
  /** Reports computed (not found kept or being computed): what the tests check the reuse by. */
  computed = 0;
  private lastWarmMs = Number.NEGATIVE_INFINITY;
  /** Reports being computed ahead (`warm`): the follower's and the hour timer's may overlap. */
  private readonly warming = new Set<Promise<void>>();
  private hourTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly otherWork: () => boolean;
  private readonly readCatchUpMax: number;
  private readonly warmOptions: (() => Omit<ReportOptions, 'asOfMs'>) | null;
  private readonly now: () => number;

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly db: Db,
    options: ScanMetricsOptions = {},
  ) {
    this.rollup = new MetricRollup(db, runtime.agentId);
    this.otherWork = options.otherWork ?? (() => false);
    this.readCatchUpMax = options.readCatchUpMax ?? READ_CATCH_UP_MAX;
    this.warmOptions = options.warmOptions ?? null;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts following: outcomes waiting from before (another process's, or stored before the rollup
   * existed) are rolled up in the background. With `warmOptions`, the next hour's report is computed
   * `REPORT_AHEAD_OF_HOUR_MS` before each hour turns.
   */
  start(): void {
    // What waits from before is rolled up beside the start-up's other background work.
    inTurns(() => this.wake());
    this.aheadOfNextHour();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.hourTimer) clearTimeout(this.hourTimer);
    this.hourTimer = null;
    await this.following;
    await Promise.all(this.warming);
  }

  /** Arms the timer that warms the reports `REPORT_AHEAD_OF_HOUR_MS` before the next hour turns, and again before each hour after. */
  private aheadOfNextHour(): void {
    if (!this.warmOptions || this.stopping) return;
    const atMs = nextHourAheadAt(this.now(), REPORT_AHEAD_OF_HOUR_MS);
    this.hourTimer = setTimeout(() => {
      this.hourTimer = null;
      // While outcomes are written or rolled up, the follower computes the reports once it has caught
      // up (the next hour's too, inside the lead): a report read now would count the waiting
      // outcomes (at 1M, 316 ms for the 900,000 of a large ingest, an ingest stall of 611 ms).
      if (this.following || this.writes > 0) {
        this.aheadOfNextHour();
        return;
      }
      // A timer may fire a little early: warm as of the time it was set for at the least.
      this.warmThenRearm(Math.max(this.now(), atMs)).catch((error: unknown) => this.notAhead(error));
    }, Math.max(0, atMs - this.now()));
    (this.hourTimer as { unref?: () => void }).unref?.();
  }

  lock(tx: Db): Promise<void> {
    return this.rollup.lock(tx);
  }

  writing(): void {
    this.writes++;
    this.lastWriteMs = Date.now();
  }

  written(wrote: boolean): void {
    this.writes--;
    this.lastWriteMs = Date.now();
    if (wrote) this.wake();
  }

  recorded(tx: Db, keys: readonly string[]): Promise<void> {
    return this.rollup.refreshRecorded(tx, keys);
  }

  /** Resolves once the follower has nothing left to roll up (or has stopped or failed) and no report is being computed ahead. */
  async caughtUp(): Promise<void> {
    while (this.following || this.warming.size > 0) await (this.following ?? Promise.all(this.warming));
  }

  /** Starts following if it is not already: what is waiting is rolled up once no write or learning pass is under way. */
  wake(): void {
    this.dirty = true;
    if (this.following || this.stopping) return;
    this.following = this.follow().finally(() => {
      this.following = null;
    });
  }

  /** The rollup in the current format (`MetricRollup.upgrade`) before anything reads or extends it, once per process; a failure is left for the next caller to retry. */
  private upgraded(): Promise<void> {
    this.upgrading ??= this.rollup.upgrade().catch((error: unknown) => {
      this.upgrading = null;
      throw error;
    });
    return this.upgrading;
  }

  /** A failure is logged; the next write or read goes on from where the rollup stands. */
  private async follow(): Promise<void> {
    try {
      await this.upgraded();
      while (!this.stopping) {
        const quietFor = this.writes > 0 || this.otherWork() ? FOLLOW_QUIET_MS : this.lastWriteMs + FOLLOW_QUIET_MS - Date.now();
        if (quietFor > 0) {
          await new Promise((resolve) => setTimeout(resolve, quietFor));
          continue;
        }
        this.dirty = false;
        const taken = await this.rollup.step();
        if (taken === 0 && !this.dirty) break;
        await yieldToEventLoop();
      }
    } catch (error) {
      this.runtime.logger.warn(
        { src: 'plugin:self-improve:metrics', agentId: this.runtime.agentId, error: errorText(error) },
        'the metrics rollup stopped following the outcomes; it goes on with the next write or metrics read',
      );
      return;
    }
    await this.warm(this.now(), false);
  }

  /**
   * The default report for the hours a read may soon ask for (`reportHoursAhead`), computed ahead
   * of the read: after the follower catches up (at most every `REPORT_WARM_EVERY_MS`), and, forced,
   * before each hour turns. A failure is logged and left to the read.
   */
  private async warm(nowMs: number, force: boolean): Promise<void> {
    if (!this.warmOptions || this.stopping || (!force && nowMs - this.lastWarmMs < REPORT_WARM_EVERY_MS)) return;
    this.lastWarmMs = nowMs;
    const warmOptions = this.warmOptions;
    const warming = (async () => {
      try {
        const options = warmOptions();
        for (const asOfMs of reportHoursAhead(nowMs, REPORT_AHEAD_OF_HOUR_MS)) await this.report({ ...options, asOfMs });
      } catch (error) {
        this.notAhead(error);
      }
    })();
    this.warming.add(warming);
    await warming;
    this.warming.delete(warming);
  }

  /** The hour timer's run: the reports ahead (`warm` logs its own failures), then the timer armed for the next hour, whatever happened. */
  private async warmThenRearm(nowMs: number): Promise<void> {
    try {
      await this.warm(nowMs, true);
    } finally {
      this.aheadOfNextHour();
    }
  }

  private notAhead(error: unknown): void {
    this.runtime.logger.warn(
      { src: 'plugin:self-improve:metrics', agentId: this.runtime.agentId, error: errorText(error) },
      'the metrics report could not be computed ahead; the next read computes it',
    );
  }

  /** Rolls up what is waiting when that is at most `READ_CATCH_UP_MAX` outcomes; returns the seq the rollup then holds, what is still waiting, and the rollup's version. */
  private async catchUp(): Promise<RollupPosition> {
    await this.upgraded();
    let lag = await this.rollup.lag();
    if (lag.pending > this.readCatchUpMax) return lag;
    while (lag.pending > 0) {
      if ((await this.rollup.step()) === 0) break;
      await yieldToEventLoop();
      lag = await this.rollup.lag();
    }
    return lag;
  }

  /**
   * The report at `asOfMs`. A report depends on the rollup's version, k, the slices and the hour of
   * `asOfMs` alone (its drift windows end at a whole hour), so one computed at the same version is
   * reused (`REPORT_MEMO_SIZE` kept) with its `as_of` set to this one's: a dashboard polling an
   * agent whose outcomes have not changed costs two reads of the rollup's state. The version is read
   * from the database, so a change made by any process is seen. A report is kept only when the
   * version is the same after it as before (no change landed while it was read).
   */
  async report(options: ReportOptions): Promise<ScanMetricsReport & RollupLag> {
    checkMetricOptions(options);
    const { pending, version } = await this.catchUp();
    const report = await this.computedAt(version, options);
    return { ...report, as_of: new Date(options.asOfMs).toISOString(), pending_outcomes: pending };
  }

  /** The report at `version`: kept, being computed (then waited for), or computed now. */
  private computedAt(version: number, options: ReportOptions): Promise<ScanMetricsReport> {
    const key = memoKey(version, options);
    const kept = this.memo.get(key);
    if (kept) return Promise.resolve(kept);
    let computing = this.computing.get(key);
    if (!computing) {
      this.computed++;
      computing = (async () => {
        const report = deepFreeze(await rollupMetrics(this.db, this.runtime.agentId, options));
        if ((await this.rollup.version()) === version) this.remember(key, report);
        return report;
      })().finally(() => this.computing.delete(key));
      this.computing.set(key, computing);
    }
    return computing;
  }

  private remember(key: string, report: ScanMetricsReport): void {
    this.memo.delete(key);
    this.memo.set(key, report);
    for (const oldest of this.memo.keys()) {
      if (this.memo.size <= REPORT_MEMO_SIZE) break;
      this.memo.delete(oldest);
    }
  }

  async weekly(options: WeeklyTriageOptions): Promise<WeeklyTriageReport & RollupLag> {
    const { doneSeq, pending } = await this.catchUp();
    return { ...(await rollupWeekly(this.db, this.runtime.agentId, { ...options, throughSeq: doneSeq })), pending_outcomes: pending };
  }
}

/** What a report depends on besides the stored rollup: the options, with `asOfMs` as the hour its drift windows end at. */
function memoKey(version: number, options: ReportOptions): string {
  return `${version}:${options.k}:${options.slices}:${Math.floor(options.asOfMs / HOUR_MS)}`;
}
