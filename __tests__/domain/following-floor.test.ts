import { describe, expect, test } from 'bun:test';
import { ContextIndex } from '../../src/elo/model/context-index';
import { EVERYDAY_SENTENCES } from '../../src/shared/everyday-sentences';
import { ContentRelevance, FLOOR_REFRESH_EVERY_MS, FollowingFloor } from '../../src/shared/scan-lesson-relevance';

/** Items of made-up words, unrelated to any everyday sentence. */
function contentOf(n: number): ContextIndex {
  const content = new ContextIndex();
  for (let i = 0; i < n; i++) content.put({ kind: 'file', id: `f${i}`, title: `zorblax${i} quintafel`, text: `vrelmox${i % 7} plindor${i} strakkel` });
  return content;
}

/** Turns of the event loop, enough for a recomputation in the background to end. */
async function turns(n = 40): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('a relevance floor follows its content off the prompt path', () => {
  test('a change answers the last floor at once, then the recomputed one, the same a fresh computation gives', async () => {
    const content = contentOf(100);
    let nowMs = 1_000_000;
    const relevance = new ContentRelevance(undefined, () => nowMs);
    const before = await relevance.floor(content);
    // Ten items that are everyday sentences: the floor rises to what such text reaches.
    for (const [i, sentence] of EVERYDAY_SENTENCES.slice(0, 10).entries()) content.put({ kind: 'note', id: `n${i}`, title: sentence, text: sentence });
    const fresh = await new ContentRelevance().floor(content);
    expect(fresh).toBeGreaterThan(before);
    // Within FLOOR_REFRESH_EVERY_MS of the last computation nothing is recomputed.
    expect(await relevance.floor(content)).toBe(before);
    await turns();
    expect(await relevance.floor(content)).toBe(before);
    nowMs += FLOOR_REFRESH_EVERY_MS;
    expect(await relevance.floor(content)).toBe(before);
    await turns();
    expect(await relevance.floor(content)).toBe(fresh);
  });

  test('content that doubled (or halved) since the last floor is recomputed at once', async () => {
    const content = contentOf(4);
    const relevance = new ContentRelevance();
    await relevance.floor(content);
    for (const [i, sentence] of EVERYDAY_SENTENCES.slice(0, 10).entries()) content.put({ kind: 'note', id: `n${i}`, title: sentence, text: sentence });
    expect(await relevance.floor(content)).toBe(await new ContentRelevance().floor(content));
  });

  test('changes made while a recomputation runs are caught by the next one', async () => {
    const content = contentOf(100);
    let nowMs = 1_000_000;
    const relevance = new ContentRelevance(undefined, () => nowMs);
    await relevance.floor(content);
    content.put({ kind: 'note', id: 'a', title: EVERYDAY_SENTENCES[0] as string, text: '' });
    nowMs += FLOOR_REFRESH_EVERY_MS;
    await relevance.floor(content);
    for (const [i, sentence] of EVERYDAY_SENTENCES.slice(1, 12).entries()) content.put({ kind: 'note', id: `b${i}`, title: sentence, text: sentence });
    await relevance.floor(content);
    await turns();
    nowMs += FLOOR_REFRESH_EVERY_MS;
    await relevance.floor(content);
    await turns();
    expect(await relevance.floor(content)).toBe(await new ContentRelevance().floor(content));
  });

  test('one computation at a time: calls while it runs answer with it (when they must wait) or with the last floor, and none starts another', async () => {
    let nowMs = 1_000_000;
    let computations = 0;
    const gates: (() => void)[] = [];
    const floor = new FollowingFloor(async () => {
      const n = ++computations;
      await new Promise<void>((resolve) => gates.push(resolve));
      return n / 10;
    }, () => nowMs);
    // The first floor: both calls wait for the one computation.
    const first = [floor.floor(1, 100), floor.floor(2, 100)];
    await turns(5);
    expect(computations).toBe(1);
    gates.shift()?.();
    expect(await Promise.all(first)).toEqual([0.1, 0.1]);
    // A change after FLOOR_REFRESH_EVERY_MS: the last floor at once, one computation in the background.
    nowMs += FLOOR_REFRESH_EVERY_MS;
    expect(await floor.floor(3, 110)).toBe(0.1);
    expect(await floor.floor(4, 120)).toBe(0.1);
    expect(computations).toBe(2);
    // The set doubled while it runs: this call must wait, and waits for the running computation.
    const doubled = floor.floor(5, 400);
    await turns(5);
    expect(computations).toBe(2);
    gates.shift()?.();
    expect(await doubled).toBe(0.2);
    // Recorded for the version and size it started with (3, 110): for 400 the set has still doubled, so the next call waits for a new one.
    const again = floor.floor(5, 400);
    await turns(5);
    expect(computations).toBe(3);
    gates.shift()?.();
    expect(await again).toBe(0.3);
    expect(await floor.floor(5, 400)).toBe(0.3);
    expect(computations).toBe(3);
  });
});
