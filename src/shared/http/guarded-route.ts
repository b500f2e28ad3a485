import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { decideAccess } from './route-access';
import { errorText } from '../error-text';

/**
 * The route as the plugin serves it: the access rule first (`decideAccess`: 401 without a key where
 * one is needed), then a handler that never rejects. The 1.7.2 server calls plugin handlers without
 * awaiting them, so a rejection would be unhandled (and end a Node process); instead it is logged
 * and answered with 500, the details left to the agent's log.
 */
export function guardedRoute(route: Route): Route {
  const handler = route.handler;
  if (!handler) return route;
  return {
    ...route,
    handler: async (req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> => {
      const where = `${route.type} ${route.path}`;
      try {
        const access = decideAccess(route, req, runtime);
        if (!access.ok) {
          res.status(access.status).json({ error: access.error });
          return;
        }
        await handler(req, res, runtime);
      } catch (error) {
        runtime.logger.error({ src: 'plugin:self-improve:http', agentId: runtime.agentId, route: where, error: errorText(error) }, 'route failed');
        if (!res.headersSent) res.status(500).json({ error: `internal error while handling ${where}; the agent's log has the details` });
      }
    },
  };
}
