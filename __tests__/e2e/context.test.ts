import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HIGH_ELO_CONTEXT_HEADER } from '../../src/elo/model/context-text';
import { SCAN_LESSONS_HEADER } from '../../src/scan/surfaces/scan-lessons-provider';
import { openSession, say } from './chat';
import { eventually, post, request } from './http';
import { type RealServer, startRealServer } from './real-server';

const EXAMPLES = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8');
/** A finding of the examples whose group teaches a false-positive lesson (mobile-app, semgrep, dependency-version). */
const KNOWN_FINDING = 'mobile-app:semgrep:supply-chain.outdated-vulnerable-dependency:gradle/libs.versions.toml:18';
const OFF_TOPIC = ['Good job, that worked.', 'Can I force-push my hotfix branch to main?', 'Say anything you like about the weather.'];

interface StoredLesson {
  id: string;
  metadata?: { type?: string; project?: string };
}

let server: RealServer;
let lessons: StoredLesson[];

/** How many times `needle` occurs in `text`. */
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

beforeAll(async () => {
  server = await startRealServer({ settings: { SELF_IMPROVE_POLL_INTERVAL_MS: '1000' } });
  const ingested = await post(server.agentUrl('/outcomes'), 'application/x-ndjson', EXAMPLES);
  if (ingested.status !== 200) throw new Error(`outcomes not ingested: ${ingested.status} ${ingested.text}`);
  lessons = await eventually('lessons learned from the ingested outcomes', async () => {
    const listed = await request(`${server.origin}/api/memory/${server.agentId}/memories?tableName=custom`);
    const memories = (listed.json?.data?.memories ?? listed.json?.data ?? []) as StoredLesson[];
    const found = memories.filter((m) => m.metadata?.type === 'scan-model-lesson');
    return found.length > 0 ? found : undefined;
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

describe('the context in the prompts of the real server: related, once, in order', () => {
  test.each(OFF_TOPIC)('%p: no lesson in the prompt', async (text) => {
    const turn = await say(server, await openSession(server), text);
    expect(turn.prompt.prompt).not.toContain(SCAN_LESSONS_HEADER);
    for (const lesson of lessons) expect(turn.prompt.prompt).not.toContain(lesson.id);
  }, 120_000);

  test('a message naming a known finding gets its prior and lessons, before any ELO context', async () => {
    const turn = await say(server, await openSession(server), `Is finding ${KNOWN_FINDING} a real problem?`);
    const prompt = turn.prompt.prompt;
    expect(prompt).toContain(SCAN_LESSONS_HEADER);
    expect(prompt).toContain(`Triage prior for finding "${KNOWN_FINDING}"`);
    expect(lessons.some((l) => prompt.includes(l.id))).toBe(true);
    const eloAt = prompt.indexOf(HIGH_ELO_CONTEXT_HEADER);
    expect(eloAt === -1 || eloAt > prompt.indexOf(SCAN_LESSONS_HEADER)).toBe(true);
  }, 120_000);

  test('a message naming a project gets that project\'s lessons', async () => {
    const project = lessons.map((l) => l.metadata?.project).find((p): p is string => typeof p === 'string') as string;
    expect(project).toBeDefined();
    const turn = await say(server, await openSession(server), `What should I keep in mind about ${project}?`);
    const ofProject = lessons.filter((l) => l.metadata?.project === project);
    expect(turn.prompt.prompt).toContain(SCAN_LESSONS_HEADER);
    expect(ofProject.some((l) => turn.prompt.prompt.includes(l.id))).toBe(true);
  }, 120_000);

  test('GET /lessons?sort=elo: the lessons the prompts showed rose, and the list is by rating now, ties by id', async () => {
    interface Listed {
      id: string;
      elo: number;
    }
    const shown = lessons.filter((l) => server.model.prompts.some(({ prompt }) => prompt.includes(l.id))).map((l) => l.id);
    expect(shown.length).toBeGreaterThan(0);
    const byElo = await eventually('a lesson rated above its start of 1200', async () => {
      const answer = await request(`${server.agentUrl('/lessons')}?sort=elo&limit=100`);
      const listed = (answer.json?.lessons ?? []) as Listed[];
      return answer.status === 200 && (listed[0]?.elo ?? 0) > 1200 ? listed : undefined;
    });
    expect(byElo.map((l) => l.id)).toEqual([...byElo].sort((a, b) => b.elo - a.elo || (a.id < b.id ? -1 : 1)).map((l) => l.id));
    const rated = byElo.filter((l) => l.elo > 1200).map((l) => l.id);
    expect(rated.some((id) => shown.includes(id))).toBe(true);
    // The same lessons' ratings as the default listing gives them.
    const byIds = await request(`${server.agentUrl('/lessons')}?ids=${rated.slice(0, 5).join(',')}`);
    for (const l of byIds.json.lessons as Listed[]) expect(l.elo).toBeCloseTo(byElo.find((b) => b.id === l.id)?.elo as number, 3);
  }, 120_000);

  test('across every prompt the model received, no lesson or rule id appears twice in one prompt', () => {
    expect(server.model.replyPrompts().length).toBeGreaterThanOrEqual(OFF_TOPIC.length + 2);
    for (const { prompt } of server.model.prompts) {
      for (const lesson of lessons) expect(occurrences(prompt, lesson.id)).toBeLessThanOrEqual(1);
      const ruleIds = prompt.match(/\bR-\d{3,}\b/g) ?? [];
      expect(ruleIds.length).toBe(new Set(ruleIds).size);
    }
  });
});
