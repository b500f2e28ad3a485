import type { IAgentRuntime } from '@elizaos/core';
import type { ScanMetricsReport } from './model/metrics';
import type { WeeklyTriageOptions, WeeklyTriageReport } from './model/weekly-triage';
import { MetricRollup, type OutcomeFollower } from './metric-rollup-store';
import { rollupMetrics, rollupWeekly } from './metric-rollup-read';
import { yieldToEventLoop } from '../shared/event-loop';
import type { Db } from '../shared/sql';

/** The follower waits until no outcome has been written for this long and no write or other background work is under way: a bulk ingest keeps the database to itself. */
export const FOLLOW_QUIET_MS = 500;
/** A metrics read rolls up at most this many waiting outcomes itself before it answers; beyond that it answers from the rollup as it is. */
export const READ_CATCH_UP_MAX = 2_000;
/** Slices per dimension a metrics report shows when the caller names no number, and the most it may name. */
export const DEFAULT_METRIC_SLICES = 50;
export const MAX_METRIC_SLICES = 1_000;
/** The largest k of precision@k a metrics request may name (as `SELF_IMPROVE_METRICS_K` may). */
export const MAX_METRICS_K = 100_000;

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

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly db: Db,
    /** Other background work the follower gives way to (a learning pass). */
    private readonly otherWork: () => boolean = () => false,
    /** How many waiting outcomes a read rolls up itself before answering. */
    private readonly readCatchUpMax = READ_CATCH_UP_MAX,
  ) {
    this.rollup = new MetricRollup(db, runtime.agentId);
  }

  /** Starts following: outcomes waiting from before (another process's, or stored before the rollup existed) are rolled up in the background. */
  start(): void {
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.following;
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

  /** Resolves once the follower has nothing left to roll up (or has stopped or failed). */
  async caughtUp(): Promise<void> {
    while (this.following) await this.following;
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
        if (taken === 0 && !this.dirty) return;
        await yieldToEventLoop();
      }
    } catch (error) {
      this.runtime.logger.warn(
        { src: 'plugin:self-improve:metrics', agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) },
        'the metrics rollup stopped following the outcomes; it goes on with the next write or metrics read',
      );
    }
  }

  /** Rolls up what is waiting when that is at most `READ_CATCH_UP_MAX` outcomes; returns the seq the rollup then holds and what is still waiting. */
  private async catchUp(): Promise<{ doneSeq: number; pending: number }> {
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

  async report(options: { asOfMs: number; k: number; slices: number }): Promise<ScanMetricsReport & RollupLag> {
    const { pending } = await this.catchUp();
    return { ...(await rollupMetrics(this.db, this.runtime.agentId, options)), pending_outcomes: pending };
  }

  async weekly(options: WeeklyTriageOptions): Promise<WeeklyTriageReport & RollupLag> {
    const { doneSeq, pending } = await this.catchUp();
    return { ...(await rollupWeekly(this.db, this.runtime.agentId, { ...options, throughSeq: doneSeq })), pending_outcomes: pending };
  }
}
