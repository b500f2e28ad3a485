import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { CheckResult, TrajectorySignals } from '../../src/trajectories/model/detect';
import {
  acceptTrajectory,
  DEFAULT_ACCEPTANCE_POLICY,
  DEFAULT_REWARD_RATES,
  factsFromSignals,
  MIN_QUALITY_BY_BAR,
  type QualityBreakdown,
  REWARD_SIGNAL_BY_CI,
  type RewardBreakdown,
  type RewardRates,
  roundScore,
  scoreTrajectory,
  stepPoints,
  TOKEN_STEPS,
  TOOL_CALL_STEPS,
  type TrajectoryFacts,
  trajectoryReward,
} from '../../src/trajectories/model/score';

const facts = (over: Partial<TrajectoryFacts> = {}): TrajectoryFacts => ({
  initialCommit: null,
  finalCommit: null,
  ended: false,
  tokenCount: 0,
  toolCalls: 0,
  ci: null,
  ...over,
});

describe('scoreTrajectory: the seed 004 worked examples', () => {
  test('High Quality Trajectory: 1.0', () => {
    const f = facts({ initialCommit: 'abc123f', finalCommit: 'def456a', ended: true, ci: 'passed', tokenCount: 3000, toolCalls: 25 });
    expect(scoreTrajectory(f)).toEqual({ completeness: 1, complexity: 1, reward_signal: 1, quality: 1, token_points: 0.5, tool_points: 0.5 });
  });

  test('Medium Quality Trajectory: 0.73', () => {
    // The seed's heading says 0.64, but its own arithmetic, (1.0 × 0.4) + (0.8 × 0.3) + (0.3 × 0.3),
    // gives 0.73; the arithmetic is the formula, so 0.73 is the golden.
    const f = facts({ initialCommit: 'abc123f', finalCommit: 'def456a', ended: true, ci: 'failed', tokenCount: 800, toolCalls: 12 });
    expect(scoreTrajectory(f)).toEqual({ completeness: 1, complexity: 0.8, reward_signal: 0.3, quality: 0.73, token_points: 0.4, tool_points: 0.4 });
  });

  test('Low Quality Trajectory: 0.0', () => {
    // The seed's heading says 0.2 here too; its calculation (and this) gives 0.0. It lists no end
    // timestamp, so ended is false.
    const f = facts({ tokenCount: 75, toolCalls: 2 });
    expect(scoreTrajectory(f)).toEqual({ completeness: 0, complexity: 0, reward_signal: 0, quality: 0, token_points: 0, tool_points: 0 });
  });
});

describe('scoreTrajectory: each component', () => {
  // Thresholds are strict: exactly 100 tokens earns nothing.
  const tokens: [number, number][] = [
    [0, 0],
    [100, 0],
    [101, 0.2],
    [500, 0.2],
    [501, 0.4],
    [2000, 0.4],
    [2001, 0.5],
    [1_000_000, 0.5],
  ];
  test.each(tokens)('%d tokens => %d points', (tokenCount, points) => {
    expect(stepPoints(tokenCount, TOKEN_STEPS)).toBe(points);
    expect(scoreTrajectory(facts({ tokenCount })).token_points).toBe(points);
  });

  const tools: [number, number][] = [
    [0, 0],
    [3, 0],
    [4, 0.2],
    [10, 0.2],
    [11, 0.4],
    [20, 0.4],
    [21, 0.5],
  ];
  test.each(tools)('%d tool calls => %d points', (toolCalls, points) => {
    expect(stepPoints(toolCalls, TOOL_CALL_STEPS)).toBe(points);
    expect(scoreTrajectory(facts({ toolCalls })).tool_points).toBe(points);
  });

  const completeness: [string | null, string | null, boolean, number][] = [
    [null, null, false, 0],
    ['abc123f', null, false, 0.4],
    [null, 'def456a', false, 0.4],
    [null, null, true, 0.2],
    ['abc123f', 'def456a', false, 0.8],
    ['abc123f', null, true, 0.6],
    ['abc123f', 'def456a', true, 1],
    ['', '', true, 0.2],
  ];
  test.each(completeness)('initial %p, final %p, ended %p => completeness %d', (initialCommit, finalCommit, ended, expected) => {
    expect(scoreTrajectory(facts({ initialCommit, finalCommit, ended })).completeness).toBe(expected);
  });

  const ci: [CheckResult | null, number][] = [
    ['passed', 1],
    ['failed', 0.3],
    [null, 0],
  ];
  test.each(ci)('ci %p => reward_signal %d', (c, expected) => {
    expect(scoreTrajectory(facts({ ci: c })).reward_signal).toBe(expected);
    expect(REWARD_SIGNAL_BY_CI[c ?? 'none']).toBe(expected);
  });

  // [facts, quality] worked by hand: 0.4·completeness + 0.3·complexity + 0.3·reward_signal.
  const mixed: [Partial<TrajectoryFacts>, number][] = [
    [{ initialCommit: 'a1b2c3d', tokenCount: 150, toolCalls: 5, ci: 'failed' }, 0.37], // 0.16 + 0.12 + 0.09
    [{ ended: true, tokenCount: 600, ci: 'passed' }, 0.5], // 0.08 + 0.12 + 0.3
    [{ initialCommit: 'a1b2c3d', finalCommit: 'e4f5a6b', toolCalls: 11 }, 0.44], // 0.32 + 0.12 + 0
    [{ tokenCount: 2001, toolCalls: 21 }, 0.3], // 0 + 0.3 + 0
  ];
  test.each(mixed)('quality %#', (over, quality) => {
    expect(scoreTrajectory(facts(over)).quality).toBe(quality);
  });

  const noisy: [string, number, number][] = [
    ['0.2 + 0.4', 0.2 + 0.4, 0.6],
    ['0.3·0.5 + 0.3·1', 0.3 * 0.5 + 0.3 * 1, 0.45],
    ['0.4·0.2', 0.4 * 0.2, 0.08],
  ];
  test.each(noisy)('roundScore(%s) drops the float noise', (_sum, raw, exact) => {
    expect(raw).not.toBe(exact);
    expect(roundScore(raw)).toBe(exact);
  });

  test('the noisy sums come out exact: complexity 0.2 + 0.4, quality 0.3·0.5 + 0.3·1', () => {
    expect(scoreTrajectory(facts({ tokenCount: 101, toolCalls: 11 })).complexity).toBe(0.6);
    expect(scoreTrajectory(facts({ tokenCount: 2001, ci: 'passed' })).quality).toBe(0.45);
  });

  const bad: [string, Partial<TrajectoryFacts>][] = [
    ['tokenCount', { tokenCount: -1 }],
    ['tokenCount', { tokenCount: 1.5 }],
    ['toolCalls', { toolCalls: Number.NaN }],
    ['toolCalls', { toolCalls: Number.POSITIVE_INFINITY }],
  ];
  test.each(bad)('a bad %s throws a RangeError naming it', (name, over) => {
    expect(() => scoreTrajectory(facts(over))).toThrow(RangeError);
    expect(() => scoreTrajectory(facts(over))).toThrow(name);
  });
});

const CI_RANK: Record<CheckResult | 'none', number> = { none: 0, failed: 1, passed: 2 };
const ciArb = fc.constantFrom<CheckResult | null>('passed', 'failed', null);
const factsArb = fc.record({
  initialCommit: fc.constantFrom<string | null>(null, 'abc123f'),
  finalCommit: fc.constantFrom<string | null>(null, 'def456a'),
  ended: fc.boolean(),
  tokenCount: fc.nat({ max: 10_000 }),
  toolCalls: fc.nat({ max: 100 }),
  ci: ciArb,
});

describe('scoreTrajectory properties', () => {
  test('property: every score is in [0,1] and quality is the weighted sum', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const q = scoreTrajectory(f);
        for (const v of [q.completeness, q.complexity, q.reward_signal, q.quality]) expect(v >= 0 && v <= 1).toBe(true);
        expect(q.quality).toBeCloseTo(0.4 * q.completeness + 0.3 * q.complexity + 0.3 * q.reward_signal, 9);
      }),
    );
  });

  test('property: more tokens, tool calls, commits, a clean end or a better CI never lower quality', () => {
    fc.assert(
      fc.property(factsArb, fc.nat({ max: 5000 }), fc.nat({ max: 50 }), fc.boolean(), fc.boolean(), fc.boolean(), ciArb, (f, moreTokens, moreTools, addInitial, addFinal, end, ci) => {
        const better: TrajectoryFacts = {
          initialCommit: f.initialCommit ?? (addInitial ? 'abc123f' : null),
          finalCommit: f.finalCommit ?? (addFinal ? 'def456a' : null),
          ended: f.ended || end,
          tokenCount: f.tokenCount + moreTokens,
          toolCalls: f.toolCalls + moreTools,
          ci: CI_RANK[ci ?? 'none'] >= CI_RANK[f.ci ?? 'none'] ? ci : f.ci,
        };
        expect(scoreTrajectory(better).quality).toBeGreaterThanOrEqual(scoreTrajectory(f).quality);
      }),
    );
  });
});

const sats = (r: RewardBreakdown) => [r.base_sats, r.quality_bonus_sats, r.ci_bonus_sats, r.token_bonus_sats, r.tool_bonus_sats, r.complexity_bonus_sats, r.total_sats];

describe('trajectoryReward', () => {
  test('the seed example: 410 sats', () => {
    const f = facts({ tokenCount: 2000, toolCalls: 15, ci: 'passed' });
    expect(trajectoryReward(f, 0.8, DEFAULT_REWARD_RATES, 0.5)).toEqual({
      base_sats: 100,
      quality_bonus_sats: 15,
      ci_bonus_sats: 200,
      token_bonus_sats: 20,
      tool_bonus_sats: 75,
      complexity_bonus_sats: 95,
      total_sats: 410,
    });
  });

  // [quality, minQuality, tokens, calls, ci, [base, quality, ci, token, tool, complexity, total]]
  const table: [number, number, number, number, CheckResult | null, number[]][] = [
    [0.7, 0.4, 0, 0, null, [100, 15, 0, 0, 0, 0, 115]], // 0.7 − 0.4 = 0.29999999999999993 in doubles; still 15
    [0.4, 0.5, 0, 0, null, [100, 0, 0, 0, 0, 0, 100]], // below the minimum: no quality bonus, no negative one
    [1, 0.3, 0, 0, 'failed', [100, 35, 200, 0, 0, 0, 335]], // a failed CI is still a CI signal
    [0.51, 0.5, 2999, 3, null, [100, 0, 0, 29, 15, 44, 144]], // 0.5 sats and 29.99 sats both floor
    [0.73, 0.5, 800, 12, 'failed', [100, 11, 200, 8, 60, 68, 379]], // the seed's medium trajectory at the default bar
    [0, 0, 999, 0, null, [100, 0, 0, 9, 0, 9, 109]],
  ];
  test.each(table)('quality %d over min %d, %d tokens, %d calls, ci %p', (quality, minQuality, tokenCount, toolCalls, ci, expected) => {
    expect(sats(trajectoryReward(facts({ tokenCount, toolCalls, ci }), quality, DEFAULT_REWARD_RATES, minQuality))).toEqual(expected);
  });

  const bad: [string, () => unknown][] = [
    ['quality', () => trajectoryReward(facts(), 1.2, DEFAULT_REWARD_RATES, 0.5)],
    ['minQuality', () => trajectoryReward(facts(), 0.5, DEFAULT_REWARD_RATES, Number.NaN)],
    ['baseSats', () => trajectoryReward(facts(), 0.5, { ...DEFAULT_REWARD_RATES, baseSats: -1 }, 0.5)],
    ['tokenBonusSatsPer1k', () => trajectoryReward(facts(), 0.5, { ...DEFAULT_REWARD_RATES, tokenBonusSatsPer1k: 2.5 }, 0.5)],
    ['toolCalls', () => trajectoryReward(facts({ toolCalls: -3 }), 0.5, DEFAULT_REWARD_RATES, 0.5)],
  ];
  test.each(bad)('a bad %s throws a RangeError naming it', (name, call) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(name);
  });

  const ratesArb: fc.Arbitrary<RewardRates> = fc.record({
    baseSats: fc.nat({ max: 1000 }),
    qualityBonusSatsPerPoint: fc.nat({ max: 1000 }),
    ciBonusSats: fc.nat({ max: 1000 }),
    tokenBonusSatsPer1k: fc.nat({ max: 1000 }),
    toolCallBonusSats: fc.nat({ max: 1000 }),
  });
  const unit = fc.double({ min: 0, max: 1, noNaN: true });

  test('property: every amount is a non-negative integer and the total is the sum of the parts', () => {
    fc.assert(
      fc.property(factsArb, unit, unit, ratesArb, (f, quality, minQuality, rates) => {
        const r = trajectoryReward(f, quality, rates, minQuality);
        for (const v of sats(r)) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        expect(r.complexity_bonus_sats).toBe(r.token_bonus_sats + r.tool_bonus_sats);
        expect(r.total_sats).toBe(r.base_sats + r.quality_bonus_sats + r.ci_bonus_sats + r.complexity_bonus_sats);
      }),
    );
  });

  test('property: a higher quality never lowers the reward', () => {
    fc.assert(
      fc.property(factsArb, unit, unit, unit, ratesArb, (f, a, b, minQuality, rates) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(trajectoryReward(f, high, rates, minQuality).total_sats).toBeGreaterThanOrEqual(trajectoryReward(f, low, rates, minQuality).total_sats);
      }),
    );
  });
});

describe('acceptTrajectory', () => {
  const q = (quality: number): QualityBreakdown => ({ completeness: 0, complexity: 0, reward_signal: 0, quality, token_points: 0, tool_points: 0 });
  const r = (total_sats: number): RewardBreakdown => ({
    base_sats: total_sats,
    quality_bonus_sats: 0,
    ci_bonus_sats: 0,
    token_bonus_sats: 0,
    tool_bonus_sats: 0,
    complexity_bonus_sats: 0,
    total_sats,
  });
  const strict = { minQuality: 0.7, requireCiSignal: true, minRewardSats: 500 };

  const table: [string, number, number, CheckResult | null, typeof strict, string[]][] = [
    ['default bar, met exactly', 0.5, 10, null, DEFAULT_ACCEPTANCE_POLICY, []],
    ['default bar, quality short', 0.49, 410, 'passed', DEFAULT_ACCEPTANCE_POLICY, ['quality 0.49 is below min_quality_score 0.5']],
    ['default bar, reward short', 0.9, 9, 'passed', DEFAULT_ACCEPTANCE_POLICY, ['reward 9 sats is below min_reward_sats 10']],
    [
      'strict policy, everything short',
      0.69,
      499,
      null,
      strict,
      ['quality 0.69 is below min_quality_score 0.7', 'no CI result (test or build) but require_ci_signal is true', 'reward 499 sats is below min_reward_sats 500'],
    ],
    ['strict policy, a failed CI is still a signal', 0.7, 500, 'failed', strict, []],
  ];
  test.each(table)('%s', (_name, quality, total, ci, policy, reasons) => {
    expect(acceptTrajectory(q(quality), r(total), facts({ ci }), policy)).toEqual({ accepted: reasons.length === 0, reasons });
  });

  test('the seed quality bars and defaults', () => {
    expect(MIN_QUALITY_BY_BAR).toEqual({ inclusive: 0.3, standard: 0.5, high: 0.7, exceptional: 0.9 });
    expect(DEFAULT_ACCEPTANCE_POLICY).toEqual({ minQuality: MIN_QUALITY_BY_BAR.standard, requireCiSignal: false, minRewardSats: 10 });
    expect(DEFAULT_REWARD_RATES).toEqual({ baseSats: 100, qualityBonusSatsPerPoint: 50, ciBonusSats: 200, tokenBonusSatsPer1k: 10, toolCallBonusSats: 5 });
  });

  test('property: accepted iff each threshold is met, one reason per miss', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat({ max: 1000 }),
        ciArb,
        fc.record({ minQuality: fc.double({ min: 0, max: 1, noNaN: true }), requireCiSignal: fc.boolean(), minRewardSats: fc.nat({ max: 1000 }) }),
        (quality, total, ci, policy) => {
          const misses = [quality < policy.minQuality, policy.requireCiSignal && ci === null, total < policy.minRewardSats].filter(Boolean).length;
          const decision = acceptTrajectory(q(quality), r(total), facts({ ci }), policy);
          expect(decision.reasons.length).toBe(misses);
          expect(decision.accepted).toBe(misses === 0);
        },
      ),
    );
  });
});

describe('factsFromSignals', () => {
  const signals = (hashes: string[], ci: CheckResult | null = null): TrajectorySignals => ({
    commits: hashes.map((hash, i) => ({ hash, line: i + 1, source: 'commit_output' })),
    checks: [],
    exitCodes: [],
    ci,
  });
  const extra = { tokenCount: 800, toolCalls: 12, ended: true };

  const table: [string, string[], string | null, string | null][] = [
    ['no commits', [], null, null],
    ['one commit: initial only', ['abc123f'], 'abc123f', null],
    ['the same hash seen twice: initial only', ['abc123f', 'abc123f'], 'abc123f', null],
    ['first and last differ', ['abc123f', '1a2b3c4', 'def456a'], 'abc123f', 'def456a'],
    ['ends where it began: no final (no net change)', ['abc123f', 'def456a', 'abc123f'], 'abc123f', null],
  ];
  test.each(table)('%s', (_name, hashes, initialCommit, finalCommit) => {
    expect(factsFromSignals(signals(hashes, 'failed'), extra)).toEqual({ initialCommit, finalCommit, ended: true, tokenCount: 800, toolCalls: 12, ci: 'failed' });
  });

  test('property: the initial is the first sighting and the final is never the initial', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('abc123f', 'def456a', '1a2b3c4'), { maxLength: 6 }), ciArb, (hashes, ci) => {
        const f = factsFromSignals(signals(hashes, ci), extra);
        expect(f.initialCommit).toBe(hashes[0] ?? null);
        expect(f.finalCommit === null || f.finalCommit !== f.initialCommit).toBe(true);
        expect(f.finalCommit).toBe(hashes.length > 0 && hashes[hashes.length - 1] !== hashes[0] ? (hashes[hashes.length - 1] ?? null) : null);
        expect(f.ci).toBe(ci);
      }),
    );
  });
});
