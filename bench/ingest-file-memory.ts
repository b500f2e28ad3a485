import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateOutcomes } from '../examples/generate-outcomes';
import { note, round } from './lib';

/**
 * The memory of `self-improve ingest FILE` and `self-improve events ingest FILE` by the size of
 * the file: `bun run bench/ingest-file-memory.ts [rows]` (default 20,000; builds the package when
 * `dist/` is missing) writes the example generator's rows to JSONL files of that many rows and of
 * ten times as many, and ingests each into a new database with the package's command
 * (`bin/self-improve.js`, on Node) and with the source on Bun (`npm run self-improve`); then the
 * larger rows as one JSON array, which is read whole, with the package's command; then seed 003
 * events, the same two counts, in eight lessons (so each lesson gathers a tenth of the larger file),
 * with the package's command. It prints each run's peak RSS (the command's VmHWM, read every 20 ms
 * while it runs: a peak in its last 20 ms would be missed), rate and file size, and the ratios of
 * the larger file to the smaller, measured in this run: JSONL is read a megabyte at a time with one
 * batch of rows held, so its peak should not grow with the file, and an event costs the same
 * however many its lesson already has, so the rate should not fall.
 */
const SMALL = Number(process.argv[2] ?? 20_000);
const ROOT = path.join(import.meta.dir, '..');
const COMMANDS = {
  node: ['node', path.join(ROOT, 'bin', 'self-improve.js')],
  bun: [process.execPath, 'run', path.join(ROOT, 'src', 'cli', 'main.ts')],
};

/** A process's peak resident set so far (VmHWM), in kB; null once it has exited. */
function highWaterKb(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb);
  } catch {
    return null;
  }
}

async function ingestPeak(dir: string, file: string, rows: number, on: keyof typeof COMMANDS, command: readonly string[] = ['ingest']): Promise<Record<string, unknown>> {
  note(`${command.join(' ')} ${path.basename(file)} on ${on}`);
  const started = performance.now();
  const proc = Bun.spawn([...COMMANDS[on], ...command, file, '--db', path.join(dir, `db-${on}-${path.basename(file)}`), '--json'], { stdout: 'pipe', stderr: 'ignore' });
  // The command's own high-water mark, read while it runs: the operating system's figure for a
  // child (its maxRSS) starts from this process's size when it was forked.
  let peakKb = 0;
  const watch = setInterval(() => {
    peakKb = Math.max(peakKb, highWaterKb(proc.pid) ?? 0);
  }, 20);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearInterval(watch);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`ingest ${file} on ${on} exited with ${code}`);
  const doc = JSON.parse(out) as { accepted: number };
  if (doc.accepted !== rows) throw new Error(`ingest ${file} on ${on}: ${doc.accepted} of ${rows} rows accepted`);
  if (peakKb === 0) throw new Error(`no high-water mark read for the ingest on ${on} (this bench reads /proc)`);
  const result = { command: command.join(' '), file: path.basename(file), on, rows, file_mb: round((await stat(file)).size / 1_048_576, 1), peak_rss_mb: Math.round(peakKb / 1024), rows_per_s: Math.round(rows / seconds) };
  process.stdout.write(`${JSON.stringify({ bench: 'ingest-file-memory-run', ...result })}\n`);
  return result;
}

/** Seed 003 events of eight kinds, a minute apart: eight lessons, each a kind. */
function eventLines(n: number): string[] {
  const kinds = ['merge', 'deploy', 'lint', 'cache', 'auth', 'shell', 'config', 'tests'];
  const t0 = Date.parse('2026-01-05T00:00:00Z');
  return Array.from({ length: n }, (_, i) => {
    const kind = kinds[i % kinds.length] as string;
    return JSON.stringify({ ts: new Date(t0 + i * 60_000).toISOString(), type: i % 3 === 0 ? 'mistake' : 'debug_session', category: kind, tags: [kind], problem: `the ${kind} step failed on run ${i % 5}`, solution: `check the ${kind} step before pushing` });
  });
}

if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  note('building the package (dist/ is missing)');
  if ((await Bun.spawn([process.execPath, 'run', path.join(ROOT, 'build.ts')], { cwd: ROOT, stdout: 'ignore', stderr: 'inherit' }).exited) !== 0) throw new Error('the build failed');
}
const dir = await mkdtemp(path.join(tmpdir(), 'self-improve-bench-ingest-file-'));
try {
  const lines = (n: number) => generateOutcomes(n, 7).map((r) => JSON.stringify(r));
  const files = { small: path.join(dir, 'small.jsonl'), large: path.join(dir, 'large.jsonl'), array: path.join(dir, 'large.json') };
  await writeFile(files.small, lines(SMALL).join('\n'));
  await writeFile(files.large, lines(SMALL * 10).join('\n'));
  await writeFile(files.array, `[${lines(SMALL * 10).join(',\n')}]`);
  const peaks = { node_small: 0, node_large: 0, bun_small: 0, bun_large: 0 };
  for (const on of ['node', 'bun'] as const) {
    for (const size of ['small', 'large'] as const) peaks[`${on}_${size}` as const] = Number((await ingestPeak(dir, files[size], size === 'small' ? SMALL : SMALL * 10, on)).peak_rss_mb);
  }
  const array = Number((await ingestPeak(dir, files.array, SMALL * 10, 'node')).peak_rss_mb);
  const eventFiles = { small: path.join(dir, 'events-small.jsonl'), large: path.join(dir, 'events-large.jsonl') };
  await writeFile(eventFiles.small, eventLines(SMALL).join('\n'));
  await writeFile(eventFiles.large, eventLines(SMALL * 10).join('\n'));
  const events = { small: await ingestPeak(dir, eventFiles.small, SMALL, 'node', ['events', 'ingest']), large: await ingestPeak(dir, eventFiles.large, SMALL * 10, 'node', ['events', 'ingest']) };
  process.stdout.write(
    `${JSON.stringify({
      bench: 'ingest-file-memory',
      rows: [SMALL, SMALL * 10],
      peak_rss_mb: peaks,
      // Ten times the rows: near 1 when the peak does not grow with the file.
      peak_ratio_10x_rows: { node: round(peaks.node_large / peaks.node_small, 2), bun: round(peaks.bun_large / peaks.bun_small, 2) },
      array_on_node_peak_rss_mb: array,
      array_to_jsonl_on_node: round(array / peaks.node_large, 2),
      events_on_node: {
        peak_rss_mb: [events.small.peak_rss_mb, events.large.peak_rss_mb],
        rows_per_s: [events.small.rows_per_s, events.large.rows_per_s],
        peak_ratio_10x_rows: round(Number(events.large.peak_rss_mb) / Number(events.small.peak_rss_mb), 2),
        // Near 1 when an event costs the same whatever its lesson holds (the start-up weighs more in the smaller run).
        rate_ratio_10x_rows: round(Number(events.large.rows_per_s) / Number(events.small.rows_per_s), 2),
      },
    })}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
