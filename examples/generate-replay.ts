/**
 * Deterministic outcome streams for `self-improve replay`: months of scan outcomes over many
 * projects, scanners, models and categories, with the triage rate of each cell drawn from a
 * seeded latent model. Used to develop and test the triage prior on more than one file.
 *
 *   bun run examples/generate-replay.ts [count] [seed] [pattern|noise] > stream.jsonl
 *
 * pattern: P(rejected_fp) = sigmoid(scanner×category effect + project effect + model×category
 *   effect), every effect drawn once per seed; projects start at different times, so late ones
 *   begin with no history; the finding's confidence is higher for real findings, with noise.
 * noise: one global false-positive rate for everything; nothing to learn beyond it.
 */
import { type ExampleOutcome, mulberry32, toJsonl } from './generate-outcomes';

export type StreamKind = 'pattern' | 'noise';

const DAY_MS = 86_400_000;
const START_MS = Date.parse('2026-05-01T00:00:00.000Z');
const SPAN_DAYS = 150;
const NOISE_FP_RATE = 0.3;
const PROJECTS = ['payments-api', 'mobile-app', 'checkout-web', 'ledger-core', 'auth-gateway', 'search-svc', 'admin-portal', 'etl-jobs'];
const SCANNERS = ['semgrep', 'codeql', 'snyk-code'];
const MODELS = [
  ['openai', 'gpt-4o-mini'],
  ['anthropic', 'claude-3-5-haiku'],
  ['google', 'gemini-1.5-flash'],
] as const;
const CATEGORIES = ['sql-injection', 'xss', 'path-traversal', 'hardcoded-secret', 'insecure-deserialization', 'dependency-version', 'weak-crypto', 'ssrf', 'open-redirect', 'xxe'];
/** How other labels split when a finding is not a false positive. */
const REAL_LABELS = [
  ['fixed', 0.45],
  ['accepted', 0.25],
  ['ignored', 0.22],
  ['reopened', 0.08],
] as const;

type Rng = () => number;

function normal(rng: Rng, mean: number, sd: number): number {
  return mean + sd * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function pickIndex(rng: Rng, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = rng() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i] as number;
    if (r < 0) return i;
  }
  return weights.length - 1;
}

/** `count` outcome rows, oldest first; the same arguments always give the same rows. */
export function generateReplayStream(count: number, seed: number, kind: StreamKind): ExampleOutcome[] {
  const rng = mulberry32(seed);
  const cellEffect = SCANNERS.map(() => CATEGORIES.map(() => normal(rng, -1, 1.2)));
  const projectEffect = PROJECTS.map(() => normal(rng, 0, 0.5));
  const modelEffect = MODELS.map(() => CATEGORIES.map(() => normal(rng, 0, 0.6)));
  // Project i joins on day i * 15; busier projects (lower index) send more findings.
  const projectWeights = PROJECTS.map((_, i) => 1 / (i + 1));
  const rows: ExampleOutcome[] = [];
  for (let i = 0; i < count; i++) {
    const project = pickIndex(rng, projectWeights);
    const scanner = Math.floor(rng() * SCANNERS.length);
    const model = Math.floor(rng() * MODELS.length);
    const category = Math.floor(rng() * CATEGORIES.length);
    const joinedDays = project * 15;
    const tsMs = START_MS + (joinedDays + rng() * (SPAN_DAYS - joinedDays)) * DAY_MS;
    const pFp = kind === 'noise' ? NOISE_FP_RATE : sigmoid((cellEffect[scanner]?.[category] ?? 0) + (projectEffect[project] ?? 0) + (modelEffect[model]?.[category] ?? 0));
    const isFp = rng() < pFp;
    const label = isFp ? 'rejected_fp' : REAL_LABELS[pickIndex(rng, REAL_LABELS.map(([, w]) => w))]?.[0] ?? 'fixed';
    const confidenceCentre = kind === 'noise' ? 0.6 : isFp ? 0.5 : 0.7;
    const confidence = Math.round(Math.min(1, Math.max(0, normal(rng, confidenceCentre, 0.15))) * 100) / 100;
    const [provider, name] = MODELS[model] ?? MODELS[0];
    rows.push({
      finding_key: `${PROJECTS[project]}:${SCANNERS[scanner]}:${CATEGORIES[category]}:${i}`,
      label,
      ts: new Date(Math.round(tsMs)).toISOString(),
      project: PROJECTS[project] as string,
      scanner: SCANNERS[scanner] as string,
      model_provider: provider,
      model_name: name,
      category: CATEGORIES[category] as string,
      confidence,
      summary: `${CATEGORIES[category]} reported by ${SCANNERS[scanner]} in ${PROJECTS[project]}`,
    });
  }
  return rows.sort((a, b) => a.ts.localeCompare(b.ts) || a.finding_key.localeCompare(b.finding_key));
}

if (import.meta.main) {
  const [countArg, seedArg, kindArg] = process.argv.slice(2);
  const kind = (kindArg ?? 'pattern') as StreamKind;
  if (kind !== 'pattern' && kind !== 'noise') throw new Error(`kind must be pattern or noise (got ${kindArg})`);
  process.stdout.write(toJsonl(generateReplayStream(Number(countArg ?? 3000), Number(seedArg ?? 1), kind)));
}
