import type { AgentRuntime, Memory } from '@elizaos/core';
import selfImprovePlugin from '../src/index';
import { chatMessage } from '../__tests__/helpers/runtime';
import { CALL_LOG_MS, countedSince, hintTotals, percentile, round, statementTotals } from './lib';
import { describeSpan, procSample } from './proc-sample';

/**
 * Calls of each provider a step times: its p99 is the 10th slowest. With 100 (until 33ded73) the
 * p99 was the second slowest, so one pause of a shared 2-core machine decided it; the slowest three
 * are reported either way (`slowest`).
 */
export const PROVIDER_CALLS = 1_000;

/** p50/p99 of the calls made, and the three slowest as [call number from 0, ms]: the first call is a cold one. */
export type Timing = { p50_ms: number; p99_ms: number; calls: number; slowest: [number, number][] };

/**
 * p50/p99 of `calls` calls; a call that takes over a second makes it 3 calls in all (a route that
 * reads everything at 1M would take minutes). With BENCH_CALL_LOG_MS set (`CALL_LOG_MS`), each
 * call is marked on stderr (`call <label> <i>` before it, `end <label> <i>` after it), so that
 * Bun's collections (`BUN_JSC_logGC=1`) can be placed inside or outside a call, and every call
 * longer than that many milliseconds is written out with the PGlite statements and collector
 * hints (`collectorHints`) that ran in it and where its time went by Linux's counters
 * (`slow <label> <i>: <ms> ms; …`); every hint is written where it falls (`hint <ms> ms`). The
 * counters are read outside the timed span.
 */
export async function timeCalls(label: string, calls: number, call: (i: number) => Promise<void>, untimedBefore?: (i: number) => Promise<void>): Promise<Timing> {
  const times: number[] = [];
  const logged = Number.isFinite(CALL_LOG_MS);
  for (let i = 0; i < calls; i++) {
    if (untimedBefore) await untimedBefore(i);
    const before = logged ? { proc: procSample(), statements: statementTotals(), hints: hintTotals() } : null;
    if (before) process.stderr.write(`call ${label} ${i}\n`);
    const start = performance.now();
    await call(i);
    const ms = performance.now() - start;
    times.push(ms);
    if (before) {
      process.stderr.write(`end ${label} ${i}\n`);
      if (ms > CALL_LOG_MS) {
        const proc = procSample();
        const statements = countedSince(before.statements, statementTotals());
        const hints = countedSince(before.hints, hintTotals());
        const where = before.proc && proc ? `; ${describeSpan(before.proc, proc)}` : '';
        process.stderr.write(`slow ${label} ${i}: ${round(ms, 2)} ms; ${statements.count} statements, ${round(statements.ms, 2)} ms; ${hints.count} collector hints, ${round(hints.ms, 2)} ms${where}\n`);
      }
    }
    if ((times[0] as number) > 1_000 && times.length >= 3) break;
    await turnBetweenMessages();
  }
  const slowest = times
    .map((ms, i): [number, number] => [i, round(ms, 2)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
  return { p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)), calls: times.length, slowest };
}

/**
 * Untimed: a turn of the event loop, as between two messages of a chat (a plain one: the plugin's
 * `yieldToEventLoop` would also hint the collector, which a chat between messages does not). Calls
 * that resolve through promise jobs alone never give Bun's collector a turn: 1,000 in a row grew an
 * agent process at 10k from 409 MB to 1,153 MB RSS (with the turns, to 778 MB).
 */
function turnBetweenMessages(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** p50/p99 of PROVIDER_CALLS calls of every provider of the plugin, each on its own chat message. */
export async function measureProviders(runtime: AgentRuntime): Promise<Record<string, Timing>> {
  const out: Record<string, Timing> = {};
  const messages: Memory[] = [];
  for (let i = 0; i < PROVIDER_CALLS; i++) {
    messages.push(await chatMessage(runtime, `semgrep found sql-injection in payments-api-${i} handler ${i}, is it a false positive?`));
    await turnBetweenMessages();
  }
  for (const provider of selfImprovePlugin.providers ?? []) {
    out[provider.name] = await timeCalls(provider.name, PROVIDER_CALLS, async (i) => {
      await provider.get(runtime, messages[i] as Memory, { values: {}, data: {}, text: '' });
    });
  }
  return out;
}

