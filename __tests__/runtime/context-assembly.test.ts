import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from '@elizaos/core';
import { HIGH_ELO_CONTEXT_HEADER } from '../../src/elo/model/context-text';
import { RULES_PROMPT_HEADER } from '../../src/rules/model/prompt';
import { highEloContextProvider } from '../../src/elo/surfaces/high-elo-context-provider';
import { SCAN_LESSONS_HEADER, scanLessonsProvider } from '../../src/scan/surfaces/scan-lessons-provider';
import { topRulesProvider } from '../../src/rules/surfaces/top-rules-provider';
import { denseEmbeddingPlugin } from '../helpers/dense-embedding';
import { chatMessage, startAgent, type TestAgent } from '../helpers/runtime';

const OUTCOMES = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);
const KNOWN_FINDING = 'mobile-app:semgrep:supply-chain.outdated-vulnerable-dependency:gradle/libs.versions.toml:18';
const OFF_TOPIC = ['Good job, that worked.', 'Can I force-push my hotfix branch to main?', 'Say anything you like about the weather.'];
const ON_TOPIC = ["Should I trust semgrep's dependency-version findings on mobile-app?", 'How reliable is codeql for sql injection on payments-api?', 'Is this scanner finding a false positive?'];
/** Lesson ids (uuids) in a prompt, each time one appears. */
const idsIn = (text: string) => text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];

for (const [source, plugins] of [
  ['lexical vectors', []],
  ['a dense embedding model', [denseEmbeddingPlugin()]],
] as [string, Plugin[]][]) {
  describe(`one context per message, nothing unrelated (${source})`, () => {
    let agent: TestAgent;
    beforeAll(async () => {
      // Room for the prior and one lesson: the other lessons of a finding's scope go to HIGH_ELO_CONTEXT.
      agent = await startAgent({ plugins, settings: { SELF_IMPROVE_LESSON_MODEL: 'off', SELF_IMPROVE_LESSON_TOKEN_BUDGET: '300' } });
      await agent.service.ingest(OUTCOMES);
      await agent.service.learnPending({ asOf: Date.parse('2026-11-20T00:00:00Z') });
      expect(agent.service.scanLessons.index.size).toBeGreaterThan(2);
    }, 60_000);
    afterAll(async () => {
      await agent.close();
    });

    test.each(OFF_TOPIC)('%p gets no lesson, in SCAN_LESSONS or in HIGH_ELO_CONTEXT', async (text) => {
      const state = await agent.runtime.composeState(await chatMessage(agent.runtime, text));
      expect(state.values.scanLessonIds).toEqual([]);
      expect((state.values.highEloContextIds as string[]).filter((id) => id.startsWith('lesson:'))).toEqual([]);
      expect(state.text).not.toContain(SCAN_LESSONS_HEADER);
      expect(idsIn(state.text)).toEqual([]);
    });

    test.each(ON_TOPIC)('%p gets lessons', async (text) => {
      const state = await agent.runtime.composeState(await chatMessage(agent.runtime, text));
      expect((state.values.scanLessonIds as string[]).length).toBeGreaterThan(0);
      expect(state.text).toContain(SCAN_LESSONS_HEADER);
    });

    test('a message about a known finding: its prior and lessons, then ELO context for the rest, no item twice, in that order', async () => {
      const state = await agent.runtime.composeState(await chatMessage(agent.runtime, `Is finding ${KNOWN_FINDING} real? What about other semgrep findings?`));
      const lessons = state.values.scanLessonIds as string[];
      const elo = (state.values.highEloContextIds as string[]).filter((id) => id.startsWith('lesson:')).map((id) => id.slice('lesson:'.length));
      expect(lessons.length).toBeGreaterThan(0);
      expect(elo.length).toBeGreaterThan(0);
      expect(elo.filter((id) => lessons.includes(id))).toEqual([]);
      const ids = idsIn(state.text);
      expect(new Set(ids).size).toBe(ids.length);
      expect(state.text.indexOf(SCAN_LESSONS_HEADER)).toBeLessThan(state.text.indexOf(HIGH_ELO_CONTEXT_HEADER));
      expect(state.text).toContain(`Triage prior for finding "${KNOWN_FINDING}"`);
    });

    test('composeState orders the blocks by position: rules, then lessons, then ELO context', () => {
      expect(topRulesProvider.position).toBeLessThan(scanLessonsProvider.position as number);
      expect(scanLessonsProvider.position).toBeLessThan(highEloContextProvider.position as number);
      expect(RULES_PROMPT_HEADER).not.toBe(SCAN_LESSONS_HEADER);
    });

    test('the calibrated floor is finite once lessons exist', async () => {
      const floor = await agent.service.scanLessons.relevance.floor();
      expect(Number.isFinite(floor)).toBe(true);
    });
  });
}

describe('one token budget for the three blocks', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ settings: { SELF_IMPROVE_LESSON_MODEL: 'off', SELF_IMPROVE_CONTEXT_TOKEN_BUDGET: '150', SELF_IMPROVE_ELO_CONTEXT_TOKEN_BUDGET: '2000', SELF_IMPROVE_LESSON_TOKEN_BUDGET: '2000' } });
    await agent.service.ingest(OUTCOMES);
    await agent.service.learnPending({ asOf: Date.parse('2026-11-20T00:00:00Z') });
  }, 60_000);
  afterAll(async () => {
    await agent.close();
  });

  test('the blocks together stay within SELF_IMPROVE_CONTEXT_TOKEN_BUDGET, whatever their own budgets', async () => {
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, `Is finding ${KNOWN_FINDING} real? What about other semgrep findings?`));
    const providers = state.data.providers as Record<string, { text?: string }>;
    const used = ['TOP_RULES', 'SCAN_LESSONS', 'HIGH_ELO_CONTEXT'].map((name) => providers[name]?.text ?? '').reduce((sum, text) => sum + (text === '' ? 0 : Math.ceil(text.length / 4)), 0);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(150);
  });
});
