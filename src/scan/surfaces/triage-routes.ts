import { MAX_METRIC_SLICES } from '../scan-metrics';
import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { predictText } from '../predict-text';
import { queryParam, readRequestBody } from '../../shared/http/body';
import { serviceOr503 } from './outcome-routes';

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
  const { predictions, rejected } = predictText(service, body.text);
  res.status(rejected.length === 0 ? 200 : 400).json({ predictions, rejected });
}

/** GET /self-improve/metrics?now=ISO&k=N&slices=S: the quality metrics of the agent's findings (definitions in the README). */
export async function handleGetMetrics(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = serviceOr503(runtime, res);
  if (!service) return;
  const now = queryParam(req, 'now');
  const k = queryParam(req, 'k');
  const asOfMs = now === undefined ? Date.now() : Date.parse(now);
  if (Number.isNaN(asOfMs)) {
    res.status(400).json({ error: `now must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got ${JSON.stringify(now)})` });
    return;
  }
  if (k !== undefined && !(Number.isInteger(Number(k)) && Number(k) >= 1)) {
    res.status(400).json({ error: `k must be a positive integer (got ${JSON.stringify(k)})` });
    return;
  }
  const slices = queryParam(req, 'slices');
  if (slices !== undefined && !(/^[0-9]+$/.test(slices) && Number(slices) >= 1 && Number(slices) <= MAX_METRIC_SLICES)) {
    res.status(400).json({ error: `slices must be an integer from 1 to ${MAX_METRIC_SLICES} (got ${JSON.stringify(slices)})` });
    return;
  }
  res.status(200).json(await service.metrics({ asOfMs, ...(k === undefined ? {} : { k: Number(k) }), ...(slices === undefined ? {} : { slices: Number(slices) }) }));
}

export const triageRoute: Route = { type: 'POST', path: '/triage', name: 'self-improve-triage', handler: handlePostTriage };
export const metricsRoute: Route = { type: 'GET', path: '/metrics', name: 'self-improve-metrics', handler: handleGetMetrics };
