const noValue = (): undefined => undefined;

/**
 * Runs async jobs one at a time, in the order they were queued: a job starts only when every job
 * queued before it has finished. A job that fails rejects its own promise and nothing else; the
 * next job runs as if it had succeeded.
 */
export class SerialQueue {
  /** The last job queued, settled either way: what the next job waits for. */
  private tail: Promise<unknown> = Promise.resolve();
  private unfinished = 0;

  /** Queues `job`; resolves or rejects with its result once it has run. */
  run<T>(job: () => T | Promise<T>): Promise<T> {
    this.unfinished++;
    const result = this.tail.then(() => job());
    // Settled to undefined, not to the job's value: the tail is kept until the next job, and holding
    // the last result (the ELO report's copy of 5,000 log entries) would keep it alive for nothing.
    this.tail = result.then(noValue, noValue).finally(() => {
      this.unfinished--;
    });
    return result;
  }

  /** Whether a job is waiting or running. */
  get busy(): boolean {
    return this.unfinished > 0;
  }

  /**
   * Resolves once no job is waiting or running, including jobs queued while it waits. Never
   * rejects: how the jobs ended is for their callers.
   */
  async idle(): Promise<void> {
    let tail: Promise<unknown>;
    do {
      tail = this.tail;
      await tail;
    } while (tail !== this.tail);
  }
}
