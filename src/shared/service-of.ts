import type { IAgentRuntime, Service } from '@elizaos/core';

/** A service class as the runtime registers it: its static `serviceType` names it. */
export interface ServiceClass<S extends Service> {
  readonly serviceType: string;
  readonly prototype: S;
}

type RegistrationStatus = 'pending' | 'registering' | 'registered' | 'failed' | 'unknown';
/** `AgentRuntime` has it; the `IAgentRuntime` interface of 1.7.2 does not declare it. */
type WithStatus = { getServiceRegistrationStatus?: (serviceType: string) => RegistrationStatus };

// Once a service has failed, the runtime forgets its load promise, and `getServiceLoadPromise`
// then makes a new one that never settles: both waits below read the registration status first.

/** Where the runtime is with starting the service: `unknown` when nothing registered it (yet). */
function registrationStatus(runtime: IAgentRuntime, type: string): RegistrationStatus {
  return (runtime as WithStatus).getServiceRegistrationStatus?.(type) ?? 'pending';
}

/** Resolves once the service has started or failed; at once when it is not coming (never registered, or failed). */
export function serviceSettled(runtime: IAgentRuntime, type: string): Promise<unknown> {
  if (runtime.hasService(type)) return Promise.resolve();
  const status = registrationStatus(runtime, type);
  if (status === 'failed' || status === 'unknown') return Promise.resolve();
  return runtime.getServiceLoadPromise(type as never).catch(() => undefined);
}

/** Waits until the runtime has started the service of class `type` and returns it, typed. Rejects when its start failed, before or during the wait. */
export async function serviceOf<S extends Service>(runtime: IAgentRuntime, type: ServiceClass<S>): Promise<S> {
  if (!runtime.hasService(type.serviceType) && registrationStatus(runtime, type.serviceType) === 'failed') {
    throw new Error(`the ${type.serviceType} service failed to start (the agent's log says why)`);
  }
  return (await runtime.getServiceLoadPromise(type.serviceType as never)) as unknown as S;
}
