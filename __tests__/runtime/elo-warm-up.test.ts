// A book larger than what start-up reads (5,000 items) comes into memory in the background after
// the service is ready: start-up holds the newest 5,000, the warm-up brings in the rest up to the
// bound, newest most recently used, items used at the same instant included, and every rating
// answers the same before, during and after it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Service } from '@elizaos/core';
import { bootRuntime } from '../../src/cli/boot';
import { type EloBookService, eloBookOf } from '../../src/elo/elo-book-service';
import selfImprovePlugin from '../../src/index';
import { ruleBookOf } from '../../src/rules/rule-book-service';
import { RULE_BOOK_SERVICE } from '../../src/shared/service-names';
import { startAgent, type TestAgent } from '../helpers/runtime';

const ITEMS = 12_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
/** Items 0..11,999; every block of 1,000 used at one instant, so the pages meet ties at their edges. */
const usedAt = (i: number) => T0 + Math.floor(i / 1_000) * 60_000;
const id = (i: number) => `src/file-${i}.ts`;

/** A rule book whose start fails, as a service of the plugin may (its database unreachable, say). */
class FailingRuleBook extends Service {
  static override serviceType = RULE_BOOK_SERVICE;
  override capabilityDescription = 'fails to start';
  static override async start(): Promise<Service> {
    throw new Error('the rule book cannot start');
  }
  override async stop(): Promise<void> {}
}

async function restart(dir: string, settings: Record<string, string> = {}): Promise<{ agent: TestAgent; book: EloBookService }> {
  const agent = await startAgent({ dataDir: dir, settings });
  return { agent, book: await eloBookOf(agent.runtime) };
}

describe('the ELO book warms up in the background', () => {
  let dir: string;
  const expected = new Map<string, number>();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'elo-warm-'));
    const { agent, book } = await restart(dir);
    for (let i = 0; i < ITEMS; i++) {
      book.recordAccess('file', id(i), i % 3 === 0 ? { text: `zeta${i} handles its input` } : {}, usedAt(i));
      if (i % 1_000 === 999) await book.flush();
    }
    await book.flush();
    for (let i = 0; i < ITEMS; i++) expected.set(id(i), book.rating('file', id(i))?.elo as number);
    await agent.close();
  }, 180_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test(`ready with the newest 1,000 of ${ITEMS} items in memory; after the warm-up all of them, and ratings are the same throughout`, async () => {
    const { agent, book } = await restart(dir);
    try {
      expect(book.hotCount).toBe(1_000);
      // An item start-up did not read answers at once, from the database.
      expect((await book.ratingOf('file', id(0)))?.elo).toBe(expected.get(id(0)) as number);
      await book.warming;
      expect(book.hotCount).toBe(ITEMS);
      for (let i = 0; i < ITEMS; i += 7) expect(book.rating('file', id(i))?.elo).toBe(expected.get(id(i)) as number);
      // Content of the items read in is searchable.
      expect(book.searchContent('where is zeta9', 3).map((m) => m.item.id)).toContain(id(9));
    } finally {
      await agent.close();
    }
  }, 120_000);

  test('another service of the plugin failing to start does not keep the book from warming up, nor its runtime from closing; asking for the failed service rejects, naming it', async () => {
    const services = (selfImprovePlugin.services ?? []).map((s) => (s.serviceType === RULE_BOOK_SERVICE ? FailingRuleBook : s));
    const booted = await bootRuntime({ dataDir: dir, plugins: [{ ...selfImprovePlugin, services }], settings: { EMBEDDING_DIMENSION: '384' } });
    try {
      const book = await eloBookOf(booted.runtime);
      await book.warming;
      expect(booted.runtime.getServiceRegistrationStatus(RULE_BOOK_SERVICE)).toBe('failed');
      expect(book.hotCount).toBe(ITEMS);
      await expect(ruleBookOf(booted.runtime)).rejects.toThrow('the rule-book service failed to start');
    } finally {
      await booted.close();
    }
  }, 120_000);

  test('with a bound of 8,000, the warm-up reads the 8,000 most recently used, and later uses evict the oldest of them first', async () => {
    const { agent, book } = await restart(dir, { SELF_IMPROVE_ELO_HOT_ITEMS: '8000' });
    try {
      await book.warming;
      // Items in memory per block of 1,000 (block 11 used last).
      const inMemory = () => {
        const blocks = new Map<number, number>();
        for (let i = 0; i < ITEMS; i++) if (book.rating('file', id(i))) blocks.set(Math.floor(i / 1_000), (blocks.get(Math.floor(i / 1_000)) ?? 0) + 1);
        return Array.from({ length: 12 }, (_, b) => blocks.get(b) ?? 0);
      };
      expect(book.hotCount).toBe(8_000);
      expect(inMemory()).toEqual([0, 0, 0, 0, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000]);
      // Using 10 items not in memory evicts the 10 least recently used: of the oldest block read in.
      for (let i = 0; i < 10; i++) book.recordAccess('file', `src/new-${i}.ts`, {}, usedAt(ITEMS));
      await book.flush();
      expect(inMemory()).toEqual([0, 0, 0, 0, 990, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000]);
    } finally {
      await agent.close();
    }
  }, 120_000);
});
