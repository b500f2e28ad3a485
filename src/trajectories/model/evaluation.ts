import { detectSignals } from './detect';
import type { TrajectoryInput } from './input';
import {
  type AcceptancePolicy,
  acceptTrajectory,
  factsFromSignals,
  type QualityBreakdown,
  type RewardBreakdown,
  type RewardRates,
  scoreTrajectory,
  type TrajectoryFacts,
  trajectoryReward,
} from './score';

export interface TrajectoryPolicy {
  rates: RewardRates;
  acceptance: AcceptancePolicy;
}

/** A trajectory's score, reward and acceptance. Snake_case: printed as JSON and stored as metadata. */
export interface TrajectoryEvaluation {
  quality: QualityBreakdown;
  reward: RewardBreakdown;
  accepted: boolean;
  /** Why it was not accepted: each failed threshold with its numbers. */
  reasons: string[];
  initial_commit: string | null;
  final_commit: string | null;
  ci: TrajectoryFacts['ci'];
  ended: boolean;
  token_count: number;
  tool_calls: number;
  /** Test and build results seen, in order. */
  checks: { kind: string; result: string | null; command: string | null }[];
}

/**
 * Seed 004 end to end for one trajectory: signals (commits, tests, builds, exit codes) detected in
 * the text of every step, the facts they give with the trajectory's tokens, tool calls and clean
 * end, the quality score and its components, the reward in sats, and the acceptance decision.
 * Detection reads the raw text; only the stored or exported copy is redacted.
 */
export function evaluateTrajectory(trajectory: TrajectoryInput, policy: TrajectoryPolicy): TrajectoryEvaluation {
  const lines = trajectory.steps.flatMap((step) => step.text.split('\n'));
  const signals = detectSignals(lines);
  const facts = factsFromSignals(signals, { tokenCount: trajectory.token_count, toolCalls: trajectory.tool_calls, ended: trajectory.ended });
  const quality = scoreTrajectory(facts);
  const reward = trajectoryReward(facts, quality.quality, policy.rates, policy.acceptance.minQuality);
  const decision = acceptTrajectory(quality, reward, facts, policy.acceptance);
  return {
    quality,
    reward,
    accepted: decision.accepted,
    reasons: decision.reasons,
    initial_commit: facts.initialCommit,
    final_commit: facts.finalCommit,
    ci: facts.ci,
    ended: facts.ended,
    token_count: facts.tokenCount,
    tool_calls: facts.toolCalls,
    checks: signals.checks.map((c) => ({ kind: c.kind, result: c.result, command: c.command })),
  };
}
