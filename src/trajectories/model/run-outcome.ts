import type { TrajectoryEvaluation } from './evaluation';

/**
 * What a run's end says about the items in its message's prompt, as a reward for the ELO book's
 * `settle`: `+1` when its trajectory was accepted; `−1` when it failed or timed out **and** it did
 * work a trajectory can be judged by (a commit or a test/build result seen); `0` otherwise.
 *
 * A chat run (no commit, no CI result) scores at most 0.38 against the 0.5 acceptance bar, so it
 * can never win at run level: counting its failures as losses would make every item shown in chat
 * only ever sink, and a chat run fails for reasons that are not its prompt's (a model timeout, a
 * provider error). Its items are judged by what the person says about the answer instead
 * (`answerVerdictOf`). A run that did work keeps both sides: accepted wins, failed loses.
 */
export function runEloReward(evaluation: Pick<TrajectoryEvaluation, 'accepted' | 'initial_commit' | 'final_commit' | 'ci'>, failed: boolean): 1 | -1 | 0 {
  if (evaluation.accepted) return 1;
  const didWork = evaluation.initial_commit !== null || evaluation.final_commit !== null || evaluation.ci !== null;
  return failed && didWork ? -1 : 0;
}
