import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** One JSON line on stdout: the benchmark's result. */
export function report(result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function note(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
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

/** The longest delay of a 5 ms timer while `work` runs: how long the event loop was blocked at most. */
export async function withStallMeter<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; stall_ms: number }> {
  let expected = performance.now() + 5;
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    expected = now + 5;
  }, 5);
  try {
    const { ms, value } = await timeMs(work);
    // The time since the last tick counts too: work that never yields starves the timer entirely.
    worst = Math.max(worst, performance.now() - expected);
    return { value, ms, stall_ms: round(worst, 1) };
  } finally {
    clearInterval(timer);
  }
}
