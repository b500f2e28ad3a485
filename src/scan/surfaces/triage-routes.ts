import { DEFAULT_METRIC_SLICES, MAX_METRIC_SLICES, MAX_METRICS_K } from '../scan-metrics';
import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { predictText } from '../predict-text';
import { queryParam, readRequestBody } from '../../shared/http/body';
import { badRequest, serviceOr503 } from './outcome-routes';
import { boundedInt, timeParam } from '../../shared/http/query-params';

/**
 * POST /self-improve/triage: findings (JSON array, one object, or JSONL; a label, if present, is
 * ignored) -> one prediction per finding. 200 when every finding was valid; 400 with the
 * predictions that could be made and the refused rows (line, field, message) otherwise.
 */
export async function handlePostTriage(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = serviceOr503(runtime, res);
  if (!service) return;
  const body = await readRequestBody(req, res, service.settings.SELF_IMPROVE_MAX_BODY_BYTES, 'a JSON array of findings, one finding object, or JSONL');
  if (body === null) return;
  const { predictions, rejected } = await predictText(service, body.text);
  res.status(rejected.length === 0 ? 200 : 400).json({ predictions, rejected });
}

/**
 * GET /self-improve/metrics?now=ISO&k=N&slices=S: the quality metrics of the agent's findings
 * (definitions in the README); `k` 1–100000 (default SELF_IMPROVE_METRICS_K), `slices` 1–1000
 * (default 50). 400 naming a bad parameter.
 */
export async function handleGetMetrics(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = serviceOr503(runtime, res);
  if (!service) return;
  const now = timeParam(queryParam(req, 'now'), 'now');
  const k = boundedInt(queryParam(req, 'k'), 'k', 1, MAX_METRICS_K, service.settings.SELF_IMPROVE_METRICS_K);
  const slices = boundedInt(queryParam(req, 'slices'), 'slices', 1, MAX_METRIC_SLICES, DEFAULT_METRIC_SLICES);
  if (!now.ok) return badRequest(res, now.message);
  if (!k.ok) return badRequest(res, k.message);
  if (!slices.ok) return badRequest(res, slices.message);
  res.status(200).json(await service.metrics({ asOfMs: now.value, k: k.value, slices: slices.value }));
}

export const triageRoute: Route = { type: 'POST', path: '/triage', name: 'self-improve-triage', handler: handlePostTriage };
export const metricsRoute: Route = { type: 'GET', path: '/metrics', name: 'self-improve-metrics', handler: handleGetMetrics };
