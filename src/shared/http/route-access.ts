import { createHash, timingSafeEqual } from 'node:crypto';
import type { IAgentRuntime, Route, RouteRequest } from '@elizaos/core';
import { loadConfig } from '../config';
import { header } from './body';

/** Who called a route: `authenticated` when the request presented a key this agent accepts. */
export interface Caller {
  authenticated: boolean;
}

const callers = new WeakMap<RouteRequest, Caller>();

/** The caller of a request that passed the access check (unauthenticated for a request that did not go through it). */
export function callerOf(req: RouteRequest): Caller {
  return callers.get(req) ?? { authenticated: false };
}

/** Keys this agent accepts: the server's ELIZA_SERVER_AUTH_TOKEN and the plugin's SELF_IMPROVE_API_TOKEN, whichever are set. */
function acceptedKeys(runtime: IAgentRuntime): string[] {
  const serverKey = process.env.ELIZA_SERVER_AUTH_TOKEN;
  return [serverKey, loadConfig(runtime).SELF_IMPROVE_API_TOKEN].filter((k): k is string => typeof k === 'string' && k !== '');
}

function presentedKeys(req: RouteRequest): string[] {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
  return [header(req, 'x-api-key'), bearer].filter((k): k is string => typeof k === 'string' && k !== '');
}

const digest = (text: string) => createHash('sha256').update(text).digest();
/** Compares in constant time (over digests, so lengths leak nothing either). */
const sameKey = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** Whether a route changes state (every method but GET) or only reads. */
export const isWriteRoute = (route: Route) => route.type !== 'GET';

export type AccessDecision = { ok: true; caller: Caller } | { ok: false; status: 401; error: string };

/**
 * The access rule of every plugin route, at every path the server exposes it (under /api/agents/…
 * and at the server root): when a key is configured, a write needs one of the accepted keys; a read
 * needs one only when SELF_IMPROVE_PUBLIC_READS is false; the dashboard page (a public panel, no
 * data of its own) never does. With no key configured everything is open, and no caller counts as
 * authenticated.
 */
export function decideAccess(route: Route, req: RouteRequest, runtime: IAgentRuntime): AccessDecision {
  const accepted = acceptedKeys(runtime);
  const presented = presentedKeys(req);
  const authenticated = accepted.length > 0 && presented.some((p) => accepted.some((a) => sameKey(p, a)));
  const caller = { authenticated };
  const needsKey = accepted.length > 0 && route.public !== true && (isWriteRoute(route) || loadConfig(runtime).SELF_IMPROVE_PUBLIC_READS === 'false');
  if (needsKey && !authenticated) {
    return {
      ok: false,
      status: 401,
      error: `${route.type} /self-improve${route.path} needs a key: send X-API-KEY (or Authorization: Bearer) with the server's ELIZA_SERVER_AUTH_TOKEN or the plugin's SELF_IMPROVE_API_TOKEN`,
    };
  }
  callers.set(req, caller);
  return { ok: true, caller };
}
