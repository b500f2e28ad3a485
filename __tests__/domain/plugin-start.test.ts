// pluginStarted against the runtime's service registry (a stand-in for the registry alone: nothing
// here touches storage). The real runtime's window is covered in runtime/surfaces-before-start.test.ts.
import { describe, expect, test } from 'bun:test';
import type { IAgentRuntime } from '@elizaos/core';
import { pluginStarted, serviceStartWaitMs } from '../../src/shared/plugin-start';
import { PLUGIN_SERVICES } from '../../src/shared/service-names';

type Status = 'pending' | 'registering' | 'registered' | 'failed' | 'unknown';

/** The registry part of AgentRuntime: services start when `start(type)` is called, or fail on `fail(type)`. */
function registry(initial: Status, settings: Record<string, string> = {}) {
  const status = new Map<string, Status>(PLUGIN_SERVICES.map((type) => [type, initial]));
  const handlers = new Map<string, { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const warnings: unknown[] = [];
  const handler = (type: string) => {
    let entry = handlers.get(type);
    if (!entry) {
      let resolve: (v: unknown) => void = () => undefined;
      let reject: (e: unknown) => void = () => undefined;
      const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Core rejects it whether or not anyone waits; only a waiter should see it.
      promise.catch(() => undefined);
      entry = { promise, resolve, reject };
      handlers.set(type, entry);
    }
    return entry;
  };
  const runtime = {
    agentId: 'agent',
    hasService: (type: string) => status.get(type) === 'registered',
    getServiceRegistrationStatus: (type: string) => status.get(type) ?? 'unknown',
    getServiceLoadPromise: (type: string) => handler(type).promise,
    logger: { warn: (...args: unknown[]) => warnings.push(args) },
    getSetting: (name: string) => settings[name] ?? null,
  } as unknown as IAgentRuntime;
  return {
    runtime,
    warnings,
    start(type: string) {
      status.set(type, 'registered');
      handler(type).resolve({});
    },
    fail(type: string) {
      status.set(type, 'failed');
      handler(type).reject(new Error('start failed'));
    },
  };
}

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

describe('pluginStarted', () => {
  test('resolves at once when every service has started', async () => {
    const r = registry('registered');
    expect(await settledWithin(pluginStarted(r.runtime, 60_000), 5)).toBe(true);
  });

  test('waits while a service is starting, then resolves when the last one has started; concurrent callers share one wait', async () => {
    const [first] = PLUGIN_SERVICES;
    const slow = registry('pending');
    for (const type of PLUGIN_SERVICES.slice(1)) slow.start(type);
    const one = pluginStarted(slow.runtime, 60_000);
    const two = pluginStarted(slow.runtime, 60_000);
    expect(two).toBe(one);
    expect(await settledWithin(one, 30)).toBe(false);
    slow.start(first);
    expect(await settledWithin(one, 30)).toBe(true);
    expect(slow.warnings).toEqual([]);
  });

  test('a service that failed, or was never registered, is not waited for', async () => {
    const [first, second] = PLUGIN_SERVICES;
    const partial = registry('registered');
    partial.fail(first);
    const wait = pluginStarted(partial.runtime, 60_000);
    expect(await settledWithin(wait, 30)).toBe(true);
    const unknown = registry('unknown');
    expect(await settledWithin(pluginStarted(unknown.runtime, 60_000), 30)).toBe(true);
    // Failing while waited for ends the wait too.
    const later = registry('pending');
    for (const type of PLUGIN_SERVICES.slice(2)) later.start(type);
    later.start(first);
    const waiting = pluginStarted(later.runtime, 60_000);
    expect(await settledWithin(waiting, 30)).toBe(false);
    later.fail(second);
    expect(await settledWithin(waiting, 30)).toBe(true);
    expect([...partial.warnings, ...unknown.warnings, ...later.warnings]).toEqual([]);
  });

  test('a start that never ends is waited for at most waitMs, then logged naming the services still missing', async () => {
    const r = registry('pending');
    for (const type of PLUGIN_SERVICES.slice(1)) r.start(type);
    const wait = pluginStarted(r.runtime, 40);
    expect(await settledWithin(wait, 5)).toBe(false);
    expect(await settledWithin(wait, 500)).toBe(true);
    expect(r.warnings).toHaveLength(1);
    expect(JSON.stringify(r.warnings[0])).toContain(PLUGIN_SERVICES[0]);
    // The next caller waits again (the service may still come).
    const again = pluginStarted(r.runtime, 40);
    expect(again).not.toBe(wait);
    await again;
  });

  test('without a waitMs it waits SELF_IMPROVE_SERVICE_START_WAIT_MS, read from the agent\'s settings', async () => {
    const r = registry('pending', { SELF_IMPROVE_SERVICE_START_WAIT_MS: '1000' });
    const wait = pluginStarted(r.runtime);
    expect(await settledWithin(wait, 300)).toBe(false);
    expect(await settledWithin(wait, 5_000)).toBe(true);
    expect(r.warnings).toHaveLength(1);
    expect(JSON.stringify(r.warnings[0])).toContain('services not started after 1000 ms');
  });
});

describe('serviceStartWaitMs', () => {
  test('the setting when given, 30 s when not', () => {
    expect(serviceStartWaitMs(registry('pending', { SELF_IMPROVE_SERVICE_START_WAIT_MS: '2500' }).runtime)).toBe(2_500);
    expect(serviceStartWaitMs(registry('pending').runtime)).toBe(30_000);
  });
});
