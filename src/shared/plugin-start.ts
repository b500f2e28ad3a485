import type { Action, Evaluator, IAgentRuntime, PluginEvents, Provider, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { PLUGIN_SERVICES } from './service-names';
import { serviceSettled } from './service-of';
import { loadConfig, settingsSchema } from './config';

/**
 * How long a surface (route, provider, action, evaluator, event handler) waits for the plugin's
 * services to start before it goes on without the ones still starting: the setting
 * SELF_IMPROVE_SERVICE_START_WAIT_MS (30 s by default). The runtime starts the services after
 * `initialize` returns, while the server already routes requests and messages to the agent; on the
 * 1M bench database their start takes about 1.5 s. The plugin's `init` refuses a bad value, so the
 * default here only serves a runtime whose settings cannot be read.
 */
export function serviceStartWaitMs(runtime: Pick<IAgentRuntime, 'getSetting'>): number {
  try {
    return loadConfig(runtime).SELF_IMPROVE_SERVICE_START_WAIT_MS;
  } catch {
    return settingsSchema.shape.SELF_IMPROVE_SERVICE_START_WAIT_MS.parse(undefined);
  }
}

const waits = new WeakMap<IAgentRuntime, Promise<void>>();

/** True when every service of the plugin has started (the usual case: no wait at all). */
function allStarted(runtime: IAgentRuntime): boolean {
  return PLUGIN_SERVICES.every((type) => runtime.hasService(type));
}

/**
 * Resolves once every service of the plugin has started (or failed to), or after `waitMs`, whichever
 * comes first; never rejects. Concurrent callers share one wait.
 */
export function pluginStarted(runtime: IAgentRuntime, waitMs = serviceStartWaitMs(runtime)): Promise<void> {
  if (allStarted(runtime)) return Promise.resolve();
  const shared = waits.get(runtime);
  if (shared) return shared;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
    (timer as { unref?: () => void }).unref?.();
  });
  const wait = Promise.race([Promise.all(PLUGIN_SERVICES.map((type) => serviceSettled(runtime, type))), timedOut]).then((result) => {
    clearTimeout(timer);
    waits.delete(runtime);
    if (result === 'timeout') {
      const missing = PLUGIN_SERVICES.filter((type) => !runtime.hasService(type));
      runtime.logger.warn({ src: 'plugin:self-improve', agentId: runtime.agentId, missing }, `services not started after ${waitMs} ms; going on without them`);
    }
  });
  waits.set(runtime, wait);
  return wait;
}

const wrapped = new WeakMap<object, object>();

/** The function a surface wrapper of this module calls (`fn` itself when it is not one): what the runtime holds can be told apart. */
export function unwrapped<F extends object>(fn: F): F {
  return (wrapped.get(fn) as F | undefined) ?? fn;
}

/** `fn`, called once the plugin's services have started (`pluginStarted`); `runtimeOf` finds the runtime among its arguments. */
function afterStart<A extends unknown[], R>(fn: (...args: A) => Promise<R> | R, runtimeOf: (...args: A) => IAgentRuntime): (...args: A) => Promise<R> {
  const wrapper = async (...args: A): Promise<R> => {
    const runtime = runtimeOf(...args);
    if (!allStarted(runtime)) await pluginStarted(runtime);
    return fn(...args);
  };
  wrapped.set(wrapper, fn);
  return wrapper;
}

const firstArgument = <A extends unknown[]>(...args: A) => args[0] as IAgentRuntime;

/** The route, its handler run once the services have started. */
export function routeAfterStart(route: Route): Route {
  const handler = route.handler;
  if (!handler) return route;
  return { ...route, handler: afterStart(handler, (_req: RouteRequest, _res: RouteResponse, runtime: IAgentRuntime) => runtime) };
}

/** The provider, its `get` run once the services have started. */
export function providerAfterStart(provider: Provider): Provider {
  return { ...provider, get: afterStart(provider.get, firstArgument) };
}

/** The action or evaluator, its `validate` and `handler` run once the services have started. */
export function actionAfterStart<T extends Action | Evaluator>(action: T): T {
  return { ...action, validate: afterStart(action.validate, firstArgument), handler: afterStart(action.handler, firstArgument) };
}

/** The event handlers, each run once the services have started (every payload carries its runtime). */
export function eventsAfterStart(events: PluginEvents): PluginEvents {
  const wrapped: Record<string, unknown[]> = {};
  for (const [event, handlers] of Object.entries(events)) {
    wrapped[event] = ((handlers ?? []) as ((payload: { runtime: IAgentRuntime }) => Promise<void>)[]).map((handler) => afterStart(handler, (payload) => payload.runtime));
  }
  return wrapped as PluginEvents;
}
