import { CONFIRMED_LABELS, compareText, keepLatest, type LatestOutcomes, type MetricOutcome } from './findings';
import { expectedCalibrationError } from './metrics';
import { ratio } from './metric-slices';
import { pointOf, type WeeklyTriagePoint } from './weekly-triage';
import { StringNumbers } from '../../shared/string-numbers';

/** Findings `WeekFold.point` goes through between two turns of the event loop. */
const FINDINGS_PER_TURN = 5_000;

/**
 * One week's triage figures (`weekPoint`'s) built from its outcomes a page at a time, in any
 * order: each finding keeps only its latest outcome and its latest one with a confidence
 * (`keepLatest`, as `summarizeFindings` picks them), and the week its outcome count and reward
 * sum. So a week's outcomes never sit in memory or in one synchronous step all together; `point`
 * goes through the findings a few thousand at a time, and finds precision@k's top k by the k-th
 * greatest confidence (a numeric sort) and the keys tied at it, without sorting every finding.
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
    let rejected = 0;
    const confident: { key: string; p: number; y: 0 | 1 }[] = [];
    for (let n = 0; n < this.held.length; n++) {
      const { latest, latestConfident } = this.held[n] as LatestOutcomes;
      if (latest.label === 'rejected_fp') rejected++;
      if (latestConfident) confident.push({ key: this.keys.at(n), p: latestConfident.scannerConfidence as number, y: CONFIRMED_LABELS[latest.label] ? 1 : 0 });
      if ((n + 1) % FINDINGS_PER_TURN === 0) await turn();
    }
    const top = topConfirmed(confident, k);
    const findings = this.held.length;
    return pointOf(startMs, {
      findings,
      outcomes: this.outcomes,
      precision_at_k: ratio(top.confirmed, top.taken),
      precision_k: top.taken,
      false_positive_rate: ratio(rejected, findings),
      calibration_error: expectedCalibrationError(confident),
      avg_reward: ratio(this.rewardSum, this.outcomes),
    });
  }
}

/**
 * How many of the `k` most confident (confidence desc, key in code-unit order) are confirmed, and
 * how many that is: those above the k-th greatest confidence, and the first of those tied at it by key.
 */
export function topConfirmed(confident: readonly { key: string; p: number; y: 0 | 1 }[], k: number): { confirmed: number; taken: number } {
  if (k >= confident.length) return { confirmed: confident.reduce((sum, c) => sum + c.y, 0), taken: confident.length };
  const ascending = Float64Array.from(confident, (c) => c.p).sort();
  const threshold = ascending[ascending.length - k] as number;
  let confirmed = 0;
  let above = 0;
  const tied: { key: string; y: 0 | 1 }[] = [];
  for (const c of confident) {
    if (c.p > threshold) {
      above++;
      confirmed += c.y;
    } else if (c.p === threshold) tied.push(c);
  }
  tied.sort((a, b) => compareText(a.key, b.key));
  for (let i = 0; i < k - above; i++) confirmed += (tied[i] as { y: 0 | 1 }).y;
  return { confirmed, taken: k };
}
