import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import type { TrajectoryService } from '../services/trajectory-service';
import { TRAJECTORY_SERVICE } from '../services/service-names';
import { queryParam, type RequestBody, readRequestBody } from './http-body';
import { callerOf } from './route-access';

/** A JSON array body (parsed by the server) is a list of steps: one JSONL line each. */
function trajectoryText(body: RequestBody): string {
  return Array.isArray(body.parsed) ? body.parsed.map((step) => JSON.stringify(step)).join('\n') : body.text;
}

/**
 * POST /self-improve/trajectories?id=ID: a plain session log or JSONL of steps (or a JSON array of
 * steps) -> scored (seed 004), redacted and stored. It pays (within the day's cap) only when the caller
 * presented a key the agent accepts: anyone else's log is scored and stored, never paid. 200 with the stored trajectory; 400 with it
 * and the refused lines when some lines were bad (the good ones were scored); 413 above
 * SELF_IMPROVE_MAX_BODY_BYTES.
 */
export async function handlePostTrajectory(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = runtime.getService<TrajectoryService>(TRAJECTORY_SERVICE);
  if (!service) {
    res.status(503).json({ error: 'trajectories service is not running' });
    return;
  }
  const body = await readRequestBody(req, res, service.settings.SELF_IMPROVE_MAX_BODY_BYTES, 'a session log, JSONL of steps, or a JSON array of steps');
  if (body === null) return;
  const { stored, errors } = await service.submit(trajectoryText(body), 'http', queryParam(req, 'id'), { pay: callerOf(req).authenticated });
  res.status(errors.length === 0 ? 200 : 400).json({ trajectory: stored, errors });
}

/** GET /self-improve/trajectories: the stored trajectories, newest first, without transcripts. */
export async function handleGetTrajectories(_req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = runtime.getService<TrajectoryService>(TRAJECTORY_SERVICE);
  if (!service) {
    res.status(503).json({ error: 'trajectories service is not running' });
    return;
  }
  const all = await service.list();
  res.status(200).json({ count: all.length, trajectories: all.map(({ transcript: _t, ...rest }) => rest) });
}

export const postTrajectoryRoute: Route = { type: 'POST', path: '/trajectories', name: 'self-improve-trajectories', handler: handlePostTrajectory };
export const getTrajectoriesRoute: Route = { type: 'GET', path: '/trajectories', name: 'self-improve-trajectories-list', handler: handleGetTrajectories };
