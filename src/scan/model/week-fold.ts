import { CONFIRMED_LABELS, keepLatest, type LatestOutcomes, type MetricOutcome } from './findings';
import { CalibrationBins } from './metrics';
import { ratio } from './metric-slices';
import { pointOf, type WeeklyTriagePoint } from './weekly-triage';
import { StringNumbers } from '../../shared/string-numbers';
import { KGreatest } from '../../shared/k-greatest';
import { sortedInTurns } from '../../shared/sort-in-turns';

/** Findings `WeekFold.point` goes through between two turns of the event loop. */
const FINDINGS_PER_TURN = 5_000;

/**
 * One week's triage figures (`weekPoint`'s) built from its outcomes a page at a time, in any
 * order: each finding keeps only its latest outcome and its latest one with a confidence
 * (`keepLatest`, as `summarizeFindings` picks them), and the week its outcome count and reward
 * sum. So a week's outcomes never sit in memory or in one synchronous step all together; `point`
 * goes through the findings a few thousand at a time, and finds precision@k's top k by the k-th
 * greatest confidence (`KGreatest`) and the keys tied at it, without sorting every finding.
 * Sums may differ from `weekPoint`'s in the last bits (they are added in another order).
 */
export class WeekFold {
  /** Findings numbered as first seen; `held[n]` is finding n's latest outcomes (no `Map`: see `StringNumbers`). */
  private readonly keys = new StringNumbers();
  private readonly held: LatestOutcomes[] = [];
  private outcomes = 0;
  private rewardSum = 0;

  add(outcomes: readonly MetricOutcome[]): void {
    for (const o of outcomes) {
      this.outcomes++;
      this.rewardSum += o.reward;
      const n = this.keys.numberOf(o.findingKey);
      if (n === this.held.length) this.held.push({ latest: o, latestConfident: undefined });
      keepLatest(this.held[n] as LatestOutcomes, o);
    }
  }

  /** The week's point (week starting at `startMs`, precision@k's `k`), awaiting `turn` between batches of findings. */
  async point(startMs: number, k: number, turn: () => Promise<void>): Promise<WeeklyTriagePoint> {
    const findings = this.held.length;
    let rejected = 0;
    const calibration = new CalibrationBins();
    // The findings with a confidence, as columns (no object per finding); `finding` numbers them in `keys`.
    const finding = new Int32Array(findings);
    const confident: ConfidentFindings = { count: 0, p: new Float64Array(findings), y: new Uint8Array(findings), keyOf: (i) => this.keys.at(finding[i] as number) };
    for (let n = 0; n < findings; n++) {
      const { latest, latestConfident } = this.held[n] as LatestOutcomes;
      if (latest.label === 'rejected_fp') rejected++;
      if (latestConfident) {
        const p = latestConfident.scannerConfidence as number;
        const y = CONFIRMED_LABELS[latest.label] ? 1 : 0;
        calibration.add(p, y);
        confident.p[confident.count] = p;
        confident.y[confident.count] = y;
        finding[confident.count++] = n;
      }
      if ((n + 1) % FINDINGS_PER_TURN === 0) await turn();
    }
    const top = await topConfirmed(confident, k, turn);
    return pointOf(startMs, {
      findings,
      outcomes: this.outcomes,
      precision_at_k: ratio(top.confirmed, top.taken),
      precision_k: top.taken,
      false_positive_rate: ratio(rejected, findings),
      calibration_error: calibration.error(),
      avg_reward: ratio(this.rewardSum, this.outcomes),
    });
  }
}

/** Findings with a confidence, by position: `p` its confidence, `y` 1 when confirmed, `keyOf` its key; the first `count` positions are used. */
export interface ConfidentFindings {
  count: number;
  p: Float64Array;
  y: Uint8Array;
  keyOf: (i: number) => string;
}

/**
 * How many of the `k` most confident (confidence desc, key in code-unit order) are confirmed, and
 * how many that is: those above the k-th greatest confidence (`KGreatest`), and the first of those
 * tied at it by key. Goes through FINDINGS_PER_TURN findings between turns; ties are sorted in turns.
 */
export async function topConfirmed(c: ConfidentFindings, k: number, turn: () => Promise<void>): Promise<{ confirmed: number; taken: number }> {
  if (k >= c.count) {
    let confirmed = 0;
    for (let i = 0; i < c.count; i++) confirmed += c.y[i] as number;
    return { confirmed, taken: c.count };
  }
  const greatest = new KGreatest(k);
  for (let i = 0; i < c.count; i++) {
    greatest.offer(c.p[i] as number);
    if ((i + 1) % FINDINGS_PER_TURN === 0) await turn();
  }
  const threshold = greatest.least() as number;
  let confirmed = 0;
  let above = 0;
  const tied: number[] = [];
  for (let i = 0; i < c.count; i++) {
    const p = c.p[i] as number;
    if (p > threshold) {
      above++;
      confirmed += c.y[i] as number;
    } else if (p === threshold) tied.push(i);
    if ((i + 1) % FINDINGS_PER_TURN === 0) await turn();
  }
  const byKey = await sortedInTurns(tied, c.keyOf, turn);
  for (let i = 0; i < k - above; i++) confirmed += c.y[byKey[i] as number] as number;
  return { confirmed, taken: k };
}
