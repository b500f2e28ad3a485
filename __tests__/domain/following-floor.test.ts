import { describe, expect, test } from 'bun:test';
import { ContextIndex } from '../../src/elo/model/context-index';
import { EVERYDAY_SENTENCES } from '../../src/shared/everyday-sentences';
import { ContentRelevance, FLOOR_REFRESH_EVERY_MS } from '../../src/shared/scan-lesson-relevance';

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
});
