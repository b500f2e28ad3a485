import type { LedgerTransaction } from './chain';
import { type LedgerMetrics, type LedgerTotals, ledgerMetrics, ledgerTotals } from './totals';

export const PROGRESS_SCHEMA_VERSION = '1.0.0';
/** The seed's limit on `transaction_log`: the newest 1,000 transactions. */
export const PROGRESS_LOG_LIMIT = 1_000;

/**
 * The JSON schema of `progress.json`, as seed 000 gives it (draft-07). The document
 * `buildProgressJson` writes is tested against it.
 */
export const PROGRESS_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['schema_version', 'reinforcement_learning_ledger'],
  properties: {
    schema_version: { type: 'string' },
    last_updated: { type: 'string', format: 'date-time' },
    reinforcement_learning_ledger: {
      type: 'object',
      required: ['total_score', 'rewards', 'penalties', 'metrics', 'checksum_validation'],
      properties: {
        total_score: { type: 'number' },
        session_score: { type: 'number' },
        lifetime_score: { type: 'number' },
        rewards: {
          type: 'object',
          properties: {
            total_earned: { type: 'number', minimum: 0 },
            session_earned: { type: 'number', minimum: 0 },
            lifetime_earned: { type: 'number', minimum: 0 },
            by_category: { type: 'object', patternProperties: { '^[a-z_]+$': { type: 'number', minimum: 0 } } },
          },
        },
        penalties: {
          type: 'object',
          properties: {
            total_incurred: { type: 'number', maximum: 0 },
            session_incurred: { type: 'number', maximum: 0 },
            lifetime_incurred: { type: 'number', maximum: 0 },
            by_category: { type: 'object', patternProperties: { '^[a-z_]+$': { type: 'number', maximum: 0 } } },
          },
        },
        metrics: {
          type: 'object',
          properties: {
            learning_efficiency: { type: 'number', minimum: 0, maximum: 100 },
            actions_total: { type: 'integer', minimum: 0 },
            actions_successful: { type: 'integer', minimum: 0 },
            actions_failed: { type: 'integer', minimum: 0 },
            success_rate: { type: 'number', minimum: 0, maximum: 100 },
            autonomy_level: { type: 'number', minimum: 0, maximum: 100 },
          },
        },
        checksum_validation: {
          type: 'object',
          required: ['calculated_total', 'stored_total', 'is_valid'],
          properties: {
            calculated_total: { type: 'number' },
            stored_total: { type: 'number' },
            is_valid: { type: 'boolean' },
            last_validated: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    transaction_log: {
      type: 'array',
      maxItems: PROGRESS_LOG_LIMIT,
      items: {
        type: 'object',
        required: ['id', 'timestamp', 'type', 'category', 'points', 'running_total'],
        properties: {
          id: { type: 'string', pattern: '^tx-[0-9]+$' },
          timestamp: { type: 'string', format: 'date-time' },
          type: { enum: ['reward', 'penalty'] },
          category: { type: 'string' },
          points: { type: 'number' },
          action: { type: 'string' },
          source_file: { type: 'string' },
          running_total: { type: 'number' },
          verified: { type: 'boolean' },
        },
      },
    },
  },
} as const;

/**
 * The seed's `progress.json` for a ledger: totals, rewards and penalties by category, metrics, the
 * checksum (validated now, `nowIso`) and the newest 1,000 transactions, newest first as in the
 * seed's example. `source_file` (the seed's field) names the source record as `source:source_ref`;
 * `autonomy_level` is left out because nothing in the ledger measures it.
 */
export function buildProgressJson(txs: readonly LedgerTransaction[], sessionStartMs: number, nowIso: string): Record<string, unknown> {
  return progressDocument(ledgerTotals(txs, sessionStartMs), ledgerMetrics(txs), txs.slice(-PROGRESS_LOG_LIMIT).reverse(), nowIso);
}

/**
 * The `progress.json` document from totals and metrics already computed (e.g. by a ledger fold)
 * and the newest transactions, newest first (at most `PROGRESS_LOG_LIMIT` are written).
 */
export function progressDocument(totals: LedgerTotals, metrics: LedgerMetrics, newestFirst: readonly LedgerTransaction[], nowIso: string): Record<string, unknown> {
  const newest = newestFirst.slice(0, PROGRESS_LOG_LIMIT);
  return {
    schema_version: PROGRESS_SCHEMA_VERSION,
    last_updated: nowIso,
    reinforcement_learning_ledger: {
      total_score: totals.total_score,
      session_score: totals.session_score,
      lifetime_score: totals.lifetime_score,
      rewards: totals.rewards,
      penalties: totals.penalties,
      metrics: {
        learning_efficiency: metrics.learning_efficiency,
        actions_total: metrics.actions_total,
        actions_successful: metrics.actions_successful,
        actions_failed: metrics.actions_failed,
        success_rate: metrics.success_rate,
      },
      checksum_validation: { ...totals.checksum, last_validated: nowIso },
    },
    transaction_log: newest.map((tx) => ({
      id: tx.id,
      timestamp: tx.timestamp,
      type: tx.type,
      category: tx.category,
      points: tx.points,
      action: tx.action,
      source_file: `${tx.source}:${tx.source_ref}`,
      running_total: tx.running_total,
      verified: tx.verified,
      hash: tx.hash,
    })),
  };
}
