import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import type { RedactionLevel } from '../model/redaction';
import { type StoredTrajectory, type TrajectoryService, withRedactedCommands } from '../trajectory-service';
import { TRAJECTORY_SERVICE } from '../../shared/service-names';
import { queryParam, type RequestBody, readRequestBody } from '../../shared/http/body';
import { boundedInt } from '../../shared/http/query-params';
import { callerOf } from '../../shared/http/route-access';

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

/** Trajectories GET /self-improve/trajectories lists at most. */
export const MAX_TRAJECTORIES_PAGE = 1_000;

/**
 * GET /self-improve/trajectories?limit=N: the stored trajectories, newest first, without
 * transcripts (see `listedTrajectory`); the newest N (1–1000, default 1000). `count` is how many
 * are stored in all.
 */
export async function handleGetTrajectories(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const limit = boundedInt(queryParam(req, 'limit'), 'limit', 1, MAX_TRAJECTORIES_PAGE, MAX_TRAJECTORIES_PAGE);
  if (!limit.ok) {
    res.status(400).json({ error: limit.message });
    return;
  }
  const service = runtime.getService<TrajectoryService>(TRAJECTORY_SERVICE);
  if (!service) {
    res.status(503).json({ error: 'trajectories service is not running' });
    return;
  }
  const all = await service.list();
  const level = service.settings.SELF_IMPROVE_TRAJECTORY_REDACTION;
  res.status(200).json({ count: all.length, trajectories: all.slice(0, limit.value).map((t) => listedTrajectory(t, level)) });
}

/** A stored trajectory as the list shows it: no transcript, commands redacted (also those stored before they were redacted at store time). */
function listedTrajectory({ transcript: _t, ...rest }: StoredTrajectory, level: RedactionLevel): Omit<StoredTrajectory, 'transcript'> {
  return { ...rest, evaluation: withRedactedCommands(rest.evaluation, level) };
}

export const postTrajectoryRoute: Route = { type: 'POST', path: '/trajectories', name: 'self-improve-trajectories', handler: handlePostTrajectory };
export const getTrajectoriesRoute: Route = { type: 'GET', path: '/trajectories', name: 'self-improve-trajectories-list', handler: handleGetTrajectories };
