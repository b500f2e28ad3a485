import type { IAgentRuntime, Service } from '@elizaos/core';

/** A service class as the runtime registers it: its static `serviceType` names it. */
export interface ServiceClass<S extends Service> {
  readonly serviceType: string;
  readonly prototype: S;
}

/** Waits until the runtime has started the service of class `type` and returns it, typed. */
export async function serviceOf<S extends Service>(runtime: IAgentRuntime, type: ServiceClass<S>): Promise<S> {
  return (await runtime.getServiceLoadPromise(type.serviceType as never)) as unknown as S;
}
