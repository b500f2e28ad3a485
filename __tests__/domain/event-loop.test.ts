import { describe, expect, spyOn, test } from 'bun:test';
import { COLLECTOR_HINT_COST_SHARE, COLLECTOR_HINT_EVERY_MS, COLLECTOR_HINT_MAX_MS, COLLECTOR_HINT_RETRY_MS, hintCollector, yieldToEventLoop } from '../../src/shared/event-loop';

describe('hintCollector', () => {
  test('a turn given to the event loop by long work hints the collector when none was given for a while, and the next turn does not', async () => {
    await Bun.sleep(COLLECTOR_HINT_EVERY_MS + 20);
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      await yieldToEventLoop();
      await yieldToEventLoop();
      expect(gc.mock.calls).toEqual([[false]]);
    } finally {
      gc.mockRestore();
    }
  });

  test(`asks Bun's collector to run concurrently, at most once every ${COLLECTOR_HINT_EVERY_MS} ms`, () => {
    const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
    try {
      const t = performance.now() + COLLECTOR_HINT_EVERY_MS;
      expect(hintCollector(t)).toBe(true);
      expect(hintCollector(t + 1)).toBe(false);
      expect(hintCollector(t + COLLECTOR_HINT_EVERY_MS - 1)).toBe(false);
      expect(hintCollector(t + COLLECTOR_HINT_EVERY_MS)).toBe(true);
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
      const t = performance.now() + 10 * COLLECTOR_HINT_RETRY_MS;
      expect(hintCollector(t, () => fakeNow)).toBe(true);
      expect(hintCollector(t + COLLECTOR_HINT_EVERY_MS, () => fakeNow)).toBe(false);
      expect(hintCollector(t + 6 * COLLECTOR_HINT_COST_SHARE - 1, () => fakeNow)).toBe(false);
      expect(hintCollector(t + 6 * COLLECTOR_HINT_COST_SHARE, () => fakeNow)).toBe(true);
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
      const t = performance.now() + 100 * COLLECTOR_HINT_RETRY_MS;
      expect(hintCollector(t, () => fakeNow)).toBe(true);
      expect(hintCollector(t + (COLLECTOR_HINT_MAX_MS + 1) * COLLECTOR_HINT_COST_SHARE, () => fakeNow)).toBe(false);
      expect(hintCollector(t + COLLECTOR_HINT_RETRY_MS - 1, () => fakeNow)).toBe(false);
      expect(hintCollector(t + COLLECTOR_HINT_RETRY_MS, () => fakeNow)).toBe(true);
      expect(gc.mock.calls).toHaveLength(2);
    } finally {
      gc.mockRestore();
    }
  });
});
