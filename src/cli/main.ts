import './quiet';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParsedArgs, parseArgs } from './args';
import { eloCommand } from '../elo/surfaces/elo-commands';
import { ledgerCommand } from '../ledger/surfaces/ledger-commands';
import { eventsCommand, rulesCommand } from '../rules/surfaces/rule-commands';
import { ingestCommand, learnCommand, scanLessonsCommand } from '../scan/surfaces/outcome-commands';
import { printResult, routeConsoleToStderr } from './output';
import { type Command, DEFAULT_DB_DIR } from './session';
import { trajectoriesCommand } from '../trajectories/surfaces/trajectory-commands';
import { metricsCommand, replayCommand, triageCommand } from '../scan/surfaces/triage-commands';
import { errorText } from '../shared/error-text';
import { pgliteServerCommand } from '../pglite-server/pglite-server-command';

export { type CommandResult, DEFAULT_DB_DIR } from './session';

const USAGE = `self-improve <command> [options]

Commands
  ingest FILE         store outcome rows (JSONL or a JSON array) or a SARIF 2.1.0 log (.sarif)
  learn [--now ISO]   learn lessons from outcomes pending as of that time (default: now)
  lessons             list the lessons learned, with their evidence
  triage FILE         the learned triage prior for each finding in FILE (JSONL; labels ignored)
  metrics             precision@k, false-positive rate, time to fix, calibration, drift, per slice
  replay FILE         forecast each outcome before ingesting it, in time order; scores vs a baseline
  trajectories score FILE...     score session logs or JSONL of steps (seed 004) and store them, redacted
  trajectories preview [FILE...] what would be accepted under the thresholds, with rewards
                                 (without FILE: the stored ones, --limit N newest first, --before C)
  trajectories export [--out F]  the accepted stored trajectories, redacted, as JSONL
  ledger verify | replay         check the reward ledger's chain and checksums (replay: rebuild totals)
  ledger verify --checkpoint F   ... and that the chain up to a signed checkpoint is the one signed
  ledger checkpoint [--out F]    a signed head checkpoint (needs SELF_IMPROVE_LEDGER_SECRET); keep it elsewhere
  ledger score | history         totals, categories, metrics; transactions (--limit N, --category C)
  ledger export --format progress.json [--out F]   the seed's progress.json
  elo stats [--k N] [--now ISO]  ELO tiers, histogram, top N items per kind (default 10, at most 100),
                                 convergence and the seed's success metrics
  elo log [--limit N]            the newest ELO updates (default 20)
  events ingest FILE             store seed 003 events (JSONL or a JSON array); lines that are not JSON
                                 go to the parse-error log
  events parse-errors [--limit N]  the newest parse errors (default 20)
  rules list [--category C] [--status S] [--all]  active rules (flagged ones marked); S: active, candidate,
                                 retired, rejected or all (--all); candidates wait for approval
  rules validate ID | retire ID  confirm a rule (confidence back to 0.9) or take it out of use
  rules approve ID | reject ID   make a candidate active, or turn it down (the CLI is the operator)
  rules export [--category C] [--out F]  the seed's rules export, signed with SELF_IMPROVE_RULE_SIGNING_KEY
  rules import FILE              verify an export (hashes, manifest, signature), add its rules under new
                                 ids, skip duplicates; not signed by a trusted key: they come as candidates
  rules metrics [--now ISO]      the seed's weekly metrics
  rules guard-log [--limit N]    the newest action-audit entries (default 20)
  pglite-server [--port N]       serve the --db directory to agents and commands over POSTGRES_URL, PGlite in
                                 a process of its own (127.0.0.1, default port 5433; 0 picks one) until Ctrl-C

Options
  --db DIR            PGlite directory (default ${DEFAULT_DB_DIR}); POSTGRES_URL wins when set.
                      replay uses a fresh temporary database unless --db is given
  --json              print exactly one JSON document on stdout (logs go to stderr)
  --now ISO           the current time for learn, metrics, elo stats and rules, and the time of SARIF
                      results whose log names none
  --k N               metrics: the k of precision@k (default SELF_IMPROVE_METRICS_K);
                      elo stats: top items per kind
  --project NAME, --model-provider NAME, --model-name NAME
                      ingest of SARIF: values for results whose log does not name them
  --help              this text

Exit codes: 0 ok, 1 error (also: a rules import refused as tampered or with a bad signature), 2 some rows were rejected (the good
ones are kept).`;

const COMMANDS: Record<string, Command> = {
  ingest: ingestCommand,
  learn: learnCommand,
  lessons: scanLessonsCommand,
  triage: triageCommand,
  metrics: metricsCommand,
  replay: replayCommand,
  trajectories: trajectoriesCommand,
  ledger: ledgerCommand,
  elo: eloCommand,
  events: eventsCommand,
  rules: rulesCommand,
  'pglite-server': pgliteServerCommand,
};

export async function runCli(argv: readonly string[]): Promise<number> {
  routeConsoleToStderr();
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 1;
  }
  const json = args.flags.has('json');
  if (args.flags.has('help') || !args.command) {
    process.stderr.write(`${USAGE}\n`);
    return args.command || args.flags.has('help') ? 0 : 1;
  }
  const command = COMMANDS[args.command];
  if (!command) {
    process.stderr.write(`unknown command ${JSON.stringify(args.command)}; one of ${Object.keys(COMMANDS).join(', ')}\n\n${USAGE}\n`);
    return 1;
  }
  try {
    const result = await command(args);
    if (!result.printed) printResult(json ? JSON.stringify(result.json) : result.text);
    return result.exitCode;
  } catch (error) {
    const message = errorText(error);
    if (json) printResult(JSON.stringify({ error: message }));
    process.stderr.write(`self-improve ${args.command}: ${message}\n`);
    return 1;
  }
}

/**
 * True when this file is the program (`bun run src/cli/main.ts`, `node dist/cli/main.js`), false when
 * it is imported (the `self-improve` bin, tests). Not `import.meta.main`: Node 20 lacks it, and Bun.build
 * rewrites it into a check that holds for every ES module under Node.
 */
function isProgramEntry(): boolean {
  const program = process.argv[1];
  if (program === undefined || !existsSync(program)) return false;
  return realpathSync(path.resolve(program)) === realpathSync(fileURLToPath(import.meta.url));
}

if (isProgramEntry()) {
  process.exit(await runCli(process.argv.slice(2)));
}
