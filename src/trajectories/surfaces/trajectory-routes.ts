import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import type { RedactionLevel } from '../model/redaction';
import { type StoredTrajectory, type TrajectoryService, withRedactedCommands } from '../trajectory-service';
import { TRAJECTORY_SERVICE } from '../../shared/service-names';
import { queryParam, type RequestBody, readRequestBody } from '../../shared/http/body';
import { boundedInt, type Parsed } from '../../shared/http/query-params';
import { decodeCursor, encodeCursor, type PageCursor } from '../model/page-cursor';
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

/** Trajectories one page of GET /self-improve/trajectories (and the CLI) lists at most, and by default. */
export const MAX_TRAJECTORIES_PAGE = 1_000;
export const DEFAULT_TRAJECTORIES_PAGE = 50;

/** `limit` and `before` of a trajectories page, from their texts; otherwise a message naming the bad one and what it allows. */
export function trajectoryPageParams(rawLimit: string | undefined, rawBefore: string | undefined): Parsed<{ limit: number; before: PageCursor | null }> {
  const limit = boundedInt(rawLimit, 'limit', 1, MAX_TRAJECTORIES_PAGE, DEFAULT_TRAJECTORIES_PAGE);
  if (!limit.ok) return limit;
  const before = decodeCursor(rawBefore, 'before');
  return before.ok ? { ok: true, value: { limit: limit.value, before: before.value } } : before;
}

/**
 * GET /self-improve/trajectories?limit=N&before=CURSOR: one page of the stored trajectories,
 * newest first (by when they were stored), without transcripts (see `listedTrajectory`): N of them
 * (1–1000, default 50) before CURSOR (the previous page's `next_before`; the newest without).
 * `next_before` is null on the last page. `count`, `accepted` and `paid_sats` are over all stored
 * trajectories (database aggregates).
 */
export async function handleGetTrajectories(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const params = trajectoryPageParams(queryParam(req, 'limit'), queryParam(req, 'before'));
  if (!params.ok) {
    res.status(400).json({ error: params.message });
    return;
  }
  const service = runtime.getService<TrajectoryService>(TRAJECTORY_SERVICE);
  if (!service) {
    res.status(503).json({ error: 'trajectories service is not running' });
    return;
  }
  const [page, totals] = await Promise.all([service.page(params.value), service.totals()]);
  const level = service.settings.SELF_IMPROVE_TRAJECTORY_REDACTION;
  res.status(200).json({
    count: totals.count,
    accepted: totals.accepted,
    paid_sats: totals.paid_sats,
    trajectories: page.trajectories.map((t) => listedTrajectory(t, level)),
    next_before: page.next_before === null ? null : encodeCursor(page.next_before),
  });
}

/** A stored trajectory as the list shows it: no transcript, commands redacted (also those stored before they were redacted at store time). */
function listedTrajectory({ transcript: _t, ...rest }: StoredTrajectory, level: RedactionLevel): Omit<StoredTrajectory, 'transcript'> {
  return { ...rest, evaluation: withRedactedCommands(rest.evaluation, level) };
}

export const postTrajectoryRoute: Route = { type: 'POST', path: '/trajectories', name: 'self-improve-trajectories', handler: handlePostTrajectory };
export const getTrajectoriesRoute: Route = { type: 'GET', path: '/trajectories', name: 'self-improve-trajectories-list', handler: handleGetTrajectories };
