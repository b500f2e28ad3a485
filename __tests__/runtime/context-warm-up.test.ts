// After start the plugin assembles the prompt context for made-up messages in the background, so
// a process's first prompts do not run the providers' code cold; it writes nothing, and a runtime
// stopped meanwhile ends it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONTEXT_WARM_UP_CALLS, contextWarmedUp } from '../../src/context/context-warm-up';
import { eloBookOf } from '../../src/elo/elo-book-service';
import { startAgent } from '../helpers/runtime';

const OUTCOMES = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the prompt context is warmed up after start', () => {
  let dir: string;
  let logged: { search: number; updates: number };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'context-warm-'));
    const agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
    try {
      await agent.service.ingest(OUTCOMES);
      await agent.service.learnPending({ asOf: Date.parse('2026-11-20T00:00:00Z') });
      expect(agent.service.scanLessons.index.size).toBeGreaterThan(2);
      const book = await eloBookOf(agent.runtime);
      await book.flush();
      logged = { search: (await book.searchLogEntries(1_000)).length, updates: (await book.updateLogEntries(1_000)).length };
    } finally {
      await agent.close();
    }
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test(`${CONTEXT_WARM_UP_CALLS} contexts assembled once the lessons and ratings are at hand; no use announced, nothing written to the ELO logs`, async () => {
    const agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
    try {
      expect(await contextWarmedUp(agent.runtime)).toBe(CONTEXT_WARM_UP_CALLS);
      const book = await eloBookOf(agent.runtime);
      await book.flush();
      expect((await book.searchLogEntries(1_000)).length).toBe(logged.search);
      expect((await book.updateLogEntries(1_000)).length).toBe(logged.updates);
    } finally {
      await agent.close();
    }
  }, 60_000);

  test('a runtime closed at once ends the warm-up early, without a warning', async () => {
    const agent = await startAgent({ dataDir: dir, settings: { SELF_IMPROVE_LESSON_MODEL: 'off' } });
    const warnings: unknown[] = [];
    const warn = agent.runtime.logger.warn.bind(agent.runtime.logger);
    agent.runtime.logger.warn = ((...args: unknown[]) => {
      warnings.push(args);
      return (warn as (...a: unknown[]) => void)(...args);
    }) as typeof agent.runtime.logger.warn;
    await agent.close();
    expect(await contextWarmedUp(agent.runtime)).toBeLessThan(CONTEXT_WARM_UP_CALLS);
    expect(warnings.filter((w) => JSON.stringify(w).includes('warmed up'))).toEqual([]);
  }, 60_000);
});
