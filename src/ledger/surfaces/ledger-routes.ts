import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import type { RewardLedgerService } from '../reward-ledger-service';
import { REWARD_LEDGER_SERVICE } from '../../shared/service-names';
import { DASHBOARD_HTML } from '../../dashboard/page';
import { queryParam } from '../../shared/http/body';

function ledgerOr503(runtime: IAgentRuntime, res: RouteResponse): RewardLedgerService | null {
  const ledger = runtime.getService<RewardLedgerService>(REWARD_LEDGER_SERVICE);
  if (!ledger) res.status(503).json({ error: 'reward-ledger service is not running' });
  return ledger;
}

type LedgerHandler = (ledger: RewardLedgerService, req: RouteRequest, res: RouteResponse) => Promise<void>;

const withLedger =
  (handler: LedgerHandler) =>
  async (req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> => {
    const ledger = ledgerOr503(runtime, res);
    if (ledger) await handler(ledger, req, res);
  };

/** GET /self-improve/ledger/score: totals (total, session, lifetime), rewards and penalties, checksum. */
export const handleLedgerScore = withLedger(async (ledger, _req, res) => {
  res.status(200).json(await ledger.totals());
});

/** GET /self-improve/ledger/categories: rewards and penalties by category. */
export const handleLedgerCategories = withLedger(async (ledger, _req, res) => {
  const totals = await ledger.totals();
  res.status(200).json({ rewards: totals.rewards.by_category, penalties: totals.penalties.by_category });
});

/** GET /self-improve/ledger/metrics: actions, success rate, learning efficiency. */
export const handleLedgerMetrics = withLedger(async (ledger, _req, res) => {
  res.status(200).json(await ledger.metrics());
});

/** GET /self-improve/ledger/history?limit=N&category=C: transactions, newest first (limit 1–1000, default 10). */
export const handleLedgerHistory = withLedger(async (ledger, req, res) => {
  const rawLimit = queryParam(req, 'limit');
  const limit = rawLimit === undefined ? 10 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) {
    res.status(400).json({ error: `limit must be an integer from 1 to 1000 (got ${JSON.stringify(rawLimit)})` });
    return;
  }
  const category = queryParam(req, 'category');
  res.status(200).json({ transactions: await ledger.history({ limit, ...(category ? { category } : {}) }) });
});

/** GET /self-improve/ledger/verify: the chain, checksums and head; names the first bad transaction. */
export const handleLedgerVerify = withLedger(async (ledger, _req, res) => {
  res.status(200).json(await ledger.verify());
});

/**
 * GET /self-improve/ledger/checkpoint: a signed head checkpoint (sequence, running total, head hash,
 * time, HMAC with SELF_IMPROVE_LEDGER_SECRET) of the ledger as it stands, after verifying it; 409
 * when no secret is set or the ledger does not verify. Keep it outside the database, and check it
 * later with `self-improve ledger verify --checkpoint FILE`.
 */
export const handleLedgerCheckpoint = withLedger(async (ledger, _req, res) => {
  const made = await ledger.checkpoint();
  if (made.ok) res.status(200).json(made.checkpoint);
  else res.status(409).json({ error: made.message, code: made.code });
});

/** GET /self-improve/progress.json: the seed's progress.json (newest 1,000 transactions). */
export const handleProgressJson = withLedger(async (ledger, _req, res) => {
  res.status(200).json(await ledger.progressJson());
});

/** GET /self-improve/dashboard: the dashboard about learning (HTML; also a panel in the agent's web UI). */
export async function handleDashboard(_req: RouteRequest, res: RouteResponse): Promise<void> {
  res.setHeader?.('Content-Type', 'text/html; charset=utf-8');
  res.status(200).send(DASHBOARD_HTML);
}

export const ledgerRoutes: Route[] = [
  { type: 'GET', path: '/dashboard', name: 'Self-improve', public: true, handler: handleDashboard },
  { type: 'GET', path: '/ledger/score', name: 'self-improve-ledger-score', handler: handleLedgerScore },
  { type: 'GET', path: '/ledger/categories', name: 'self-improve-ledger-categories', handler: handleLedgerCategories },
  { type: 'GET', path: '/ledger/metrics', name: 'self-improve-ledger-metrics', handler: handleLedgerMetrics },
  { type: 'GET', path: '/ledger/history', name: 'self-improve-ledger-history', handler: handleLedgerHistory },
  { type: 'GET', path: '/ledger/verify', name: 'self-improve-ledger-verify', handler: handleLedgerVerify },
  { type: 'GET', path: '/ledger/checkpoint', name: 'self-improve-ledger-checkpoint', handler: handleLedgerCheckpoint },
  { type: 'GET', path: '/progress.json', name: 'self-improve-progress-json', handler: handleProgressJson },
];
