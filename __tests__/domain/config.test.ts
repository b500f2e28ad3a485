import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig, type SelfImproveConfig, SETTING_NAMES } from '../../src/shared/config';
import { SEED_INITIAL_TIERS } from '../../src/elo/model/tier-map';

const DEFAULTS: SelfImproveConfig = {
  SELF_IMPROVE_WINDOW_DAYS: 7,
  SELF_IMPROVE_MIN_SAMPLE: 10,
  SELF_IMPROVE_MIN_CONFIDENCE: 0.55,
  SELF_IMPROVE_DEDUPE_THRESHOLD: 0.9,
  SELF_IMPROVE_LESSON_MODEL: 'auto',
  SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT: 12,
  SELF_IMPROVE_POLL_INTERVAL_MS: 300_000,
  SELF_IMPROVE_MAX_BODY_BYTES: 5_242_880,
  SELF_IMPROVE_PRIOR_STRENGTH: 10,
  SELF_IMPROVE_METRICS_K: 20,
  SELF_IMPROVE_TRAJECTORY_MIN_QUALITY: 0.5,
  SELF_IMPROVE_TRAJECTORY_REQUIRE_CI: 'false',
  SELF_IMPROVE_TRAJECTORY_MIN_REWARD_SATS: 10,
  SELF_IMPROVE_TRAJECTORY_REDACTION: 'standard',
  SELF_IMPROVE_TRAJECTORY_BASE_SATS: 100,
  SELF_IMPROVE_TRAJECTORY_QUALITY_BONUS_SATS: 50,
  SELF_IMPROVE_TRAJECTORY_CI_BONUS_SATS: 200,
  SELF_IMPROVE_TRAJECTORY_TOKEN_BONUS_SATS_PER_1K: 10,
  SELF_IMPROVE_TRAJECTORY_TOOL_CALL_BONUS_SATS: 5,
  SELF_IMPROVE_LEDGER_RECONCILE_EVERY: 10_000,
  SELF_IMPROVE_LEDGER_RECONCILE_INTERVAL_MS: 3_600_000,
  SELF_IMPROVE_LOG_MAX_ROWS: 100_000,
  SELF_IMPROVE_ELO_ESTABLISHED_AFTER: 30,
  SELF_IMPROVE_ELO_SIMILARITY_WEIGHT: 0.7,
  SELF_IMPROVE_ELO_WEIGHT: 0.3,
  SELF_IMPROVE_ELO_DRIFT_PER_DAY: 0.01,
  SELF_IMPROVE_ELO_INITIAL_TIERS: SEED_INITIAL_TIERS,
  SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET: 300,
  SELF_IMPROVE_ELO_HOT_ITEMS: 100_000,
  SELF_IMPROVE_LESSONS_IN_MEMORY: 10_000,
  SELF_IMPROVE_LESSON_TOKEN_BUDGET: 400,
  SELF_IMPROVE_LESSON_HALF_LIFE_DAYS: 30,
  SELF_IMPROVE_RULE_MIN_CONFIRMATIONS: 3,
  SELF_IMPROVE_RULE_MIN_CONFIRMATIONS_PROVEN: 2,
  SELF_IMPROVE_RULE_MIN_AGE_DAYS: 0,
  SELF_IMPROVE_RULE_GRACE_DAYS: 7,
  SELF_IMPROVE_RULE_HALF_LIFE_DAYS: 30,
  SELF_IMPROVE_RULE_TOKEN_BUDGET: 300,
  SELF_IMPROVE_RULE_MATCH_THRESHOLD: 0.5,
  SELF_IMPROVE_GUARD_THRESHOLD: 0.35,
  SELF_IMPROVE_RULE_DECAY_INTERVAL_MS: 3_600_000,
  SELF_IMPROVE_SCAN_RULE_PROMOTION: 'on',
  SELF_IMPROVE_SCAN_RULE_MIN_SAMPLE: 30,
  SELF_IMPROVE_SCAN_RULE_MIN_CONFIDENCE: 0.8,
  SELF_IMPROVE_SCAN_RULE_MIN_REINFORCEMENTS: 3,
  SELF_IMPROVE_SCAN_RULE_MIN_SPAN_DAYS: 14,
  SELF_IMPROVE_SCAN_RULE_MAX_IDLE_DAYS: 30,
  SELF_IMPROVE_PUBLIC_READS: 'true',
  SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY: 5_000,
  SELF_IMPROVE_TRAJECTORY_MAX_ROWS: 100_000,
  SELF_IMPROVE_TRUSTED_ENTITIES: [],
  SELF_IMPROVE_RULE_TRUSTED_KEYS: [],
  SELF_IMPROVE_CONTEXT_TOKEN_BUDGET: 1_000,
  SELF_IMPROVE_SERVICE_START_WAIT_MS: 30_000,
};

/** Settings without a default: unset unless configured (secrets, keys). */
const UNSET_BY_DEFAULT = ['SELF_IMPROVE_API_TOKEN', 'SELF_IMPROVE_LEDGER_SECRET', 'SELF_IMPROVE_RULE_SIGNING_KEY'];

const from = (settings: Record<string, unknown>) => (name: string) => settings[name];

function configErrorOf(settings: Record<string, unknown>): ConfigError {
  try {
    parseConfig(from(settings));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(settings)}`);
}

describe('parseConfig', () => {
  test('defaults when nothing is set', () => {
    expect(parseConfig(() => undefined)).toEqual(DEFAULTS);
  });

  test.each([[null], ['']])('%p counts as not set', (value) => {
    expect(parseConfig(() => value)).toEqual(DEFAULTS);
  });

  test('SETTING_NAMES lists every setting', () => {
    expect<string[]>([...SETTING_NAMES].sort()).toEqual([...Object.keys(DEFAULTS), ...UNSET_BY_DEFAULT].sort());
  });

  const coerced: [string, unknown, unknown][] = [
    ['SELF_IMPROVE_WINDOW_DAYS', '14', 14],
    ['SELF_IMPROVE_WINDOW_DAYS', 30, 30],
    ['SELF_IMPROVE_WINDOW_DAYS', '365', 365],
    ['SELF_IMPROVE_MIN_SAMPLE', '2', 2],
    ['SELF_IMPROVE_MIN_CONFIDENCE', '0.7', 0.7],
    ['SELF_IMPROVE_MIN_CONFIDENCE', '0', 0],
    ['SELF_IMPROVE_DEDUPE_THRESHOLD', '1', 1],
    ['SELF_IMPROVE_LESSON_MODEL', 'off', 'off'],
    ['SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT', '0', 0],
    ['SELF_IMPROVE_POLL_INTERVAL_MS', '1000', 1000],
    ['SELF_IMPROVE_MAX_BODY_BYTES', '1024', 1024],
    ['SELF_IMPROVE_ELO_INITIAL_TIERS', 'rule=HIGH; file:docs/**=low', 'rule=HIGH; file:docs/**=low'],
    ['SELF_IMPROVE_ELO_DRIFT_PER_DAY', '0', 0],
    ['SELF_IMPROVE_RULE_MATCH_THRESHOLD', '1.25', 1.25],
    ['SELF_IMPROVE_SCAN_RULE_PROMOTION', 'off', 'off'],
    // core's getSetting hands "true"/"false" from a character file over as booleans
    ['SELF_IMPROVE_TRAJECTORY_REQUIRE_CI', true, 'true'],
    ['SELF_IMPROVE_TRAJECTORY_REQUIRE_CI', false, 'false'],
  ];
  test.each(coerced)('%s=%p => %p', (name, value, expected) => {
    expect<Record<string, unknown>>(parseConfig(from({ [name]: value }))).toEqual({ ...DEFAULTS, [name]: expected });
  });

  const bad: [string, unknown, string][] = [
    ['SELF_IMPROVE_MIN_CONFIDENCE', '1.5', 'between 0 and 1'],
    ['SELF_IMPROVE_MIN_CONFIDENCE', '-0.1', 'between 0 and 1'],
    ['SELF_IMPROVE_MIN_CONFIDENCE', 'high', 'between 0 and 1'],
    ['SELF_IMPROVE_DEDUPE_THRESHOLD', '0', 'greater than 0 and at most 1'],
    ['SELF_IMPROVE_LESSON_MODEL', 'maybe', 'one of auto, off'],
    ['SELF_IMPROVE_WINDOW_DAYS', '0', 'between 1 and 365'],
    ['SELF_IMPROVE_WINDOW_DAYS', '366', 'between 1 and 365'],
    ['SELF_IMPROVE_WINDOW_DAYS', '7.5', 'between 1 and 365'],
    ['SELF_IMPROVE_WINDOW_DAYS', 'week', 'between 1 and 365'],
    ['SELF_IMPROVE_MIN_SAMPLE', '1', 'between 2 and 100000'],
    ['SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT', '101', 'between 0 and 100'],
    ['SELF_IMPROVE_POLL_INTERVAL_MS', '999', 'between 1000 and 604800000'],
    ['SELF_IMPROVE_MAX_BODY_BYTES', '1023', 'between 1024 and 1073741824'],
    ['SELF_IMPROVE_PRIOR_STRENGTH', '0', 'between 1 and 10000'],
    ['SELF_IMPROVE_METRICS_K', 'ten', 'between 1 and 100000'],
    ['SELF_IMPROVE_TRAJECTORY_REDACTION', 'lax', 'one of standard, strict, paranoid'],
    ['SELF_IMPROVE_TRAJECTORY_REQUIRE_CI', 'yes', 'one of true, false'],
    ['SELF_IMPROVE_TRAJECTORY_MIN_QUALITY', '1.5', 'between 0 and 1'],
    ['SELF_IMPROVE_ELO_INITIAL_TIERS', 'file:docs/**=TOP', 'tier must be one of HIGH, MEDIUM, LOW, VERY_LOW'],
    ['SELF_IMPROVE_ELO_INITIAL_TIERS', 'Files=HIGH', 'must be kind=TIER or kind:glob=TIER'],
    ['SELF_IMPROVE_ELO_WEIGHT', '2', 'between 0 and 1'],
    ['SELF_IMPROVE_RULE_MATCH_THRESHOLD', '0', 'greater than 0 and at most 1.25'],
    ['SELF_IMPROVE_RULE_HALF_LIFE_DAYS', '0', 'between 1 and 3650'],
    ['SELF_IMPROVE_GUARD_THRESHOLD', '0', 'greater than 0 and at most 1'],
    ['SELF_IMPROVE_SCAN_RULE_PROMOTION', 'maybe', 'one of on, off'],
  ];
  test.each(bad)('%s=%p is a ConfigError naming the setting, the value and %s', (name, value, allowed) => {
    const error = configErrorOf({ [name]: value });
    expect(error.setting).toBe(name);
    expect(error.value).toBe(value);
    expect(error.allowed).toContain(allowed);
    expect(error.message).toBe(`Invalid setting ${name}=${JSON.stringify(value)}: ${error.allowed}`);
    expect(error.name).toBe('ConfigError');
  });

  test('the first bad setting is the one reported', () => {
    const error = configErrorOf({ SELF_IMPROVE_WINDOW_DAYS: '0', SELF_IMPROVE_LESSON_MODEL: 'maybe' });
    expect(error.setting).toBe('SELF_IMPROVE_WINDOW_DAYS');
  });

  test('settings that are not the plugin’s are not read', () => {
    const asked: string[] = [];
    parseConfig((name) => {
      asked.push(name);
      return undefined;
    });
    expect(asked.sort()).toEqual<string[]>([...SETTING_NAMES].sort());
  });
});
