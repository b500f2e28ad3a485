import { compareCodePoints, compareText, type FindingSummary, type MetricOutcome } from './findings';

/** What a finding or an outcome is sliced by. */
export interface SliceFields {
  project: string;
  scanner: string;
  model: string;
}

/** Per-model figures within one (project, scanner) pair, against the pair's pooled figures. */
export interface ModelDelta {
  project: string;
  scanner: string;
  model: string;
  findings: number;
  /** The model's rejected_fp findings / its findings; null with no findings. */
  false_positive_rate: number | null;
  /** Model's rate − the pair's pooled rate; null when either is null. */
  false_positive_rate_delta: number | null;
  /** Mean reward of the model's outcomes in the pair. */
  avg_reward: number | null;
  /** Model's mean reward − the pair's pooled mean reward; null when either is null. */
  avg_reward_delta: number | null;
}

/** `numerator / denominator`, null when the denominator is 0. */
export const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator;

/** `a − b`, null when either is null. */
export const difference = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);

/**
 * The slices of one dimension a report shows: the `limit` with the most outcomes, ties in
 * ascending code-point order of their names; and how many there are in all.
 */
export function pickSlices(outcomes: readonly SliceFields[], keyOf: (x: SliceFields) => string, limit: number): { keys: Set<string>; total: number } {
  const sizes = new Map<string, number>();
  for (const o of outcomes) sizes.set(keyOf(o), (sizes.get(keyOf(o)) ?? 0) + 1);
  return { keys: new Set(rankSlices(sizes, limit)), total: sizes.size };
}

/** The `limit` slice names with the largest sizes, ties in ascending code-point order (as the database ranks them, `compareCodePoints`). */
export function rankSlices(sizes: ReadonlyMap<string, number>, limit: number): string[] {
  return [...sizes]
    .sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))
    .slice(0, limit)
    .map(([name]) => name);
}

/**
 * A record of `compute(findings, outcomes)` per slice key, keys in ascending code-unit order
 * (JSON keeps that order, except that integer-like keys such as "42" always come first). A
 * finding goes to the slice of its latest outcome, an outcome to its own; a key present in
 * either gets an entry.
 */
export function sliceRecord<T>(
  findings: readonly FindingSummary[],
  outcomes: readonly MetricOutcome[],
  keyOf: (x: SliceFields) => string,
  compute: (findings: readonly FindingSummary[], outcomes: readonly MetricOutcome[]) => T,
): Record<string, T> {
  const slices = new Map<string, { findings: FindingSummary[]; outcomes: MetricOutcome[] }>();
  const sliceOf = (key: string) => {
    let slice = slices.get(key);
    if (!slice) {
      slice = { findings: [], outcomes: [] };
      slices.set(key, slice);
    }
    return slice;
  };
  for (const f of findings) sliceOf(keyOf(f)).findings.push(f);
  for (const o of outcomes) sliceOf(keyOf(o)).outcomes.push(o);
  const keys = [...slices.keys()].sort(compareText);
  return Object.fromEntries(
    keys.map((key) => {
      const slice = slices.get(key) as { findings: FindingSummary[]; outcomes: MetricOutcome[] };
      return [key, compute(slice.findings, slice.outcomes)];
    }),
  );
}

/** What a model's delta is computed from, per (project, scanner, model). */
export interface Tally {
  findings: number;
  rejected: number;
  outcomes: number;
  rewardSum: number;
}

const emptyTally = (): Tally => ({ findings: 0, rejected: 0, outcomes: 0, rewardSum: 0 });

/**
 * For each (project, scanner) pair with outcomes from two or more models, one row per model:
 * false_positive_rate = rejected_fp findings / findings and avg_reward = mean outcome reward,
 * each with its delta against the same figure pooled over all the pair's models. Slicing as in
 * `sliceRecord`. Rows sorted by project, scanner, model.
 */
export function modelDeltas(findings: readonly FindingSummary[], outcomes: readonly MetricOutcome[]): ModelDelta[] {
  const pairs = new Map<string, Map<string, Map<string, Tally>>>();
  const tallyOf = (x: SliceFields): Tally => {
    let scanners = pairs.get(x.project);
    if (!scanners) {
      scanners = new Map();
      pairs.set(x.project, scanners);
    }
    let models = scanners.get(x.scanner);
    if (!models) {
      models = new Map();
      scanners.set(x.scanner, models);
    }
    let tally = models.get(x.model);
    if (!tally) {
      tally = emptyTally();
      models.set(x.model, tally);
    }
    return tally;
  };
  for (const f of findings) {
    const tally = tallyOf(f);
    tally.findings++;
    if (f.finalLabel === 'rejected_fp') tally.rejected++;
  }
  for (const o of outcomes) {
    const tally = tallyOf(o);
    tally.outcomes++;
    tally.rewardSum += o.reward;
  }
  return deltasOfPairs(pairs);
}

/** `modelDeltas` from the tallies of each project → scanner → model. */
export function deltasOfPairs(pairs: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, Tally>>>): ModelDelta[] {
  const rows: ModelDelta[] = [];
  for (const [project, scanners] of pairs) {
    for (const [scanner, models] of scanners) {
      if (models.size >= 2) rows.push(...pairDeltas(project, scanner, models));
    }
  }
  return rows.sort((a, b) => compareText(a.project, b.project) || compareText(a.scanner, b.scanner) || compareText(a.model, b.model));
}

function pairDeltas(project: string, scanner: string, models: ReadonlyMap<string, Tally>): ModelDelta[] {
  const pooled = emptyTally();
  for (const t of models.values()) {
    pooled.findings += t.findings;
    pooled.rejected += t.rejected;
    pooled.outcomes += t.outcomes;
    pooled.rewardSum += t.rewardSum;
  }
  const pooledFpRate = ratio(pooled.rejected, pooled.findings);
  const pooledReward = ratio(pooled.rewardSum, pooled.outcomes);
  return [...models].map(([model, t]) => {
    const fpRate = ratio(t.rejected, t.findings);
    const reward = ratio(t.rewardSum, t.outcomes);
    return {
      project,
      scanner,
      model,
      findings: t.findings,
      false_positive_rate: fpRate,
      false_positive_rate_delta: difference(fpRate, pooledFpRate),
      avg_reward: reward,
      avg_reward_delta: difference(reward, pooledReward),
    };
  });
}
