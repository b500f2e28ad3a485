import { describe, expect, spyOn, test } from 'bun:test';
import {
  COLLECTOR_HINT_COST_SHARE,
  COLLECTOR_HINT_EVERY_MS,
  COLLECTOR_HINT_MAX_MS,
  COLLECTOR_HINT_RETRY_MS,
  CollectorHints,
  collectorHints,
  yieldToEventLoop,
} from '../../src/shared/event-loop';

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

  test('the first hint asks the collector, the next right after it does not', () => {
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      const hints = new CollectorHints();
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
      const hints = new CollectorHints();
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
      const hints = new CollectorHints();
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
      const hints = new CollectorHints();
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
});
