import type { IAgentRuntime } from '@elizaos/core';
import { z } from 'zod';
import { parseTierMap, SEED_INITIAL_TIERS } from '../elo/model/tier-map';
import { DEFAULT_DECAY_POLICY } from '../rules/model/rule-confidence';
import { DEFAULT_GUARD_THRESHOLD } from '../rules/model/guard';
import { DEFAULT_RULE_LESSON_MATCH_THRESHOLD } from '../rules/model/rule-lessons';
import { DEFAULT_PROMOTION_CRITERIA, DEFAULT_SCAN_PROMOTION_CRITERIA } from '../rules/model/promotion';
import { parsePrivateKey, parseTrustedKeys } from '../rules/model/signing';
import { parseEntityList } from './trust';

const int = (min: number, max: number, dflt: number) =>
  z.coerce
    .number({ invalid_type_error: `must be an integer between ${min} and ${max}` })
    .int(`must be an integer between ${min} and ${max}`)
    .min(min, `must be an integer between ${min} and ${max}`)
    .max(max, `must be an integer between ${min} and ${max}`)
    .default(dflt);

const between = (min: number, max: number, dflt: number) =>
  z.coerce
    .number({ invalid_type_error: `must be a number greater than ${min} and at most ${max}` })
    .refine((v) => v > min && v <= max, { message: `must be a number greater than ${min} and at most ${max}` })
    .default(dflt);

const fraction = (dflt: number, exclusiveZero = false) =>
  z.coerce
    .number({ invalid_type_error: `must be a number between 0 and 1` })
    .refine((v) => (exclusiveZero ? v > 0 : v >= 0) && v <= 1, {
      message: exclusiveZero ? 'must be a number greater than 0 and at most 1' : 'must be a number between 0 and 1',
    })
    .default(dflt);

/**
 * A text setting read by `parse`, which answers the value or why the text is not one (the
 * setting's error message).
 */
const parsedText = <Parsed extends { ok: true } | { ok: false; message: string }, Value>(parse: (text: string) => Parsed, valueOf: (parsed: Extract<Parsed, { ok: true }>) => Value) =>
  z.string().transform((text, ctx): Value => {
    const parsed = parse(text);
    if (parsed.ok) return valueOf(parsed as Extract<Parsed, { ok: true }>);
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (parsed as { message: string }).message });
    return z.NEVER;
  });

/**
 * Every setting of the plugin: name, allowed values, default. Read as
 * `runtime.getSetting(name) ?? process.env[name]`; documented in the README's Settings table.
 */
export const settingsSchema = z.object({
  /** Days of outcomes a learning pass looks at (seed 001 §3.3). */
  SELF_IMPROVE_WINDOW_DAYS: int(1, 365, 7),
  /** Fewest outcomes in a group before it can teach a lesson (seed 001 §5 guardrail). */
  SELF_IMPROVE_MIN_SAMPLE: int(2, 100_000, 10),
  /** Lowest stored confidence a lesson may have (seed 001 §7: 0.55). */
  SELF_IMPROVE_MIN_CONFIDENCE: fraction(0.55),
  /** Cosine similarity at or above which a new lesson reinforces an existing one instead of being inserted. */
  SELF_IMPROVE_DEDUPE_THRESHOLD: fraction(0.9, true),
  /** `auto`: phrase lessons with TEXT_SMALL when a model is registered; `off`: statistics only. */
  SELF_IMPROVE_LESSON_MODEL: z.enum(['auto', 'off'], { errorMap: () => ({ message: 'must be one of auto, off' }) }).default('auto'),
  /** Finding summaries shown to the model per group (bounded sample of untrusted data). */
  SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT: int(0, 100, 12),
  /** How often the background task looks for outcomes that have not been learned from. */
  SELF_IMPROVE_POLL_INTERVAL_MS: int(1_000, 7 * 86_400_000, 300_000),
  /** Tokens (≈ 4 characters each) the SCAN_LESSONS provider may put into one prompt. */
  SELF_IMPROVE_LESSON_TOKEN_BUDGET: int(50, 20_000, 400),
  /** Days after which a lesson's freshness weight halves when ranking lessons for the prompt. */
  SELF_IMPROVE_LESSON_HALF_LIFE_DAYS: int(1, 3650, 30),
  /**
   * Scan lessons held in memory, those with the newest evidence (`last_seen`): what SCAN_LESSONS
   * ranks and triage priors name; the others stay stored and are read when needed (listing, dedupe).
   */
  SELF_IMPROVE_LESSONS_IN_MEMORY: int(100, 10_000_000, 10_000),
  /** Largest body accepted by POST /self-improve/outcomes; larger gets 413. */
  SELF_IMPROVE_MAX_BODY_BYTES: int(1_024, 1_073_741_824, 5 * 1_048_576),
  /** Pseudo-outcomes a level of the triage prior borrows from its parent: higher pools more, lower trusts small groups sooner. */
  SELF_IMPROVE_PRIOR_STRENGTH: int(1, 10_000, 10),
  /** The k of precision@k in the metrics: how many of the most confident findings are checked. */
  SELF_IMPROVE_METRICS_K: int(1, 100_000, 20),
  /** Lowest trajectory quality (seed 004) that is accepted for export and rewarded. */
  SELF_IMPROVE_TRAJECTORY_MIN_QUALITY: fraction(0.5),
  /** `true`: a trajectory without a CI/test/build result is not accepted. */
  SELF_IMPROVE_TRAJECTORY_REQUIRE_CI: z.enum(['true', 'false'], { errorMap: () => ({ message: 'must be one of true, false' }) }).default('false'),
  /** Trajectories whose reward is below this many sats are not accepted. */
  SELF_IMPROVE_TRAJECTORY_MIN_REWARD_SATS: int(0, 1_000_000, 10),
  /** Redaction before a trajectory is stored or exported: standard (secrets), strict (+ emails, home paths), paranoid (+ hosts, addresses, long tokens). */
  SELF_IMPROVE_TRAJECTORY_REDACTION: z.enum(['standard', 'strict', 'paranoid'], { errorMap: () => ({ message: 'must be one of standard, strict, paranoid' }) }).default('standard'),
  /** Seed 004 reward rates, in sats. */
  SELF_IMPROVE_TRAJECTORY_BASE_SATS: int(0, 1_000_000, 100),
  SELF_IMPROVE_TRAJECTORY_QUALITY_BONUS_SATS: int(0, 1_000_000, 50),
  SELF_IMPROVE_TRAJECTORY_CI_BONUS_SATS: int(0, 1_000_000, 200),
  SELF_IMPROVE_TRAJECTORY_TOKEN_BONUS_SATS_PER_1K: int(0, 1_000_000, 10),
  SELF_IMPROVE_TRAJECTORY_TOOL_CALL_BONUS_SATS: int(0, 1_000_000, 5),
  /** Reconcile the reward ledger with its source stores after this many new transactions (incrementally: what is new since the last reconciliation; in full once a day). */
  SELF_IMPROVE_LEDGER_RECONCILE_EVERY: int(1, 10_000_000, 10_000),
  /** ... and at least this often. */
  SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS: int(1_000, 7 * 86_400_000, 3_600_000),
  /** Rows each append-only log keeps per agent (ELO update, search and session logs, guard log, rule parse errors); older rows are deleted. */
  SELF_IMPROVE_LOG_MAX_ROWS: int(1_000, 100_000_000, 100_000),
  /** Outcome updates after which an item's ELO is established: K drops from 16 to 8 (seed 002). */
  SELF_IMPROVE_ELO_ESTABLISHED_AFTER: int(1, 1_000_000, 30),
  /** Weight of similarity in blended ranking, `final = similarity·w + (elo/2000)·w_elo` (seed 002 phase 4). */
  SELF_IMPROVE_ELO_SIMILARITY_WEIGHT: fraction(0.7),
  /** Weight of the ELO term in blended ranking. */
  SELF_IMPROVE_ELO_WEIGHT: fraction(0.3),
  /** Share of the gap to its starting rating an unused item gives back per day (0.01 ≈ 69-day half-life; 0 turns drift off). */
  SELF_IMPROVE_ELO_DRIFT_PER_DAY: fraction(0.01),
  /** Starting tier of new items by kind or kind:glob, `pattern=TIER;…`, first match wins, else MEDIUM. Default: seed 002's table for files. */
  SELF_IMPROVE_ELO_INITIAL_TIERS: z
    .string()
    .superRefine((spec, ctx) => {
      const parsed = parseTierMap(spec);
      if (!parsed.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, message: parsed.message });
    })
    .default(SEED_INITIAL_TIERS),
  /** Tokens (≈ 4 characters each) the HIGH_ELO_CONTEXT provider may put into one prompt. */
  SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET: int(50, 20_000, 300),
  /** ELO items kept in memory (least recently used evicted first, nearly: the clock algorithm; never one with changes not yet written); others are read on demand. */
  SELF_IMPROVE_ELO_HOT_ITEMS: int(10, 10_000_000, 100_000),
  /** Rules (seed 003): distinct events a lesson needs before it is promoted to a rule. */
  SELF_IMPROVE_RULE_MIN_CONFIRMATIONS: int(1, 10_000, DEFAULT_PROMOTION_CRITERIA.minConfirmations),
  /** ... for a lesson already `proven` (a proven event, or 3 events behind it). */
  SELF_IMPROVE_RULE_MIN_CONFIRMATIONS_PROVEN: int(1, 10_000, DEFAULT_PROMOTION_CRITERIA.minConfirmationsWhenProven),
  /** Days a lesson must exist before promotion (0: promote as soon as it has the confirmations). */
  SELF_IMPROVE_RULE_MIN_AGE_DAYS: int(0, 3650, DEFAULT_PROMOTION_CRITERIA.minAgeDays),
  /** Days after its last validation during which a rule keeps confidence 0.9. */
  SELF_IMPROVE_RULE_GRACE_DAYS: int(0, 3650, DEFAULT_DECAY_POLICY.graceDays),
  /** Days over which a rule's confidence halves after the grace period: `0.9 × 0.5^((days − grace) / half-life)`. */
  SELF_IMPROVE_RULE_HALF_LIFE_DAYS: int(1, 3650, DEFAULT_DECAY_POLICY.halfLifeDays),
  /** Tokens (≈ 4 characters each) the TOP_RULES provider may put into one prompt. */
  SELF_IMPROVE_RULE_TOKEN_BUDGET: int(50, 20_000, 300),
  /** Similarity (cosine + 0.25 × tag overlap, so up to 1.25) from which an event joins an existing lesson of its category. */
  SELF_IMPROVE_RULE_MATCH_THRESHOLD: between(0, 1.25, DEFAULT_RULE_LESSON_MATCH_THRESHOLD),
  /** Guard score (meaning + scope) from which a rule matches an intended action. */
  SELF_IMPROVE_GUARD_THRESHOLD: fraction(DEFAULT_GUARD_THRESHOLD, true),
  /** How often the rule decay task runs (decay is computed from timestamps, so a missed run loses nothing). */
  SELF_IMPROVE_RULE_DECAY_INTERVAL_MS: int(1_000, 7 * 86_400_000, 3_600_000),
  /** `on`: scan lessons (seed 001) with strong, lasting support are promoted to rules by the decay task; `off`: never. */
  SELF_IMPROVE_SCAN_RULE_PROMOTION: z.enum(['on', 'off'], { errorMap: () => ({ message: 'must be one of on, off' }) }).default('on'),
  /** Scan lesson promotion: fewest labelled findings behind the lesson. */
  SELF_IMPROVE_SCAN_RULE_MIN_SAMPLE: int(1, 1_000_000, DEFAULT_SCAN_PROMOTION_CRITERIA.minSampleSize),
  /** ... lowest stored lesson confidence. */
  SELF_IMPROVE_SCAN_RULE_MIN_CONFIDENCE: fraction(DEFAULT_SCAN_PROMOTION_CRITERIA.minScanLessonConfidence),
  /** ... fewest times the lesson was re-learned. */
  SELF_IMPROVE_SCAN_RULE_MIN_REINFORCEMENTS: int(0, 1_000_000, DEFAULT_SCAN_PROMOTION_CRITERIA.minReinforcements),
  /** ... days between first learned and last seen (support that lasted). */
  SELF_IMPROVE_SCAN_RULE_MIN_SPAN_DAYS: int(0, 3650, DEFAULT_SCAN_PROMOTION_CRITERIA.minSpanDays),
  /** ... most days since the lesson was last seen. */
  SELF_IMPROVE_SCAN_RULE_MAX_IDLE_DAYS: int(0, 3650, DEFAULT_SCAN_PROMOTION_CRITERIA.maxIdleDays),
  /**
   * Reward ledger key (sensitive): set, new transactions are chained with HMAC-SHA256 under it and
   * signed checkpoints can be made; unset, the chain is plain SHA-256 (detects accidental corruption only).
   */
  SELF_IMPROVE_LEDGER_SECRET: z
    .string()
    .min(16, 'must be at least 16 characters (a random secret, e.g. from `openssl rand -hex 32`)')
    .max(1024, 'must be at most 1024 characters')
    .optional(),
  /**
   * Token (sensitive) a caller may present to the plugin's write routes, as `X-API-KEY` or
   * `Authorization: Bearer …`, besides the server's own ELIZA_SERVER_AUTH_TOKEN. When either is
   * configured, every write route asks for one of them at every path the server exposes.
   */
  SELF_IMPROVE_API_TOKEN: z.string().min(16, 'must be at least 16 characters (a random token, e.g. from `openssl rand -hex 32`)').max(1024, 'must be at most 1024 characters').optional(),
  /** `true`: the read routes (scores, rules, ELO, metrics, dashboard) answer without a key; `false`: they ask for one too whenever a key is configured. */
  SELF_IMPROVE_PUBLIC_READS: z.enum(['true', 'false'], { errorMap: () => ({ message: 'must be one of true, false' }) }).default('true'),
  /** Most sats that submitted trajectories (HTTP with a key, CLI) may earn per UTC day; 0: submitted trajectories never pay. */
  SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: int(0, 100_000_000, 5_000),
  /** Trajectories stored per agent (one per agent run, plus submitted ones); after every tenth of that stored, older ones are deleted. */
  SELF_IMPROVE_TRAJECTORY_MAX_ROWS: int(100, 100_000_000, 100_000),
  /** Who may teach, validate, retire and approve rules and label findings besides a world's OWNER and ADMINs: comma-separated entity UUIDs. */
  SELF_IMPROVE_TRUSTED_ENTITIES: parsedText(parseEntityList, (p) => p.ids).default(''),
  /** Ed25519 private key (sensitive; PEM or base64 PKCS#8 DER) that signs rule exports; unset: exports are unsigned and say so. */
  SELF_IMPROVE_RULE_SIGNING_KEY: parsedText(parsePrivateKey, (p) => p.key).optional(),
  /** Public keys (PEM or base64 SPKI DER) or key ids whose signed rule exports import as active rules, comma-separated; the agent's own signing key is always trusted. */
  SELF_IMPROVE_RULE_TRUSTED_KEYS: parsedText(parseTrustedKeys, (p) => p.keyIds).default(''),
  /**
   * Tokens (≈ 4 characters each) the plugin's context may take in one prompt, shared in prompt order
   * by TOP_RULES, SCAN_LESSONS and HIGH_ELO_CONTEXT (each also within its own budget).
   */
  SELF_IMPROVE_CONTEXT_TOKEN_BUDGET: int(50, 60_000, 1_000),
  /**
   * Longest time a route, provider, action, evaluator or event handler waits for the plugin's
   * services to start before it goes on without the ones still starting (a route then answers 503
   * naming its service).
   */
  SELF_IMPROVE_SERVICE_START_WAIT_MS: int(1_000, 600_000, 30_000),
});

export type SelfImproveConfig = z.output<typeof settingsSchema>;
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as (keyof SelfImproveConfig)[];
/** Settings whose value is never printed (errors say how long it is instead). */
export const SENSITIVE_SETTINGS: ReadonlySet<string> = new Set(['SELF_IMPROVE_API_TOKEN', 'SELF_IMPROVE_LEDGER_SECRET', 'SELF_IMPROVE_RULE_SIGNING_KEY']);

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`Invalid setting ${setting}=${JSON.stringify(value)}: ${allowed}`);
    this.name = 'ConfigError';
  }
}

type SettingSource = (name: string) => unknown;

/** Parses settings from any source; throws ConfigError naming the first bad setting, its value and what is allowed. */
export function parseConfig(read: SettingSource): SelfImproveConfig {
  const raw: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = read(name);
    // core's getSetting turns the strings "true"/"false" into booleans: read them back as written.
    const text = typeof value === 'string' ? value.trim() : typeof value === 'boolean' ? String(value) : value;
    if (text !== undefined && text !== null && text !== '') raw[name] = text;
  }
  const parsed = settingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const setting = String(issue?.path[0] ?? '(settings)');
  const shown = SENSITIVE_SETTINGS.has(setting) ? `(${String(raw[setting]).length} characters, hidden)` : raw[setting];
  throw new ConfigError(setting, shown, issue?.message ?? 'invalid');
}

/** The plugin's settings for a runtime: character settings first, then the process environment. */
export function loadConfig(runtime: Pick<IAgentRuntime, 'getSetting'>): SelfImproveConfig {
  return parseConfig((name) => runtime.getSetting(name) ?? process.env[name]);
}
