import type { IAgentRuntime } from '@elizaos/core';
import { LearningLease } from './learning-lease';
import type { LearnProgress, LearnReport, ScanLearner } from './scan-learner';
import type { ScanLessonStore } from './scan-lesson-store';
import { SerialQueue } from '../shared/serial-queue';
import type { Db } from '../shared/sql';
import { errorText } from '../shared/error-text';
import { inTurns } from '../shared/event-loop';

const LOG_SRC = 'plugin:self-improve:outcomes';

/**
 * Runs the learning passes of one agent: one at a time in this process (a queue) and across
 * processes (the learning lease), never before the stored scan lessons are in the index (they are
 * read in the background after start, so start-up never waits for an embedding model), and after
 * reading the lessons another process wrote since this one last learned.
 */
export class LearningPasses {
  private readonly passes = new SerialQueue();
  private readonly lease: LearningLease;
  /** Passes finished on this agent (by any process) as of this process's last pass; null before it. */
  private passesSeen: number | null = null;
  private backgroundPassWaiting = false;
  private loading: Promise<boolean>;

  constructor(
    private readonly runtime: IAgentRuntime,
    db: Db,
    private readonly learner: ScanLearner,
    private readonly scanLessons: ScanLessonStore,
  ) {
    this.lease = new LearningLease(db, runtime.agentId);
    this.loading = inTurns(() => this.loadScanLessons());
  }

  /** One pass over what is pending as of `asOfMs`; `learned` runs inside it with its report. */
  run(asOfMs: number, onProgress: LearnProgress | undefined, learned: (report: LearnReport) => void): Promise<LearnReport> {
    return this.passes.run(async () => {
      await this.lessonsLoaded();
      const finished = await this.lease.acquire();
      try {
        if (this.passesSeen !== null && finished !== this.passesSeen) await this.scanLessons.load();
        const report = await this.learner.learnPending(asOfMs, onProgress);
        learned(report);
        return report;
      } finally {
        this.passesSeen = await this.lease.release();
      }
    });
  }

  /** Starts `pass` when the passes ahead of it are done, without waiting; one waiting pass covers every request. */
  inBackground(pass: () => Promise<unknown>): void {
    if (this.backgroundPassWaiting) return;
    this.backgroundPassWaiting = true;
    void this.passes
      .run(async () => {
        this.backgroundPassWaiting = false;
      })
      .then(pass)
      .catch((error: unknown) => {
        this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, error: errorText(error) }, 'learning pass failed; outcomes stay pending for the next pass');
      });
  }

  /** Whether a learning pass is running or waiting. */
  get busy(): boolean {
    return this.passes.busy;
  }

  /** Resolves once no pass is running or waiting, and the lessons are loaded (or failed to). */
  async idle(): Promise<void> {
    await this.loading;
    await this.passes.idle();
  }

  /** Resolves once every stored scan lesson is in the index (reading them again if the last try failed); throws when they cannot be read. */
  async lessonsLoaded(): Promise<void> {
    if (await this.loading) return;
    this.loading = this.loadScanLessons();
    if (!(await this.loading)) throw new Error('scan lessons could not be loaded (see the log); outcomes stay pending');
  }

  private loadScanLessons(): Promise<boolean> {
    return this.scanLessons.load().then(
      () => true,
      (error: unknown) => {
        this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, error: errorText(error) }, 'scan lessons could not be loaded; learning waits until they are');
        return false;
      },
    );
  }
}
