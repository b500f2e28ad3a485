// Start-up does not wait for stored lessons to be read or re-embedded: an agent whose embedding
// model is slow (here: held until the test lets it answer) has its services up at once; learning
// waits for the lessons, so it never writes a duplicate of one not yet read.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ModelType, type Plugin } from '@elizaos/core';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { scanOutcomeServiceOf } from '../../src/scan/scan-outcome-service';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { makeRows } from '../helpers/rows';
import { startAgent } from '../helpers/runtime';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'self-improve-startup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An embedding model that answers core's dimension probe at once and every text only once `open` is called. */
function heldEmbeddingModel() {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let asked: () => void = () => undefined;
  const firstText = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const plugin: Plugin = {
    name: 'held-embedding',
    description: 'an embedding model that waits',
    priority: 100,
    models: {
      [ModelType.TEXT_EMBEDDING]: async (_rt, params) => {
        const text = typeof params === 'string' ? params : ((params as { text?: string } | null)?.text ?? null);
        if (text === null) return lexicalVector('');
        asked();
        await gate;
        return lexicalVector(text);
      },
    },
  };
  return { plugin, open: () => open(), firstText };
}

describe('start-up', () => {
  test('services are up before stored lessons are re-embedded; learning waits for them and writes no duplicate', async () => {
    const dataDir = path.join(dir, 'db');
    const rows = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'xss' });
    // First run without an embedding model: one lesson, stored with the lexical vector.
    const first = await startAgent({ dataDir });
    await first.service.ingest(rows);
    expect((await first.service.learnPending()).lessons_created).toBe(1);
    await first.close();

    // Second run with an embedding model: the stored lesson must be embedded again, and the model is held.
    const held = heldEmbeddingModel();
    const booted = await bootRuntime({ dataDir, plugins: [selfImprovePlugin, held.plugin], settings: { EMBEDDING_DIMENSION: '384' } });
    try {
      // Had start-up waited for the lessons, this would wait for the held model for ever.
      const service = await scanOutcomeServiceOf(booted.runtime);
      await held.firstText;
      expect(service.listScanLessons()).toEqual([]);
      await service.ingest(makeRows({ n: 20, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'xss-more', startIso: '2026-11-11T16:00:00Z' }));
      const pass = service.learnPending();
      held.open();
      const report = await pass;
      // The new evidence reinforced the stored lesson instead of writing a second one.
      expect([report.lessons_created, report.lessons_reinforced]).toEqual([0, 1]);
      expect(service.listScanLessons()).toHaveLength(1);
    } finally {
      held.open();
      await booted.close();
    }
  }, 60_000);
});
