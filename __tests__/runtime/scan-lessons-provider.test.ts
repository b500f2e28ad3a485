import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { estimateTokens } from '../../src/shared/prompt-text';
import { SCAN_LESSONS_HEADER } from '../../src/scan/surfaces/scan-lessons-provider';
import type { ScanLesson } from '../../src/scan/scan-lesson-metadata';
import { makeRows } from '../helpers/rows';
import { chatMessage, promptSection, startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';

describe('SCAN_LESSONS in composeState', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin], settings: { SELF_IMPROVE_LESSON_TOKEN_BUDGET: '200' } });
    await agent.service.ingest(makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'p-xss' }));
    await agent.service.ingest(
      makeRows({ n: 40, labels: ['fixed', 'fixed', 'accepted', 'fixed'], project: 'mobile', scanner: 'codeql', category: 'sql-injection', keyPrefix: 'p-sql' }),
    );
    await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
  });
  afterAll(async () => {
    await agent.close();
  });

  test('a message about a scope gets that scope\'s lesson first, with id, sample size and window, within the budget', async () => {
    const message = await agent.runtime.composeState(await chatMessage(agent.runtime, 'semgrep flagged another xss on payments, worth reporting?'));
    const text = message.text;
    const start = text.indexOf(SCAN_LESSONS_HEADER);
    expect(start).toBeGreaterThanOrEqual(0);
    const block = promptSection(text, SCAN_LESSONS_HEADER);
    const lines = block.split('\n').slice(1);
    expect(lines[0]).toMatch(/^- \[[0-9a-f-]{36}\] \(false-positive-pattern; confidence 0\.74; n=40; window 2026-11-04\.\.2026-11-11\) For semgrep/);
    expect(estimateTokens(block)).toBeLessThanOrEqual(200);
    const fpLesson = agent.service.listScanLessons().find((l) => l.metadata.finding_category === 'xss');
    expect(lines[0]).toContain(fpLesson?.id as string);
  });

  test('the order is stable between calls for the same message', async () => {
    const msg = await chatMessage(agent.runtime, 'codeql sql-injection on mobile');
    const a = await agent.runtime.composeState(msg, null, false, true);
    const b = await agent.runtime.composeState(msg, null, false, true);
    expect(a.values.scanLessonIds).toEqual(b.values.scanLessonIds);
    expect((a.values.scanLessonIds as string[]).length).toBeGreaterThan(0);
    const first = agent.service.scanLessons.index.get((a.values.scanLessonIds as never[])[0] as never);
    expect(first?.metadata.finding_category).toBe('sql-injection');
  });

  test('a message about a known finding gets its triage prior and its group\'s lesson, even when the text names no scope', async () => {
    await agent.service.recordFindings([
      { finding_key: 'new-app:xss:7', ts: '2026-11-20T10:00:00Z', project: 'new-app', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' },
    ]);
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, 'what do you think about finding new-app:xss:7?'));
    const block = promptSection(state.text, SCAN_LESSONS_HEADER);
    const lines = block.split('\n').slice(1);
    const prior = await agent.service.predict({ finding_key: 'new-app:xss:7', ts: '2026-11-20T10:00:00Z', project: 'new-app', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o', category: 'xss' });
    const p = (prior as Extract<typeof prior, { ok: true }>).prediction;
    const fpLesson = agent.service.listScanLessons().find((l) => l.metadata.finding_category === 'xss');
    // A new project: no evidence in its own group, the semgrep+xss level's rate, and the lesson it borrows from.
    expect(p.evidence_n).toBe(0);
    expect(lines[0]).toBe(
      `- Triage prior for finding "new-app:xss:7": P(false positive) ${p.p_false_positive.toFixed(2)}; expected reward ${p.expected_reward.toFixed(2)}; evidence group n=0, scanner_category n=40, scanner n=40, global n=80; the lessons behind it follow`,
    );
    expect(p.lesson_ids).toEqual([fpLesson?.id as ScanLesson['id']]);
    expect(p.p_false_positive).toBeGreaterThan(0.6);
    expect(lines[1]).toContain(fpLesson?.id as string);
    // The lesson's id is in the block once: on its own line, not repeated on the prior's.
    expect(block.split(fpLesson?.id as string).length - 1).toBe(1);
    expect(state.values.scanFindingPrior).toBe(p.p_false_positive);
  });

  test('a message naming no known finding has no prior line', async () => {
    const state = await agent.runtime.composeState(await chatMessage(agent.runtime, 'finding nobody-knows-1 is odd'));
    expect(state.text).not.toContain('Triage prior');
    expect(state.values.scanFindingPrior).toBeUndefined();
  });
});

describe('SCAN_LESSONS after a lesson is reinforced', () => {
  const xss = (l: ScanLesson) => l.metadata.finding_category === 'xss';

  test("the prompt shows the lesson's new figures, not the line it showed before", async () => {
    const agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
    try {
      const lineOf = async (text: string) => promptSection((await agent.runtime.composeState(await chatMessage(agent.runtime, text))).text, SCAN_LESSONS_HEADER).split('\n')[1] as string;
      await agent.service.ingest(makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'first' }));
      await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
      const before = await lineOf('semgrep flagged another xss on payments, worth reporting?');
      expect(before).toContain('n=40;');

      await agent.service.ingest(makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 'second', startIso: '2026-11-12T00:00:00Z' }));
      await agent.service.learnPending({ asOf: Date.parse('2026-11-15T00:00:00Z') });
      const lessons = agent.service.listScanLessons().filter(xss);
      expect(lessons.length).toBe(1);
      const lesson = lessons[0] as ScanLesson;
      expect(lesson.metadata.sample_size).toBeGreaterThan(40);
      const after = await lineOf('semgrep flagged one more xss on payments, worth reporting?');
      expect(after).toContain(`[${lesson.id}]`);
      expect(after).toContain(`n=${lesson.metadata.sample_size};`);
      expect(after).not.toBe(before);
    } finally {
      await agent.close();
    }
  });
});
