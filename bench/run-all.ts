export {};

/**
 * Runs every benchmark in turn (never in parallel: they would compete for the same cores). Each
 * prints one JSON line per measurement on stdout; progress goes to stderr.
 */
const BENCHES: string[][] = [
  ['bench/ingest-learn.ts', '100000'],
  ['bench/dedupe.ts', '10000,100000'],
  ['bench/provider.ts', '10000'],
  ['bench/replay.ts', '3000'],
  ['bench/ledger.ts', '10000'],
  ['bench/elo.ts'],
  ['bench/elo-context.ts', '100000'],
  ['bench/top-rules.ts', '10000'],
  ['bench/relevance.ts'],
  ['bench/collector-hint.ts'],
  ['bench/lesson-memory.ts'],
  ['bench/wasm-extra-memory.ts'],
  ['bench/sql-garbage.ts', '500', '200'],
  ['bench/reply-while-learning.ts', '20000'],
  ['bench/ingest-file-memory.ts'],
  ['bench/pglite-server-memory.ts'],
];

for (const [file, ...args] of BENCHES) {
  const proc = Bun.spawn(['bun', 'run', file as string, ...args], { stdout: 'inherit', stderr: 'inherit' });
  const code = await proc.exited;
  if (code !== 0) {
    process.stderr.write(`[bench] ${file} exited with ${code}\n`);
    process.exit(code);
  }
}
