import { writeFile } from 'node:fs/promises';
import type { TrajectoryEvaluation } from '../model/evaluation';
import { type StoredTrajectory, trajectoryServiceOf } from '../trajectory-service';
import { type ParsedArgs, UsageError } from '../../cli/args';
import { type CommandResult, readTextFile, withService } from '../../cli/session';

const SUBCOMMANDS = ['score', 'preview', 'export'] as const;

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
 * the files (nothing stored) or, without files, for the stored trajectories;
 * `trajectories export [--out FILE]`: the accepted stored trajectories, redacted, as JSONL.
 */
export async function trajectoriesCommand(args: ParsedArgs): Promise<CommandResult> {
  const [sub, ...files] = args.positionals;
  if (!sub || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`trajectories needs a subcommand: one of ${SUBCOMMANDS.join(', ')} (got ${JSON.stringify(sub ?? '')})`);
  }
  if (sub === 'score' && files.length === 0) throw new UsageError('trajectories score needs at least one FILE (a session log or JSONL of steps)');
  const inputs = await Promise.all(files.map(async (file) => ({ file, text: await readTextFile(file) })));
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
    if (sub === 'preview') {
      const previews =
        inputs.length > 0
          ? inputs.map(({ file, text }) => ({ name: file, ...service.score(text, file) }))
          : (await service.list()).map((t) => ({ name: t.run_id ?? t.id, evaluation: t.evaluation, errors: [] }));
      const accepted = previews.filter((p) => p.evaluation.accepted);
      const json = {
        count: previews.length,
        accepted: accepted.length,
        total_sats: accepted.reduce((sum, p) => sum + p.evaluation.reward.total_sats, 0),
        trajectories: previews.map((p) => ({ name: p.name, ...p.evaluation, errors: p.errors })),
      };
      const text = [...previews.map((p) => describeEvaluation(p.name, p.evaluation)), `${accepted.length} of ${previews.length} accepted, ${json.total_sats} sats`].join('\n');
      return { exitCode: 0, json, text };
    }
    const accepted = (await service.list()).filter((t) => t.evaluation.accepted);
    const jsonl = accepted.map((t: StoredTrajectory) => JSON.stringify(t)).join('\n');
    const out = args.flags.get('out');
    if (typeof out === 'string') {
      await writeFile(out, jsonl === '' ? '' : `${jsonl}\n`);
      return { exitCode: 0, json: { exported: accepted.length, file: out }, text: `${accepted.length} accepted trajectories written to ${out}` };
    }
    return { exitCode: 0, json: { exported: accepted.length, trajectories: accepted }, text: jsonl || '(no accepted trajectories)' };
  });
}
