import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { ingestText } from '../services/ingest-text';
import type { ScanOutcomeService } from '../services/scan-outcome-service';
import { SCAN_OUTCOME_SERVICE } from '../services/service-names';

function header(req: RouteRequest, name: string): string | undefined {
  const value = req.headers?.[name] ?? req.headers?.[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The request body as text: raw strings and buffers as they are, parsed JSON re-serialised. */
function bodyText(body: unknown): string | null {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (Array.isArray(body)) return JSON.stringify(body);
  if (body && typeof body === 'object') return JSON.stringify([body]);
  return null;
}

/**
 * POST /self-improve/outcomes: a JSON array (or one object) or JSONL of outcome rows.
 * 200 when every row was stored or already known; 400 with the refused rows (line, field,
 * message) otherwise — the good rows of that batch are kept, and sending it again is safe;
 * 413 when the body is larger than SELF_IMPROVE_MAX_BODY_BYTES.
 */
export async function handlePostOutcomes(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
  if (!service) {
    res.status(503).json({ error: 'scan-outcomes service is not running' });
    return;
  }
  const maxBytes = service.settings.SELF_IMPROVE_MAX_BODY_BYTES;
  const declared = Number(header(req, 'content-length') ?? 0);
  const text = bodyText(req.body);
  if (declared > maxBytes || (text !== null && Buffer.byteLength(text) > maxBytes)) {
    res.status(413).json({ error: `body larger than SELF_IMPROVE_MAX_BODY_BYTES (${maxBytes} bytes); split it into smaller batches` });
    return;
  }
  if (text === null || text.trim() === '') {
    res.status(400).json({ error: 'body must be a JSON array of outcome rows, one row object, or JSONL' });
    return;
  }
  const result = await ingestText(service, text);
  res.status(result.rejected.length === 0 ? 200 : 400).json(result);
}

export const outcomesRoute: Route = {
  type: 'POST',
  path: '/outcomes',
  name: 'self-improve-outcomes',
  handler: handlePostOutcomes,
};
