import { openSync, readSync } from 'node:fs';

/**
 * Where a stretch of wall time went, from Linux's counters, for the stall meter's log
 * (`BENCH_STALL_LOG_MS`): a stall of the event loop is the main thread running (JavaScript, a
 * statement, the collector working on it), the main thread runnable but not given a CPU (other
 * threads or processes of this machine), the whole virtual machine not run by its host (steal), or
 * the main thread blocked (a read from disk, a wait on the collector's threads).
 */
export interface ProcSample {
  /** The main thread's time on a CPU and waiting on a run queue (/proc/self/schedstat), ms. */
  ranMs: number;
  waitedMs: number;
  /** The main thread's time in user and kernel mode (10 ms ticks), and its minor page faults (/proc/thread-self/stat). */
  userMs: number;
  kernelMs: number;
  minorFaults: number;
  /** Every thread of the process on a CPU (user + system), ms. */
  cpuMs: number;
  /** The machine's CPU time stolen by the host and idle waiting on I/O, summed over its CPUs (/proc/stat), ms. */
  stealMs: number;
  iowaitMs: number;
  /** Bytes the process caused to be read from storage (/proc/self/io). */
  readBytes: number;
}

/** Milliseconds per clock tick of /proc/stat and /proc/thread-self/stat (USER_HZ is 100 on every Linux this runs on). */
const TICK_MS = 10;
const buffer = Buffer.alloc(4096);
const files = new Map<string, number | null>();

/** The file's text, read again from its start through a descriptor kept open (for the process's life); null where it is not there. */
function readProc(path: string): string | null {
  let fd = files.get(path);
  if (fd === undefined) {
    try {
      fd = openSync(path, 'r');
    } catch {
      fd = null;
    }
    files.set(path, fd);
  }
  if (fd === null) return null;
  const n = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.toString('latin1', 0, n);
}

/** The counters now; null off Linux. */
export function procSample(): ProcSample | null {
  const sched = readProc('/proc/self/schedstat');
  const stat = readProc('/proc/stat');
  const io = readProc('/proc/self/io');
  // Read on the main thread (the stall meter's timer runs there), so thread-self is the main thread.
  const thread = readProc('/proc/thread-self/stat');
  if (sched === null || stat === null || io === null || thread === null) return null;
  const [ran, waited] = sched.split(' ').map(Number);
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  const fields = thread.slice(thread.lastIndexOf(')') + 2).split(' ').map(Number);
  // cpu  user nice system idle iowait irq softirq steal ...
  const cpu = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  const usage = process.cpuUsage();
  return {
    ranMs: (ran ?? 0) / 1e6,
    waitedMs: (waited ?? 0) / 1e6,
    userMs: (fields[11] ?? 0) * TICK_MS,
    kernelMs: (fields[12] ?? 0) * TICK_MS,
    minorFaults: fields[7] ?? 0,
    cpuMs: (usage.user + usage.system) / 1000,
    stealMs: (cpu[7] ?? 0) * TICK_MS,
    iowaitMs: (cpu[4] ?? 0) * TICK_MS,
    readBytes: Number(/read_bytes:\s+(\d+)/.exec(io)?.[1] ?? 0),
  };
}

/** What the counters say of the time between two samples, as one line of text. */
export function describeSpan(from: ProcSample, to: ProcSample): string {
  const ms = (x: number) => Math.round(x * 10) / 10;
  return (
    `main thread ran ${ms(to.ranMs - from.ranMs)} ms (user ${ms(to.userMs - from.userMs)}, kernel ${ms(to.kernelMs - from.kernelMs)}, ` +
    `${to.minorFaults - from.minorFaults} page faults), waited for a CPU ${ms(to.waitedMs - from.waitedMs)} ms; ` +
    `process CPU ${ms(to.cpuMs - from.cpuMs)} ms; machine steal ${ms(to.stealMs - from.stealMs)} ms, ` +
    `iowait ${ms(to.iowaitMs - from.iowaitMs)} ms; read from storage ${((to.readBytes - from.readBytes) / 1_048_576).toFixed(1)} MB`
  );
}
