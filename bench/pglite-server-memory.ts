import { Client } from 'pg';
import { startPgliteServerProcess } from '../__tests__/helpers/pglite-server-process';
import { note, processMemoryMb, ratioOf, report } from './lib';

/**
 * `self-improve pglite-server`'s memory as requests go by (the built package under Node, as a user
 * runs it: `npm run build` first). One client asks ROUNDS times for ROWS rows of 100 characters
 * and the server process's resident memory is read after each stage. A server that keeps
 * something of every answer grows with the requests (PGlite 0.3 keeps every parsed answer message
 * until execProtocol empties its list: 4 GB of heap, and the server's end, in a 1M bench run); one
 * that does not stays flat once PGlite's own memory has grown to its high-water mark.
 *
 *   bun run bench/pglite-server-memory.ts [requests per stage, default 5000]
 */
const PER_STAGE = Number(process.argv[2] ?? 5_000);
const STAGES = 5;
const ROWS = 200;

const server = await startPgliteServerProcess('memory://');
const client = new Client({ connectionString: server.url });
await client.connect();
const stages: { requests: number; server_rss_mb: number | null }[] = [];
try {
  for (let stage = 1; stage <= STAGES; stage++) {
    for (let i = 0; i < PER_STAGE; i++) {
      const { rows } = await client.query(`SELECT g, repeat('x', 100) AS text FROM generate_series(1, ${ROWS}) g WHERE g > $1::int`, [i % 2]);
      if (rows.length < ROWS - 2) throw new Error(`request ${i}: ${rows.length} rows`);
    }
    stages.push({ requests: stage * PER_STAGE, server_rss_mb: processMemoryMb(server.pid, 'VmRSS') });
    note(`${stage * PER_STAGE} requests: server RSS ${stages.at(-1)?.server_rss_mb} MB`);
  }
} finally {
  await client.end();
  await server.stop();
}
/** A stage's figures; a memory figure missing (no /proc) fails the bench rather than reporting a guess. */
const measured = (stage: (typeof stages)[number] | undefined) => {
  if (stage?.server_rss_mb == null) throw new Error("the server's resident memory could not be read (/proc)");
  return { requests: stage.requests, server_rss_mb: stage.server_rss_mb };
};
const first = measured(stages[0]);
const last = measured(stages.at(-1));
report({
  bench: 'pglite-server-memory',
  rows_per_request: ROWS,
  stages,
  // Resident memory after the last stage over the first: about 1 when nothing is kept per request.
  rss_ratio_last_to_first: ratioOf(last.server_rss_mb, first.server_rss_mb),
  mb_per_1000_requests_after_the_first_stage: Math.round(((last.server_rss_mb - first.server_rss_mb) / ((last.requests - first.requests) / 1000)) * 100) / 100,
});
