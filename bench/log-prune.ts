import '../src/cli/quiet';
import { sql } from 'drizzle-orm';
import { routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { dbOf, queryRows } from '../src/shared/sql';
import { eloLog } from '../src/elo/tables';
import { pruneToNewest } from '../src/shared/log-retention';
import { report, round, timeMs, watchPgliteStatementEnds, withTempDir } from './lib';

/**
 * Log retention at size (`pruneToNewest`): for each `keep` given (default 100,000 and 1,000,000),
 * a PGlite database with 110% of it in the ELO update log, pruned to `keep`. Prints per size the
 * prune's time, its statements and its longest statement (each runs on the main thread: the
 * longest is the prune's longest stall), beside one statement that only finds the cut the way a
 * single-statement prune did (`ORDER BY seq DESC OFFSET keep LIMIT 1`), measured in the same run.
 *
 *   bun run bench/log-prune.ts [keep...]
 */
routeConsoleToStderr();
const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100_000, 1_000_000];
for (const keep of sizes) {
  await withTempDir('self-improve-bench-prune-', async (dataDir) => {
    const { runtime, close } = await bootRuntime({ dataDir, plugins: [selfImprovePlugin], settings: {} });
    try {
      const db = dbOf(runtime);
      const rows = Math.round(keep * 1.1);
      for (let done = 0; done < rows; done += 50_000) {
        await db.execute(sql`INSERT INTO ${eloLog} (agent_id, entry) SELECT ${runtime.agentId}::uuid, jsonb_build_object('i', g, 'text', repeat('x', 100)) FROM generate_series(1, ${Math.min(50_000, rows - done)}) g`);
      }
      const oneStatementCut = await timeMs(() => queryRows(db, sql`SELECT seq FROM ${eloLog} WHERE agent_id = ${runtime.agentId}::uuid ORDER BY seq DESC OFFSET ${keep} LIMIT 1`));
      let statements = 0;
      let longest = { ms: 0, sql: '' };
      watchPgliteStatementEnds((ms, text) => {
        statements++;
        if (ms > longest.ms) longest = { ms, sql: text.slice(0, 100) };
      });
      const prune = await timeMs(() => pruneToNewest(db, eloLog, runtime.agentId, keep));
      report({
        bench: 'log-prune',
        keep,
        rows,
        deleted: prune.value,
        prune_ms: round(prune.ms, 1),
        // Statements of the whole process meanwhile, the services' background work included.
        statements,
        longest_statement_ms: round(longest.ms, 1),
        longest_statement: longest.sql,
        one_statement_cut_ms: round(oneStatementCut.ms, 1),
        longest_statement_vs_one_statement_cut: round(longest.ms / oneStatementCut.ms, 3),
      });
    } finally {
      await close();
    }
  });
}
