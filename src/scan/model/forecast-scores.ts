/** A probability forecast `p` of a binary event and what happened, `y`. */
export interface Forecast {
  p: number;
  y: 0 | 1;
}

/** Probabilities are clipped to `[EPS, 1 - EPS]` in the log loss, so a confident miss costs a lot but never Infinity. */
export const LOG_LOSS_EPS = 1e-15;

/** Brier score: `mean((p - y)²)`, 0 is perfect, 0.25 is a constant 0.5. Null with no forecasts. */
export function brierScore(forecasts: readonly Forecast[]): number | null {
  if (forecasts.length === 0) return null;
  let sum = 0;
  for (const { p, y } of forecasts) sum += (p - y) ** 2;
  return sum / forecasts.length;
}

/** Log loss: `-mean(y·ln p + (1-y)·ln(1-p))` with p clipped by LOG_LOSS_EPS. Null with no forecasts. */
export function logLoss(forecasts: readonly Forecast[]): number | null {
  if (forecasts.length === 0) return null;
  let sum = 0;
  for (const { p, y } of forecasts) {
    const clipped = Math.min(1 - LOG_LOSS_EPS, Math.max(LOG_LOSS_EPS, p));
    sum -= y === 1 ? Math.log(clipped) : Math.log(1 - clipped);
  }
  return sum / forecasts.length;
}

/**
 * Area under the ROC curve: the probability that a random positive gets a higher forecast than a
 * random negative, ties counting one half (Mann-Whitney U over average ranks). 0.5 is no better
 * than chance. Null when only one class occurs.
 */
export function rocAuc(forecasts: readonly Forecast[]): number | null {
  const sorted = [...forecasts].sort((a, b) => a.p - b.p);
  let positives = 0;
  let positiveRankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && (sorted[j] as Forecast).p === (sorted[i] as Forecast).p) j++;
    const averageRank = (i + 1 + j) / 2;
    for (let t = i; t < j; t++) {
      if ((sorted[t] as Forecast).y === 1) {
        positives++;
        positiveRankSum += averageRank;
      }
    }
    i = j;
  }
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) return null;
  return (positiveRankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}
