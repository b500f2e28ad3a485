import type { AgentRuntime, Route, RouteRequest } from '@elizaos/core';
import selfImprovePlugin from '../src/index';
import { recordingResponse } from '../__tests__/helpers/route-response';
import { trajectoryServiceOf } from '../src/trajectories/trajectory-service';
import { encodeCursor, type PageCursor } from '../src/trajectories/model/page-cursor';
import { type Timing, timeCalls } from './scale-calls';

/** The plugin's GET routes timed as the scale benchmark times them: by bench/scale.ts in its own process, and by bench/scale-fresh.ts in an agent's. */

/**
 * Calls of each route a step times: with 1,000 the p99 is the tenth slowest, as for the providers
 * (`PROVIDER_CALLS`). With 100 (until the ninth whole run) it was the second slowest, so the first
 * call on a cold cache and one pause of the collector decided it (`/lessons` 1.43 -> 5.96 ms in the
 * eighth run: its first call, 5.96 ms, and one of 22 ms); with 30 it was the slowest.
 */
export const ROUTE_CALLS = 1_000;
/** Routes whose cost is the whole ledger by definition (a full verification): reported apart. A checkpoint verifies from the last reconciliation's mark, so it is measured with the others. */
export const WHOLE_LEDGER_ROUTES = new Set(['/ledger/verify']);
const NOT_MEASURED = new Set(['/dashboard']);
/**
 * Routes asked with a query besides as they are (named by the query, or by `name` when the query is
 * found at run time): those whose query changes what is read. A query given as a function is asked
 * of the runtime once, before the calls (a cursor in the middle of the stored trajectories).
 */
const QUERY_VARIANTS: { path: string; query: Record<string, string> | ((runtime: AgentRuntime) => Promise<Record<string, string>>); name?: string }[] = [
  { path: '/lessons', query: { sort: 'elo' } },
  { path: '/lessons', query: { limit: '100' } },
  { path: '/ledger/history', query: { limit: '1000' } },
  { path: '/ledger/history', query: { category: 'false_positive' } },
  { path: '/metrics/weekly', query: { weeks: '52' } },
  // A full page at every step (10k outcomes store 100 trajectories).
  { path: '/trajectories', query: { limit: '100' } },
  { path: '/trajectories', query: middleOfTrajectories, name: '/trajectories?before=(the middle)' },
];

/**
 * p50/p99 of every GET route of the plugin without a path parameter (but the dashboard's page), as
 * it is and with each of its `QUERY_VARIANTS`, called in process without HTTP as the server calls
 * the handler: what the plugin's own code costs. Each is called ROUTE_CALLS times, but a whole
 * ledger's (`WHOLE_LEDGER_ROUTES`) 3 times, or not at all when `wholeLedger` is false.
 */
export async function measureRoutes(runtime: AgentRuntime, options: { wholeLedger: boolean } = { wholeLedger: true }): Promise<Record<string, Timing>> {
  const routes = (selfImprovePlugin.routes ?? []).filter((r: Route) => r.type === 'GET' && !NOT_MEASURED.has(r.path) && !r.path.includes(':'));
  const asked = [
    ...routes.map((route) => ({ route, query: {} as Record<string, string>, name: route.path })),
    ...(await Promise.all(
      QUERY_VARIANTS.map(async ({ path, query, name }) => {
        const route = getRoute(path);
        const asked = typeof query === 'function' ? await query(runtime) : query;
        return { route, query: asked, name: name ?? `${path}?${new URLSearchParams(asked)}` };
      }),
    )),
  ];
  const out: Record<string, Timing> = {};
  for (const { route, query, name } of asked) {
    if (!options.wholeLedger && WHOLE_LEDGER_ROUTES.has(name)) continue;
    const calls = WHOLE_LEDGER_ROUTES.has(name) ? 3 : ROUTE_CALLS;
    out[name] = await timeCalls(name, calls, () => askRoute(runtime, route, name, query));
  }
  return out;
}

/** The `before` cursor of the page of 1,000 about halfway down the stored trajectories, newest first (every page walked to find it). */
async function middleOfTrajectories(runtime: AgentRuntime): Promise<Record<string, string>> {
  const trajectories = await trajectoryServiceOf(runtime);
  const cursors: PageCursor[] = [];
  for (let before: PageCursor | null = null; ; ) {
    const page = await trajectories.page({ limit: 1_000, before });
    if (!page.next_before) break;
    before = page.next_before;
    cursors.push(before);
  }
  const middle = cursors[Math.floor(cursors.length / 2)];
  return middle ? { before: encodeCursor(middle) } : {};
}

/** The plugin's GET route at `path`; throws when there is none. */
export function getRoute(path: string): Route {
  const route = (selfImprovePlugin.routes ?? []).find((r: Route) => r.type === 'GET' && r.path === path);
  if (!route) throw new Error(`no GET ${path} route`);
  return route;
}

/** One GET of `route`'s handler as the server calls it, with `query`; throws on a 4xx or 5xx (`name` says which). */
export async function askRoute(runtime: AgentRuntime, route: Route, name: string, query: Record<string, string>): Promise<void> {
  const { res, sent } = recordingResponse();
  const req = { method: 'GET', path: route.path, url: name, query, params: {}, headers: {} } as unknown as RouteRequest;
  await route.handler?.(req, res, runtime);
  if (sent.status >= 400) throw new Error(`GET ${name} answered ${sent.status}: ${JSON.stringify(sent.body).slice(0, 300)}`);
}
