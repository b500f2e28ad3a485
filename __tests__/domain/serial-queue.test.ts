import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { SerialQueue } from '../../src/shared/serial-queue';

/** A promise settled from outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SerialQueue', () => {
  test('a job starts only when the one queued before it has finished, in queue order', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const first = deferred();
    const a = queue.run(async () => {
      log.push('a starts');
      await first.promise;
      log.push('a ends');
      return 'A';
    });
    const b = queue.run(() => {
      log.push('b runs');
      return 'B';
    });
    await settle();
    expect(log).toEqual(['a starts']);
    first.resolve();
    expect(await Promise.all([a, b])).toEqual(['A', 'B']);
    expect(log).toEqual(['a starts', 'a ends', 'b runs']);
  });

  test('a failing job rejects its own promise only; the next job runs', async () => {
    const queue = new SerialQueue();
    const failing = queue.run(async () => {
      throw new Error('job failed');
    });
    const throwing = queue.run(() => {
      throw new Error('thrown at once');
    });
    const next = queue.run(() => 'still runs');
    await expect(failing).rejects.toThrow('job failed');
    await expect(throwing).rejects.toThrow('thrown at once');
    expect(await next).toBe('still runs');
  });

  test('idle waits for every job, also one queued while it waits, and never rejects', async () => {
    const queue = new SerialQueue();
    const gate = deferred();
    const done: string[] = [];
    const failed = queue.run(async () => {
      await gate.promise;
      done.push('first');
      throw new Error('the last job failed');
    });
    failed.catch(() => undefined);
    let idle = false;
    const waiting = queue.idle().then(() => {
      idle = true;
    });
    const later = queue.run(async () => {
      done.push('queued while idle() waited');
    });
    await settle();
    expect(idle).toBe(false);
    gate.resolve();
    await waiting;
    expect(done).toEqual(['first', 'queued while idle() waited']);
    await later;
  });

  test('property: whatever the jobs do (succeed or fail, after any number of turns), they never overlap and run in queue order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ fails: fc.boolean(), turns: fc.integer({ min: 0, max: 5 }) }), { maxLength: 20 }), async (jobs) => {
        const queue = new SerialQueue();
        const started: number[] = [];
        let running = 0;
        let overlapped = false;
        const results = jobs.map((job, i) =>
          queue
            .run(async () => {
              started.push(i);
              running++;
              if (running > 1) overlapped = true;
              for (let t = 0; t < job.turns; t++) await Promise.resolve();
              running--;
              if (job.fails) throw new Error(`job ${i}`);
              return i;
            })
            .then(
              (value) => ({ ok: true, value }),
              () => ({ ok: false, value: i }),
            ),
        );
        await queue.idle();
        expect(overlapped).toBe(false);
        expect(started).toEqual(jobs.map((_, i) => i));
        expect(await Promise.all(results)).toEqual(jobs.map((job, i) => ({ ok: !job.fails, value: i })));
      }),
    );
  });

  test('the queue keeps nothing of a finished job: what it waits on next settles to undefined, whether the job returned or threw', async () => {
    const queue = new SerialQueue();
    const tail = () => (queue as unknown as { tail: Promise<unknown> }).tail;
    expect(await queue.run(() => ({ big: 'result' }))).toEqual({ big: 'result' });
    expect(await tail()).toBeUndefined();
    await expect(queue.run(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await tail()).toBeUndefined();
  });
});
