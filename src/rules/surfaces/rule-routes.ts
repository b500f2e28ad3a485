import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { z } from 'zod';
import { loadConfig } from '../../shared/config';
import { normaliseRuleId } from '../model/request';
import { RULE_STATUSES } from '../model/types';
import type { RuleBookService, RuleChange, RuleChangeRefusal, RuleFilter } from '../rule-book-service';
import { eventIngestReport, exportOrigin, isJsonArrayText, ruleListItem, rulesListing } from '../rule-reports';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { queryParam, readRequestBody } from '../../shared/http/body';

/** What the parse-error log names as the script that read an HTTP body. */
export const EVENTS_ROUTE_SCRIPT = 'POST /self-improve/events';

function bookOr503(runtime: IAgentRuntime, res: RouteResponse): RuleBookService | null {
  const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
  if (!book) res.status(503).json({ error: 'rule-book service is not running' });
  return book;
}

type BookHandler = (book: RuleBookService, req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime) => Promise<void>;

const withBook =
  (handler: BookHandler) =>
  async (req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> => {
    const book = bookOr503(runtime, res);
    if (book) await handler(book, req, res, runtime);
  };

/**
 * POST /self-improve/events: seed 003 events as a JSON array, one object, or JSONL. 200 when every
 * row was stored or already known; 400 with `rejected: [{ line | index, field, message }]`
 * otherwise (rows of a JSON array by 0-based `index`, JSONL by 1-based `line`; lines that are not
 * JSON have field `(line)` and go to the parse-error log) — the good rows are kept, and sending
 * the batch again is safe; 413 above SELF_IMPROVE_MAX_BODY_BYTES.
 */
export const handlePostEvents = withBook(async (book, req, res, runtime) => {
  const body = await readRequestBody(req, res, loadConfig(runtime).SELF_IMPROVE_MAX_BODY_BYTES, 'a JSON array of events, one event object, or JSONL (seed 003 event format)');
  if (body === null) return;
  const result = await book.ingestEventText(body.text, 'http', EVENTS_ROUTE_SCRIPT);
  const report = eventIngestReport(result, isJsonArrayText(body.text));
  res.status(report.rejected.length === 0 ? 200 : 400).json(report);
});

const flagValue = (field: string, values: readonly [string, ...string[]]) =>
  z.enum(values as [string, ...string[]], { errorMap: (_issue, ctx) => ({ message: `${field} must be one of ${values.join(', ')} (got ${JSON.stringify(ctx.data)})` }) });

/** Query of GET /self-improve/rules. */
const rulesQuerySchema = z.object({
  status: flagValue('status', [...RULE_STATUSES, 'all']).default('active'),
  include_flagged: flagValue('include_flagged', ['true', 'false']).default('true'),
  category: z.string().max(40, 'category must be at most 40 characters').optional(),
});

/** The rule filter a query asks for, or the first bad parameter's message. */
export function parseRulesQuery(query: Record<string, string | undefined>): { ok: true; filter: RuleFilter } | { ok: false; message: string } {
  const parsed = rulesQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'invalid query' };
  const q = parsed.data;
  return {
    ok: true,
    filter: {
      ...(q.status === 'all' ? {} : { status: q.status as RuleFilter['status'] }),
      ...(q.category === undefined ? {} : { category: q.category }),
      includeFlagged: q.include_flagged === 'true',
    },
  };
}

/**
 * GET /self-improve/rules?status=active|retired|candidate|rejected|all&category=C&include_flagged=true|false:
 * the rules (default: active ones, flagged included; `candidate`: what people taught in
 * conversation or unsigned imports brought, waiting for approval) in seed 003 field names with `conflicts_with`,
 * `confidence_now` and `injectable`, by type priority (NEVER, MUST, CHECK, PREFER) then id; the
 * MUST/NEVER conflicts among them; how many are flagged. 400 naming a bad parameter and its values.
 */
export const handleGetRules = withBook(async (book, req, res) => {
  const query = parseRulesQuery({ status: queryParam(req, 'status'), include_flagged: queryParam(req, 'include_flagged'), category: queryParam(req, 'category') });
  if (!query.ok) {
    res.status(400).json({ error: query.message });
    return;
  }
  res.status(200).json(rulesListing(book, query.filter, Date.now()));
});

/** GET /self-improve/rules/metrics: seed 003's metrics format (weekly, from the first event, lesson or rule, and totals). */
export const handleGetRuleMetrics = withBook(async (book, _req, res) => {
  res.status(200).json(await book.metrics(Date.now()));
});

/**
 * GET /self-improve/rules/export?category=C: seed 003's export document (every rule, or those of
 * category C), signed with SELF_IMPROVE_RULE_SIGNING_KEY; without one its `signature` says it is unsigned.
 */
export const handleExportRules = withBook(async (book, req, res, runtime) => {
  const category = queryParam(req, 'category');
  res.status(200).json(book.exportRules({ ...exportOrigin(runtime), ...(category === undefined ? {} : { category }) }));
});

/** HTTP status of each refusal of a candidate decision. */
const DECISION_STATUS: Record<RuleChangeRefusal, number> = { not_found: 404, not_candidate: 409, retired: 409, not_active: 409 };

/**
 * A decision on a candidate through HTTP. The caller is the operator (the plugin's routes ask for
 * the API key wherever one is configured), so it counts as a trusted person's: 200 with the rule
 * as listed; 400 for an id that is not like R-004; 404 for an unknown rule; 409 for a rule that is
 * not a candidate.
 */
const decideCandidate = (decide: (book: RuleBookService, id: string, nowMs: number) => Promise<RuleChange>) =>
  withBook(async (book, req, res) => {
    const raw = req.params?.id;
    const id = raw === undefined ? null : normaliseRuleId(raw);
    if (id === null) {
      res.status(400).json({ error: `the path must name a rule id like R-004 (got ${JSON.stringify(raw ?? '')})` });
      return;
    }
    const nowMs = Date.now();
    const changed = await decide(book, id, nowMs);
    if (!changed.ok) {
      res.status(DECISION_STATUS[changed.code]).json({ error: changed.message, code: changed.code });
      return;
    }
    res.status(200).json({ rule: ruleListItem(changed.rule, nowMs, book.settings.policy) });
  });

/** POST /self-improve/rules/:id/approve: a candidate becomes active (see `decideCandidate`). */
export const handleApproveRule = decideCandidate((book, id, nowMs) => book.approveRule(id, nowMs));

/** POST /self-improve/rules/:id/reject: a candidate is rejected, never used (see `decideCandidate`). */
export const handleRejectRule = decideCandidate((book, id, nowMs) => book.rejectRule(id, nowMs));

export const ruleRoutes: Route[] = [
  { type: 'POST', path: '/events', name: 'self-improve-events', handler: handlePostEvents },
  { type: 'GET', path: '/rules', name: 'self-improve-rules', handler: handleGetRules },
  { type: 'GET', path: '/rules/metrics', name: 'self-improve-rules-metrics', handler: handleGetRuleMetrics },
  { type: 'GET', path: '/rules/export', name: 'self-improve-rules-export', handler: handleExportRules },
  { type: 'POST', path: '/rules/:id/approve', name: 'self-improve-rules-approve', handler: handleApproveRule },
  { type: 'POST', path: '/rules/:id/reject', name: 'self-improve-rules-reject', handler: handleRejectRule },
];
