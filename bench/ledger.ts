import '../src/cli/quiet';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { rewardLedgerOf } from '../src/ledger/reward-ledger-service';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';
import { makeRows } from '../__tests__/helpers/rows';
import { note, report, round } from './lib';

/**
 * Reward ledger throughput into PGlite: appends per second when callers append concurrently (group
 * commit) and when each caller waits for its append before the next (one transaction each), and
 * the time to verify a 100k-transaction ledger. Goals: at least 2,000 appends/s; verify 100k < 2 s.
 */
const CONCURRENT = Number(process.argv[2] ?? 10_000);
const SEQUENTIAL = 500;
const VERIFY_SIZE = 100_000;

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin] });
try {
  const service = await scanOutcomeServiceOf(runtime);
  const ledger = await rewardLedgerOf(runtime);
  const [outcome] = (await service.ingest(makeRows({ n: 1, labels: ['fixed'], keyPrefix: 'bench-ledger' }))).outcomes;
  const entry = (i: number) => ({ type: 'reward', category: 'finding_fixed', points: 1 + (i % 7), action: `bench ${i}`, source: 'scan_outcome', source_ref: outcome?.id });

  let start = performance.now();
  const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => ledger.append(entry(i))));
  const concurrentS = (performance.now() - start) / 1000;
  if (!results.every((r) => r.ok)) throw new Error('an append was refused');

  start = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) await ledger.append(entry(i));
  const sequentialS = (performance.now() - start) / 1000;

  note(`growing the ledger to ${VERIFY_SIZE} transactions`);
  const have = CONCURRENT + SEQUENTIAL + 1;
  for (let done = have; done < VERIFY_SIZE; done += 10_000) {
    await ledger.appendMany(Array.from({ length: Math.min(10_000, VERIFY_SIZE - done) }, (_, i) => entry(i)));
  }
  start = performance.now();
  const verification = await ledger.verify();
  const verifyS = (performance.now() - start) / 1000;
  if (!verification.ok) throw new Error(`verification failed: ${JSON.stringify(verification.first)}`);

  const concurrentRate = CONCURRENT / concurrentS;
  report({
    bench: 'reward-ledger',
    concurrent_appends: CONCURRENT,
    concurrent_appends_per_s: round(concurrentRate, 0),
    sequential_appends: SEQUENTIAL,
    sequential_appends_per_s: round(SEQUENTIAL / sequentialS, 0),
    group_commit_speedup: round(concurrentRate / (SEQUENTIAL / sequentialS), 1),
    goal_appends_per_s: 2_000,
    goal_ratio: round(concurrentRate / 2_000, 2),
    verify_transactions: verification.count,
    verify_s: round(verifyS, 2),
    verify_goal_s: 2,
    verify_goal_ratio: round(2 / verifyS, 2),
  });
} finally {
  await close();
}
