import { appendFile, writeFile } from 'node:fs/promises';
import type { TrajectoryEvaluation } from '../model/evaluation';
import { type StoredTrajectory, type TrajectoryService, trajectoryServiceOf } from '../trajectory-service';
import { encodeCursor, type PageCursor } from '../model/page-cursor';
import { MAX_TRAJECTORIES_PAGE, trajectoryPageParams } from './trajectory-routes';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { type CommandResult, readTextFile, withService } from '../../cli/session';

const SUBCOMMANDS = ['score', 'preview', 'export'] as const;

const flagText = (args: ParsedArgs, name: string) => {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
};

function describeEvaluation(name: string, e: TrajectoryEvaluation): string {
  const q = e.quality;
  const verdict = e.accepted ? 'accepted' : `not accepted: ${e.reasons.join('; ')}`;
  return [
    `${name}: quality ${q.quality.toFixed(2)} (completeness ${q.completeness.toFixed(2)}, complexity ${q.complexity.toFixed(2)}, reward signal ${q.reward_signal.toFixed(2)})`,
    `  commits ${e.initial_commit ?? '-'} .. ${e.final_commit ?? '-'}, CI ${e.ci ?? 'none'}, ${e.token_count} tokens, ${e.tool_calls} tool calls, ${e.ended ? 'ended cleanly' : 'no clean end'}`,
    `  reward ${e.reward.total_sats} sats (base ${e.reward.base_sats}, quality ${e.reward.quality_bonus_sats}, CI ${e.reward.ci_bonus_sats}, tokens ${e.reward.token_bonus_sats}, tools ${e.reward.tool_bonus_sats}); ${verdict}`,
  ].join('\n');
}

/**
 * `trajectories score FILE...`: scores session logs or JSONL of steps and stores them (redacted);
 * `trajectories preview [FILE...]`: what would be accepted under the thresholds, with rewards, for
 * the files (nothing stored) or, without files, for a page of the stored trajectories
 * (`--limit N`, 1–1000, default 50; `--before CURSOR`, the `next_before` of the previous page);
 * `trajectories export [--out FILE]`: every accepted stored trajectory, redacted, as JSONL.
 */
export async function trajectoriesCommand(args: ParsedArgs): Promise<CommandResult> {
  const [sub, ...files] = args.positionals;
  if (!sub || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`trajectories needs a subcommand: one of ${SUBCOMMANDS.join(', ')} (got ${JSON.stringify(sub ?? '')})`);
  }
  if (sub === 'score' && files.length === 0) throw new UsageError('trajectories score needs at least one FILE (a session log or JSONL of steps)');
  const inputs = await Promise.all(files.map(async (file) => ({ file, text: await readTextFile(file) })));
  const page = trajectoryPageParams(flagText(args, 'limit'), flagText(args, 'before'));
  if (!page.ok) throw new UsageError(`--${page.message}`);
  return withService(args, async (_scan, booted) => {
    const service = await trajectoryServiceOf(booted.runtime);
    if (sub === 'score') {
      const results = [];
      for (const { file, text } of inputs) {
        const { stored, errors } = await service.submit(text, 'cli', file);
        results.push({ file, trajectory: stored, errors });
      }
      const text = results.map((r) => [describeEvaluation(r.file, r.trajectory.evaluation), ...r.errors.map((e) => `  line ${e.line}: ${e.field}: ${e.message}`)].join('\n')).join('\n');
      return { exitCode: results.some((r) => r.errors.length > 0) ? 2 : 0, json: { trajectories: results }, text };
    }
    if (sub === 'preview') return inputs.length > 0 ? previewFiles(inputs.map(({ file, text }) => ({ name: file, ...service.score(text, file) }))) : previewStored(service, page.value);
    return exportAccepted(service, args.flags.get('out'));
  });
}

interface Preview {
  name: string;
  evaluation: TrajectoryEvaluation;
  errors: { line: number; field: string; message: string }[];
}

const previewJson = (previews: readonly Preview[]) => previews.map((p) => ({ name: p.name, ...p.evaluation, errors: p.errors }));

function previewFiles(previews: readonly Preview[]): CommandResult {
  const accepted = previews.filter((p) => p.evaluation.accepted);
  const json = { count: previews.length, accepted: accepted.length, total_sats: accepted.reduce((sum, p) => sum + p.evaluation.reward.total_sats, 0), trajectories: previewJson(previews) };
  const text = [...previews.map((p) => describeEvaluation(p.name, p.evaluation)), `${accepted.length} of ${previews.length} accepted, ${json.total_sats} sats`].join('\n');
  return { exitCode: 0, json, text };
}

/** The stored trajectories, one page newest first; the counts and sats are over all of them (database aggregates). */
async function previewStored(service: TrajectoryService, page: { limit: number; before: PageCursor | null }): Promise<CommandResult> {
  const [listed, totals] = await Promise.all([service.page(page), service.totals()]);
  const previews = listed.trajectories.map((t) => ({ name: t.run_id ?? t.id, evaluation: t.evaluation, errors: [] }));
  const next = listed.next_before === null ? null : encodeCursor(listed.next_before);
  const json = { count: totals.count, accepted: totals.accepted, total_sats: totals.accepted_sats, trajectories: previewJson(previews), next_before: next };
  const text = [
    ...previews.map((p) => describeEvaluation(p.name, p.evaluation)),
    `${totals.accepted} of ${totals.count} stored accepted, ${totals.accepted_sats} sats${next === null ? '' : `; the newest ${previews.length} shown, the next ones with --before ${next}`}`,
  ].join('\n');
  return { exitCode: 0, json, text };
}

/** Every accepted stored trajectory, newest first, read a page at a time (to the file as each page is read). */
async function exportAccepted(service: TrajectoryService, out: string | true | undefined): Promise<CommandResult> {
  const kept: StoredTrajectory[] = [];
  let exported = 0;
  if (typeof out === 'string') await writeFile(out, '');
  for (let before: PageCursor | null = null, first = true; first || before !== null; first = false) {
    const page = await service.page({ limit: MAX_TRAJECTORIES_PAGE, before, acceptedOnly: true });
    exported += page.trajectories.length;
    if (typeof out === 'string') {
      if (page.trajectories.length > 0) await appendFile(out, page.trajectories.map((t) => `${JSON.stringify(t)}\n`).join(''));
    } else kept.push(...page.trajectories);
    before = page.next_before;
  }
  if (typeof out === 'string') return { exitCode: 0, json: { exported, file: out }, text: `${exported} accepted trajectories written to ${out}` };
  const jsonl = kept.map((t) => JSON.stringify(t)).join('\n');
  return { exitCode: 0, json: { exported, trajectories: kept }, text: jsonl || '(no accepted trajectories)' };
}
