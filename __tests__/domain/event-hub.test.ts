import { describe, expect, test } from 'bun:test';
import { EventHub } from '../../src/shared/event-hub';

interface TestEvents {
  said: { word: string };
  state: { items: readonly string[] };
}

function hubWithFailures() {
  const failures: { event: string; message: string }[] = [];
  const hub = new EventHub<TestEvents>((event, error) => failures.push({ event, message: error instanceof Error ? error.message : String(error) }));
  return { hub, failures };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

describe('EventHub', () => {
  test('handlers get the payload in the order they subscribed; handlers of other events are not called', async () => {
    const { hub } = hubWithFailures();
    const log: string[] = [];
    hub.on('said', (p) => void log.push(`first ${p.word}`));
    hub.on('said', (p) => void log.push(`second ${p.word}`));
    hub.on('state', () => void log.push('state'));
    await hub.emit('said', { word: 'hello' });
    expect(log).toEqual(['first hello', 'second hello']);
  });

  test('a handler that returns nothing has run when emit returns, before its promise is awaited', () => {
    const { hub } = hubWithFailures();
    const seen: string[] = [];
    hub.on('said', (p) => void seen.push(p.word));
    void hub.emit('said', { word: 'now' });
    expect(seen).toEqual(['now']);
  });

  test('an async handler is awaited before the next one starts, and emit resolves after the last', async () => {
    const { hub } = hubWithFailures();
    const log: string[] = [];
    const gate = deferred();
    hub.on('said', async () => {
      log.push('async starts');
      await gate.promise;
      log.push('async ends');
    });
    hub.on('said', () => void log.push('next'));
    let emitted = false;
    const emitting = hub.emit('said', { word: 'x' }).then(() => {
      emitted = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['async starts']);
    expect(emitted).toBe(false);
    gate.resolve();
    await emitting;
    expect(log).toEqual(['async starts', 'async ends', 'next']);
  });

  test('a handler that throws or rejects is reported with the event name; the others still run and emit resolves', async () => {
    const { hub, failures } = hubWithFailures();
    const log: string[] = [];
    hub.on('said', () => {
      throw new Error('thrown');
    });
    hub.on('said', async () => {
      throw new Error('rejected');
    });
    hub.on('said', (p) => void log.push(p.word));
    await hub.emit('said', { word: 'delivered' });
    expect(log).toEqual(['delivered']);
    expect(failures).toEqual([
      { event: 'said', message: 'thrown' },
      { event: 'said', message: 'rejected' },
    ]);
  });

  test('unsubscribing stops that handler only; unsubscribing twice changes nothing more', async () => {
    const { hub } = hubWithFailures();
    const log: string[] = [];
    const undo = hub.on('said', () => void log.push('gone'));
    hub.on('said', () => void log.push('kept'));
    expect(hub.hasHandlers('said')).toBe(true);
    undo();
    undo();
    await hub.emit('said', { word: 'x' });
    expect(log).toEqual(['kept']);
    expect(hub.hasHandlers('state')).toBe(false);
  });

  test('an announced state reaches the subscribers there are now and every one that subscribes later; changes follow by emit', async () => {
    const { hub } = hubWithFailures();
    const held = ['a', 'b'];
    const early: string[][] = [];
    hub.on('state', (p) => void early.push([...p.items]));
    const withdraw = hub.announce('state', () => ({ items: held }));
    expect(early).toEqual([['a', 'b']]);
    held.push('c');
    await hub.emit('state', { items: ['c'] });
    const late: string[][] = [];
    hub.on('state', (p) => void late.push([...p.items]));
    expect(late).toEqual([['a', 'b', 'c']]);
    expect(early).toEqual([['a', 'b'], ['c']]);
    withdraw();
    const afterWithdrawal: string[][] = [];
    hub.on('state', (p) => void afterWithdrawal.push([...p.items]));
    expect(afterWithdrawal).toEqual([]);
  });

  test('a failing late subscriber is reported like any failing handler', () => {
    const { hub, failures } = hubWithFailures();
    hub.announce('state', () => ({ items: [] }));
    hub.on('state', () => {
      throw new Error('late and broken');
    });
    expect(failures).toEqual([{ event: 'state', message: 'late and broken' }]);
  });
});
