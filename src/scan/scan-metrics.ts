import type { IAgentRuntime } from '@elizaos/core';
import { computeScanMetrics, type ScanMetricsReport } from './model/metrics';
import { weeklyTriage, type WeeklyTriageOptions, type WeeklyTriageReport } from './model/weekly-triage';
import type { FindingStore } from './finding-store';
import { MetricRollup } from './metric-rollup-store';
import { rollupMetrics, rollupWeekly } from './metric-rollup-read';
import type { OutcomeStore } from './outcome-store';
import type { Db } from '../shared/sql';

/**
 * The scan metrics of one agent: read from the metrics rollup (`MetricRollup`), whose cost does
 * not grow with the outcomes stored. Outcomes stored before the rollup existed are rolled up in
 * the background, in chunks (`fill`); until that is done the figures are computed from every
 * outcome row, as `computeScanMetrics` and `weeklyTriage` define them.
 */
export class ScanMetrics {
  readonly rollup: MetricRollup;
  private filled: Promise<void> = Promise.resolve();
  private stopping = false;

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly db: Db,
  ) {
    this.rollup = new MetricRollup(db, runtime.agentId);
  }

  /** Starts the rollup (once per agent) and its background fill of earlier outcomes. */
  async start(): Promise<void> {
    await this.rollup.ensureStarted();
    this.filled = this.fill();
  }

  /** One chunk per transaction, so an ingest waits for one chunk at most. A failure is logged; a later start goes on. */
  private async fill(): Promise<void> {
    try {
      while (!this.stopping && (await this.rollup.backfillStep())) {
        // next chunk
      }
    } catch (error) {
      this.runtime.logger.warn(
        { src: 'plugin:self-improve:metrics', agentId: this.runtime.agentId, error: error instanceof Error ? error.message : String(error) },
        'the metrics rollup of earlier outcomes stopped; metrics read every outcome until a later start completes it',
      );
    }
  }

  /** Resolves once the background fill has stopped (done, failed or stopped). */
  fillStopped(): Promise<void> {
    return this.filled;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.filled;
  }

  async report(outcomes: OutcomeStore, findings: FindingStore, options: { asOfMs: number; k: number }): Promise<ScanMetricsReport> {
    if (await this.rollup.complete()) return rollupMetrics(this.db, this.runtime.agentId, options.asOfMs, options.k);
    const [rows, firstSeen] = await Promise.all([outcomes.forMetrics(), findings.firstSeen()]);
    return computeScanMetrics(rows, firstSeen, options);
  }

  async weekly(outcomes: OutcomeStore, options: WeeklyTriageOptions): Promise<WeeklyTriageReport> {
    if (await this.rollup.complete()) return rollupWeekly(this.db, this.runtime.agentId, options);
    return weeklyTriage(await outcomes.forMetrics(), options);
  }
}
