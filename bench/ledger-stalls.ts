import '../src/cli/quiet';
import type { AgentRuntime, Route, RouteRequest } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { type BootedRuntime, bootRuntime } from '../src/cli/boot';
import { ingestText } from '../src/shared/ingest-text';
import { parseRowsText } from '../src/shared/jsonl';
import { checkOutcomeRows } from '../src/scan/model/outcome';
import { toStoredOutcome } from '../src/scan/outcome-store';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { outcomeLedgerEntry } from '../src/ledger/model/entries';
import { checkEntry, type LedgerTransaction, nextTransaction } from '../src/ledger/model/chain';
import { rewardLedgerOf } from '../src/ledger/reward-ledger-service';
import { recordingResponse } from '../__tests__/helpers/route-response';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, percentile, report, round, StatementTimer, timeMs, withStallMeter, withTempDir } from './lib';

/**
 * Where the event loop stalls in the ledger's work, and what the first ledger read after many
 * appends costs (issue 16). Grows one PGlite database to `outcomes` (default 100,000) through the
 * JSONL ingest, 10,000 rows at a time as bench/scale.ts does (no learning pass), and prints:
 * - `ingest`: the longest stall, and the longest single PGlite statement (PGlite runs each one
 *   synchronously on the main thread) with its SQL, beside the JS pieces of one 2,000-row batch
 *   (JSON parsing, validation, the HMAC chain) timed on their own;
 * - `reads`: the first `/ledger/score` call after the ingest, then p50/p99 of 30 calls of
 *   `/ledger/score`, `/ledger/categories` and `/ledger/metrics`;
 * - `reconcile`: incremental then full reconciliation, time and longest stall and statement;
 * - `restart`: the first `/ledger/score` of a new runtime on the database.
 *
 *   bun run bench/ledger-stalls.ts [outcomes]
 */
const OUTCOMES = Number(process.argv[2] ?? 100_000);
const CHUNK = 10_000;
const BATCH = 2_000;
const SETTINGS = { SELF_IMPROVE_LEDGER_SECRET: 'scale-benchmark-ledger-secret-0123456789' };

function chunkRows(chunk: number) {
  return generateOutcomes(CHUNK, 1_000 + chunk).map((r, i) => ({ ...r, finding_key: `c${chunk}-${r.finding_key}`, project: `${r.project}-${Math.floor((chunk * CHUNK + i) / 200)}` }));
}

async function route(runtime: AgentRuntime, path: string): Promise<void> {
  const found = (selfImprovePlugin.routes ?? []).find((r: Route) => r.type === 'GET' && r.path === path);
  const { res, sent } = recordingResponse();
  await found?.handler?.({ method: 'GET', path, url: path, query: {}, params: {}, headers: {} } as unknown as RouteRequest, res, runtime);
  if (sent.status !== 200) throw new Error(`GET ${path} answered ${sent.status}`);
}

async function p50p99(runtime: AgentRuntime, path: string, calls = 30): Promise<{ p50_ms: number; p99_ms: number }> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) times.push((await timeMs(() => route(runtime, path))).ms);
  return { p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) };
}

/** The JS pieces of one ingest batch of BATCH rows, each timed alone (no database). */
function batchPieces(): Record<string, number> {
  const rows = chunkRows(999).slice(0, BATCH);
  const text = rows.map((r) => JSON.stringify(r)).join('\n');
  const parsed = parseRowsText(text).values.map((v) => v.value);
  const start = performance.now();
  const checked = checkOutcomeRows(parsed);
  const validateMs = performance.now() - start;
  const stored = checked.valid.map(({ row }) => toStoredOutcome('00000000-0000-0000-0000-000000000001', row));
  const entries = stored.flatMap((o) => {
    const entry = outcomeLedgerEntry({ id: o.id, label: o.row.label, reward: o.reward, findingKey: o.row.finding_key });
    return entry ? [entry] : [];
  });
  const chainStart = performance.now();
  let tip: LedgerTransaction | null = null;
  const at = new Date().toISOString();
  for (const entry of entries) {
    const check = checkEntry(entry, new Set([entry.category]));
    if (check.ok) tip = nextTransaction(tip, check.entry, at, SETTINGS.SELF_IMPROVE_LEDGER_SECRET);
  }
  const chainMs = performance.now() - chainStart;
  const parseStart = performance.now();
  parseRowsText(text);
  return { rows: BATCH, parse_ms: round(performance.now() - parseStart, 1), validate_ms: round(validateMs, 1), chain_hmac_ms: round(chainMs, 1), entries: entries.length };
}

routeConsoleToStderr();
const timer = new StatementTimer();
await withTempDir('self-improve-bench-ledger-stalls-', async (dataDir) => {
  let booted: BootedRuntime = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: SETTINGS });
  try {
    timer.install();
    const service = await scanOutcomeServiceOf(booted.runtime);
    const ledger = await rewardLedgerOf(booted.runtime);
    report({ bench: 'ledger-stalls', phase: 'batch-pieces', ...batchPieces() });
    timer.take();
    const ingest = await withStallMeter(async (untimed) => {
      for (let chunk = 0; chunk < OUTCOMES / CHUNK; chunk++) {
        const text = untimed(() => chunkRows(chunk).map((r) => JSON.stringify(r)).join('\n'));
        await ingestText(service, text);
        if (chunk % 10 === 9) note(`ingested ${(chunk + 1) * CHUNK}/${OUTCOMES}`);
      }
    });
    report({ bench: 'ledger-stalls', phase: 'ingest', outcomes: OUTCOMES, rows_per_s: Math.round(OUTCOMES / (ingest.ms / 1000)), stall_ms: ingest.stall_ms, ...timer.take() });

    const first = await withStallMeter(() => route(booted.runtime, '/ledger/score'));
    const reads = { score: await p50p99(booted.runtime, '/ledger/score'), categories: await p50p99(booted.runtime, '/ledger/categories'), metrics: await p50p99(booted.runtime, '/ledger/metrics') };
    report({ bench: 'ledger-stalls', phase: 'reads', first_score_ms: round(first.ms, 1), first_score_stall_ms: first.stall_ms, ...reads, ...timer.take() });

    for (const mode of ['incremental', 'full'] as const) {
      const run = await withStallMeter(() => ledger.reconcile(mode));
      report({ bench: 'ledger-stalls', phase: `reconcile-${mode}`, s: round(run.ms / 1000, 2), stall_ms: run.stall_ms, ok: run.value.ok, ranges_compared: run.value.ranges_compared, ...timer.take() });
    }
    await booted.close();
    booted = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: SETTINGS });
    timer.install();
    await rewardLedgerOf(booted.runtime);
    const afterRestart = await withStallMeter(() => route(booted.runtime, '/ledger/score'));
    report({ bench: 'ledger-stalls', phase: 'restart', first_score_ms: round(afterRestart.ms, 1), stall_ms: afterRestart.stall_ms, score: await p50p99(booted.runtime, '/ledger/score'), ...timer.take() });
  } finally {
    await booted.close();
  }
});
