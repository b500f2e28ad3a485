import { describe, expect, spyOn, test } from 'bun:test';
import {
  COLLECTOR_HINT_COST_SHARE,
  COLLECTOR_HINT_EVERY_MS,
  COLLECTOR_HINT_MAX_MS,
  COLLECTOR_HINT_RETRY_MAX_MS,
  COLLECTOR_HINT_RETRY_MS,
  CollectorHints,
  TurnQueue,
  collectorHints,
  inTurns,
  startTurn,
  yieldToEventLoop,
} from '../../src/shared/event-loop';
import { turnCounter } from '../helpers/turn-counter';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../src/shared/sql';

describe('CollectorHints', () => {
  test('every turn given to the event loop by long work passes by the process\'s collector hints', async () => {
    const hint = spyOn(collectorHints, 'hint').mockImplementation(() => false);
    try {
      await yieldToEventLoop();
      await yieldToEventLoop();
      expect(hint).toHaveBeenCalledTimes(2);
    } finally {
      hint.mockRestore();
    }
  });

  test('a hint runs in a turn of its own: after the turn the work yielded, and the work goes on a turn later', async () => {
    for (const [label, yielding] of [
      ['yieldToEventLoop', yieldToEventLoop],
      ['startTurn', startTurn],
      ['yieldToEventLoop in turns', () => inTurns(() => yieldToEventLoop())],
    ] as const) {
      for (const asked of [false, true]) {
        const turns = turnCounter();
        await new Promise((resolve) => setImmediate(resolve));
        const yieldedAt = turns.turn;
        let hintedAt = -1;
        const hint = spyOn(collectorHints, 'hint').mockImplementation(() => {
          hintedAt = turns.turn;
          return asked;
        });
        try {
          await yielding();
          const resumedAt = turns.turn;
          turns.stop();
          expect([label, asked, hintedAt > yieldedAt, resumedAt - hintedAt]).toEqual([label, asked, true, asked ? 1 : 0]);
        } finally {
          hint.mockRestore();
        }
      }
    }
  });

  test('no hint while hints are not wanted (no PGlite in the process); the first once they are', () => {
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      let wanted = false;
      const hints = new CollectorHints(() => wanted);
      const t = performance.now();
      expect(hints.hint(t, () => 0)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_EVERY_MS, () => 0)).toBe(false);
      expect(gc.mock.calls).toEqual([]);
      wanted = true;
      expect(hints.hint(t + COLLECTOR_HINT_EVERY_MS + 1, () => 0)).toBe(true);
      expect(gc.mock.calls).toEqual([[false]]);
    } finally {
      gc.mockRestore();
    }
  });

  test('the first hint asks the collector, the next right after it does not', () => {
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      const hints = new CollectorHints(() => true);
      expect(hints.hint()).toBe(true);
      expect(hints.hint()).toBe(false);
      expect(gc.mock.calls).toEqual([[false]]);
    } finally {
      gc.mockRestore();
    }
  });

  test(`asks Bun's collector to run concurrently, at most once every ${COLLECTOR_HINT_EVERY_MS} ms`, () => {
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      const hints = new CollectorHints(() => true);
      const t = performance.now();
      expect(hints.hint(t, () => 0)).toBe(true);
      expect(hints.hint(t + 1, () => 0)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_EVERY_MS - 1, () => 0)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_EVERY_MS, () => 0)).toBe(true);
      expect(gc.mock.calls).toEqual([[false], [false]]);
    } finally {
      gc.mockRestore();
    }
  });

  test(`a slow hint puts the next one off by ${COLLECTOR_HINT_COST_SHARE} times its own time, so hints take at most 1% of the thread`, () => {
    let fakeNow = 0;
    const gc = spyOn(Bun, 'gc').mockImplementation(() => {
      fakeNow += 6;
      return 0;
    });
    try {
      const hints = new CollectorHints(() => true);
      const t = performance.now();
      expect(hints.hint(t, () => fakeNow)).toBe(true);
      expect(hints.hint(t + COLLECTOR_HINT_EVERY_MS, () => fakeNow)).toBe(false);
      expect(hints.hint(t + 6 * COLLECTOR_HINT_COST_SHARE - 1, () => fakeNow)).toBe(false);
      expect(hints.hint(t + 6 * COLLECTOR_HINT_COST_SHARE, () => fakeNow)).toBe(true);
      expect(gc.mock.calls).toHaveLength(2);
    } finally {
      gc.mockRestore();
    }
  });

  test(`a hint over ${COLLECTOR_HINT_MAX_MS} ms stops the hints for ${COLLECTOR_HINT_RETRY_MS / 60_000} minutes`, () => {
    let fakeNow = 0;
    const gc = spyOn(Bun, 'gc').mockImplementation(() => {
      fakeNow += COLLECTOR_HINT_MAX_MS + 1;
      return 0;
    });
    try {
      const hints = new CollectorHints(() => true);
      const t = performance.now();
      expect(hints.hint(t, () => fakeNow)).toBe(true);
      expect(hints.hint(t + (COLLECTOR_HINT_MAX_MS + 1) * COLLECTOR_HINT_COST_SHARE, () => fakeNow)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_RETRY_MS - 1, () => fakeNow)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_RETRY_MS, () => fakeNow)).toBe(true);
      expect(gc.mock.calls).toHaveLength(2);
    } finally {
      gc.mockRestore();
    }
  });

  test(`each slow hint in a row stops them twice as long as the last (at most ${COLLECTOR_HINT_RETRY_MAX_MS / 60_000} minutes); a fast one starts over`, () => {
    let fakeNow = 0;
    let costMs = COLLECTOR_HINT_MAX_MS + 1;
    const gc = spyOn(Bun, 'gc').mockImplementation(() => {
      fakeNow += costMs;
      return 0;
    });
    try {
      const hints = new CollectorHints(() => true);
      let t = 0;
      expect(hints.hint(t, () => fakeNow)).toBe(true);
      const pauses: number[] = [];
      for (let slow = 0; slow < 8; slow++) {
        const pause = Math.min(2 ** slow * COLLECTOR_HINT_RETRY_MS, COLLECTOR_HINT_RETRY_MAX_MS);
        expect(hints.hint(t + pause - 1, () => fakeNow)).toBe(false);
        expect(hints.hint(t + pause, () => fakeNow)).toBe(true);
        pauses.push(pause / COLLECTOR_HINT_RETRY_MS);
        t += pause;
      }
      expect(pauses).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
      // A fast hint after them: the next slow one stops the hints for the first pause again.
      t += COLLECTOR_HINT_RETRY_MAX_MS;
      costMs = 1;
      expect(hints.hint(t, () => fakeNow)).toBe(true);
      costMs = COLLECTOR_HINT_MAX_MS + 1;
      t += COLLECTOR_HINT_EVERY_MS;
      expect(hints.hint(t, () => fakeNow)).toBe(true);
      expect(hints.hint(t + COLLECTOR_HINT_RETRY_MS - 1, () => fakeNow)).toBe(false);
      expect(hints.hint(t + COLLECTOR_HINT_RETRY_MS, () => fakeNow)).toBe(true);
    } finally {
      gc.mockRestore();
    }
  });
});

describe('TurnQueue: waiters go on one per turn of the event loop', () => {
  test('waiters resume oldest first, each in a turn of its own', async () => {
    const queue = new TurnQueue();
    const turns = turnCounter();
    const resumed: [string, number][] = [];
    const waiter = async (name: string, times: number) => {
      for (let i = 0; i < times; i++) {
        await queue.next();
        resumed.push([`${name}${i}`, turns.turn]);
      }
    };
    await Promise.all([waiter('a', 3), waiter('b', 3), waiter('c', 1)]);
    turns.stop();
    expect(resumed.map(([name]) => name)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'b2']);
    const at = resumed.map(([, t]) => t);
    for (let i = 1; i < at.length; i++) expect(at[i]).toBeGreaterThan(at[i - 1] as number);
    expect(queue.length).toBe(0);
  });
});

describe('inTurns: background work run beside other background work takes turns; everything else does not wait for it', () => {
  /** Yields `times` times, noting the turn it went on in after each. */
  const yielding = async (times: number, seen: number[], turns: { readonly turn: number }) => {
    for (let i = 0; i < times; i++) {
      await yieldToEventLoop();
      seen.push(turns.turn);
    }
  };

  test('two pieces of work in turns never go on in the same turn, through awaits and promise chains alike', async () => {
    const turns = turnCounter();
    const a: number[] = [];
    const b: number[] = [];
    await Promise.all([
      inTurns(() => yielding(4, a, turns)),
      // A chain built inside inTurns keeps taking turns in its later steps.
      inTurns(() =>
        Promise.resolve()
          .then(() => yielding(2, b, turns))
          .then(() => yielding(2, b, turns)),
      ),
    ]);
    turns.stop();
    expect(a).toHaveLength(4);
    expect(b).toHaveLength(4);
    // Every resumption had a turn of its own: no two share one.
    expect(new Set([...a, ...b]).size).toBe(8);
  });

  test('plain yields all go on in the next turn together, whatever waits in turns', async () => {
    const turns = turnCounter();
    const inTurn: number[] = [];
    const plain1: number[] = [];
    const plain2: number[] = [];
    const background = Promise.all([inTurns(() => yielding(6, inTurn, turns)), inTurns(() => yielding(6, inTurn, turns))]);
    await Promise.all([yielding(3, plain1, turns), yielding(3, plain2, turns)]);
    // The two plain pieces went on side by side, a turn apiece, not behind the background's queue.
    expect(plain1).toEqual(plain2);
    for (let i = 1; i < plain1.length; i++) expect((plain1[i] as number) - (plain1[i - 1] as number)).toBe(1);
    await background;
    turns.stop();
    expect(new Set(inTurn).size).toBe(12);
  });
});

describe("startTurn: the steps of the services' starts take turns with each other and with the work in turns", () => {
  test('five starts of three steps each and a background piece: no two steps share a turn, and what a start sets up keeps the plain yield', async () => {
    const turns = turnCounter();
    const steps: number[] = [];
    const setUp: Promise<[number, number]>[] = [];
    const start = async () => {
      for (let i = 0; i < 3; i++) {
        await startTurn();
        steps.push(turns.turn);
      }
      // Work a start leaves running (a timer's, a listener's) is not put in turns: its two yields go on in one turn.
      const resumedAt = () => yieldToEventLoop().then(() => turns.turn);
      setUp.push(Promise.all([resumedAt(), resumedAt()]));
    };
    const background: number[] = [];
    await Promise.all([
      ...Array.from({ length: 5 }, start),
      inTurns(async () => {
        for (let i = 0; i < 3; i++) {
          await yieldToEventLoop();
          background.push(turns.turn);
        }
      }),
    ]);
    const setUpAt = await Promise.all(setUp);
    turns.stop();
    expect(steps).toHaveLength(15);
    expect(new Set([...steps, ...background]).size).toBe(18);
    expect(setUpAt).toHaveLength(5);
    for (const [a, b] of setUpAt) expect(a).toBe(b);
  });
});

describe("queryRows in work run by inTurns: a statement's result goes on in a turn of its own", () => {
  // Results that come back together, as a PostgreSQL pool's connections hand them back in one turn.
  // Only the order of turns is under test here: the statement's text is never run.
  const answering = (rows: Record<string, unknown>[]): Db => ({
    execute: async () => ({ rows }),
    transaction: async () => {
      throw new Error('not used');
    },
  });

  test('three pieces of background work whose results arrive at once each go on in a turn of their own', async () => {
    const turns = turnCounter();
    const resumed: number[] = [];
    const piece = (n: number) =>
      inTurns(async () => {
        const rows = await queryRows<{ n: number }>(answering([{ n }]), sql`SELECT 1`);
        expect(rows).toEqual([{ n }]);
        resumed.push(turns.turn);
      });
    await Promise.all([piece(1), piece(2), piece(3)]);
    turns.stop();
    expect(resumed).toHaveLength(3);
    expect(new Set(resumed).size).toBe(3);
  });

  test('outside inTurns (requests, ingest, learning) the result goes on at once, in the turn it came in', async () => {
    const turns = turnCounter();
    const before = turns.turn;
    await queryRows(answering([]), sql`SELECT 1`);
    const after = turns.turn;
    turns.stop();
    expect(after).toBe(before);
  });
});
