import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { ingestText } from '../../shared/ingest-text';
import { ingestSarif, parseSarifText } from '../sarif-ingest';
import type { ScanOutcomeService } from '../scan-outcome-service';
import { SCAN_OUTCOME_SERVICE } from '../../shared/service-names';
import { header, queryParam, readRequestBody } from '../../shared/http/body';

/** The running service, or null after answering 503. */
export function serviceOr503(runtime: IAgentRuntime, res: RouteResponse): ScanOutcomeService | null {
  const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
  if (!service) res.status(503).json({ error: 'scan-outcomes service is not running' });
  return service;
}

/** Answers 400 with `message` as the error. */
export function badRequest(res: RouteResponse, message: string): void {
  res.status(400).json({ error: message });
}

async function handleSarif(req: RouteRequest, res: RouteResponse, service: ScanOutcomeService): Promise<void> {
  const body = await readRequestBody(req, res, service.settings.SELF_IMPROVE_MAX_BODY_BYTES, 'a SARIF 2.1.0 log');
  if (body === null) return;
  let doc: unknown = body.parsed;
  if (doc === undefined) {
    try {
      doc = parseSarifText(body.text);
    } catch (error) {
      res.status(400).json({ error: (error as Error).message });
      return;
    }
  }
  const now = queryParam(req, 'now');
  if (now !== undefined && Number.isNaN(Date.parse(now))) {
    res.status(400).json({ error: `now must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got ${JSON.stringify(now)})` });
    return;
  }
  const result = await ingestSarif(service, doc, {
    ts: new Date(now ?? Date.now()).toISOString(),
    project: queryParam(req, 'project'),
    model_provider: queryParam(req, 'model_provider'),
    model_name: queryParam(req, 'model_name'),
  });
  res.status(result.rejected.length === 0 ? 200 : 400).json(result);
}

/**
 * POST /self-improve/outcomes: a JSON array (or one object) or JSONL of outcome rows; or, with
 * `Content-Type: application/sarif+json`, a SARIF 2.1.0 log (query `project`, `model_provider`,
 * `model_name`, `now` fill in what the log does not name). 200 when everything was stored or
 * already known; 400 with the refused rows (line or SARIF path, field, message) otherwise — the
 * good rows of that batch are kept, and sending it again is safe; 413 when the body is larger
 * than SELF_IMPROVE_MAX_BODY_BYTES.
 */
export async function handlePostOutcomes(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = serviceOr503(runtime, res);
  if (!service) return;
  if (/application\/sarif\+json/i.test(header(req, 'content-type') ?? '')) {
    await handleSarif(req, res, service);
    return;
  }
  const body = await readRequestBody(req, res, service.settings.SELF_IMPROVE_MAX_BODY_BYTES, 'a JSON array of outcome rows, one row object, or JSONL');
  if (body === null) return;
  const result = await ingestText(service, body.text);
  res.status(result.rejected.length === 0 ? 200 : 400).json(result);
}

export const outcomesRoute: Route = {
  type: 'POST',
  path: '/outcomes',
  name: 'self-improve-outcomes',
  handler: handlePostOutcomes,
};
