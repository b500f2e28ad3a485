// Issue 17, item 4, in the real ElizaOS 1.7.2 server: what the trusted user says about the agent's
// previous answer settles the items that were in that answer's prompt, read through
// GET /self-improve/elo. Praise raises them beyond what the praise message's own prompt boosts
// gave; a correction lowers them despite those boosts. Each verdict is one outcome update per item.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rankBoost } from '../../src/elo/model/elo';
import { HIGH_ELO_CONTEXT_HEADER } from '../../src/elo/model/context-text';
import { SCAN_LESSONS_HEADER } from '../../src/scan/surfaces/scan-lessons-provider';
import { openSession, say } from './chat';
import { eventually, post, request } from './http';
import { type RealServer, startRealServer } from './real-server';

const EXAMPLES = readFileSync(path.resolve(import.meta.dir, '..', '..', 'examples', 'outcomes.jsonl'), 'utf8');
/** A finding of the examples whose group teaches a false-positive lesson (mobile-app, semgrep, dependency-version). */
const KNOWN_FINDING = 'mobile-app:semgrep:supply-chain.outdated-vulnerable-dependency:gradle/libs.versions.toml:18';
/** The trusted person: the `userId` this client sends to the messaging API, listed in SELF_IMPROVE_TRUSTED_ENTITIES. */
const OWNER_ID = '7a1c3e5f-2b4d-4c6e-8f0a-1b2c3d4e5f60';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The lines of a prompt section: from its header to the first blank line. */
function section(prompt: string, header: string): string[] {
  const start = prompt.indexOf(header);
  if (start < 0) return [];
  const lines = prompt.slice(start).split('\n').slice(1);
  const end = lines.findIndex((l) => l.trim() === '');
  return lines.slice(0, end < 0 ? lines.length : end);
}

/**
 * The lessons a prompt showed, each with the rank boosts it got for it: SCAN_LESSONS lines
 * `- [<id>] (…` and HIGH_ELO_CONTEXT lines `- [lesson <id>] (…`, ranked by position among each
 * provider's item lines (each provider records its own retrieval).
 */
function lessonsIn(prompt: string): Map<string, number> {
  const boosts = new Map<string, number>();
  const add = (lines: string[], pattern: RegExp) => {
    const items = lines.filter((l) => l.startsWith('- [') && !l.startsWith('- Triage prior'));
    items.forEach((line, i) => {
      const id = pattern.exec(line)?.[1];
      if (id) boosts.set(id, (boosts.get(id) ?? 0) + rankBoost(i + 1));
    });
  };
  add(section(prompt, SCAN_LESSONS_HEADER), new RegExp(`^- \\[(${UUID})\\] \\(`));
  add(section(prompt, HIGH_ELO_CONTEXT_HEADER), new RegExp(`^- \\[lesson (${UUID})\\] \\(`));
  return boosts;
}

interface Rated {
  elo: number;
  updates: number;
}

/** Every lesson's rating and outcome-update count, from GET /self-improve/elo. */
async function lessonRatings(server: RealServer): Promise<Map<string, Rated>> {
  const answer = await request(server.rootUrl('/elo?k=100'));
  expect(answer.status).toBe(200);
  return new Map(((answer.json.top.lesson ?? []) as { id: string; elo: number; updates: number }[]).map((i) => [i.id, { elo: i.elo, updates: i.updates }]));
}

let server: RealServer;

beforeAll(async () => {
  server = await startRealServer({ settings: { SELF_IMPROVE_POLL_INTERVAL_MS: '1000', SELF_IMPROVE_TRUSTED_ENTITIES: OWNER_ID } });
  const ingested = await post(server.agentUrl('/outcomes'), 'application/x-ndjson', EXAMPLES);
  expect(ingested.json).toMatchObject({ rows: 600, accepted: 600, rejected: [] });
  await eventually('lessons learned from the ingested outcomes', async () => {
    const listed = await request(`${server.origin}/api/memory/${server.agentId}/memories?tableName=custom`);
    const memories = (listed.json?.data?.memories ?? listed.json?.data ?? []) as { metadata?: { type?: string } }[];
    return memories.some((m) => m.metadata?.type === 'scan-model-lesson') ? true : undefined;
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/**
 * Asks about the known finding, then says `verdict`; returns the lessons of the answer's prompt
 * with their ratings before the verdict and after it was settled (each lesson one outcome update
 * more), and the boosts the verdict message's own prompt gave them.
 */
async function judgeAnswer(verdict: string) {
  const session = await openSession(server, OWNER_ID);
  const asked = await say(server, session, `Is finding ${KNOWN_FINDING} a real problem?`);
  const shown = [...lessonsIn(asked.prompt.prompt).keys()];
  expect(shown.length).toBeGreaterThan(0);
  const before = await lessonRatings(server);
  const judged = await say(server, session, verdict);
  const boosts = lessonsIn(judged.prompt.prompt);
  const after = await eventually(`the verdict "${verdict}" settled in the ELO book`, async () => {
    const now = await lessonRatings(server);
    return shown.every((id) => now.get(id)?.updates === (before.get(id)?.updates ?? 0) + 1) ? now : undefined;
  });
  return shown.map((id) => ({ id, change: (after.get(id)?.elo ?? Number.NaN) - (before.get(id)?.elo ?? Number.NaN), verdictPromptBoost: boosts.get(id) ?? 0 }));
}

describe('conversation verdicts move the ELO of what the judged answer was given', () => {
  test('"Good job, that worked." from the trusted user: every lesson of the answer rose by more than its boosts', async () => {
    const moves = await judgeAnswer('Good job, that worked.');
    for (const m of moves) expect({ id: m.id, win: m.change - m.verdictPromptBoost > 0 }).toEqual({ id: m.id, win: true });
  }, 180_000);

  test('"No, that\'s wrong." in another session: every lesson of the answer fell, whatever the boosts', async () => {
    const moves = await judgeAnswer("No, that's wrong.");
    for (const m of moves) expect({ id: m.id, loss: m.change - m.verdictPromptBoost < 0 }).toEqual({ id: m.id, loss: true });
  }, 180_000);
});
