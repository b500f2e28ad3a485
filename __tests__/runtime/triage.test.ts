import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handleGetMetrics, handlePostTriage } from '../../src/scan/surfaces/triage-routes';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';


const finding = (over: Record<string, unknown> = {}) => ({
  finding_key: 'new-1',
  ts: '2026-11-20T10:00:00Z',
  project: 'payments',
  scanner: 'semgrep',
  model_provider: 'openai',
  model_name: 'gpt-4o',
  category: 'xss',
  ...over,
});

// The prior, by hand (strength 10, uniform root 0.2). 80 outcomes: 30 fp of 40 in (payments,
// semgrep, xss), 0 fp of 40 in (mobile, codeql, sql-injection).
//   global              (30 + 10·0.2) / 90            = 0.355556
//   scanner semgrep     (30 + 10·0.355556) / 50        = 0.671111
//   semgrep + xss       (30 + 10·0.671111) / 50        = 0.734222
//   the group           (30 + 10·0.734222) / 50        = 0.746844
const P_GROUP = 0.746844;
const P_SCANNER_CATEGORY = 0.734222;

describe('triage prior on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-triage-'));
    agent = await startAgent({ dataDir: dir });
    await agent.service.ingest(makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'xss', keyPrefix: 't-xss' }));
    await agent.service.ingest(makeRows({ n: 40, labels: ['fixed', 'fixed', 'accepted', 'fixed'], project: 'mobile', scanner: 'codeql', category: 'sql-injection', keyPrefix: 't-sql' }));
    await agent.service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a finding in a known group: shrunk group rate, evidence per level, the group\'s lesson', async () => {
    const result = await agent.service.predict(finding());
    expect(result.ok).toBe(true);
    const p = (result as Extract<typeof result, { ok: true }>).prediction;
    expect(p.p_false_positive).toBeCloseTo(P_GROUP, 5);
    expect(p.evidence.map((e) => [e.level, e.n, e.false_positives])).toEqual([
      ['group', 40, 30],
      ['scanner_category', 40, 30],
      ['scanner', 40, 30],
      ['global', 80, 30],
    ]);
    expect(p.evidence_n).toBe(40);
    const xssLesson = agent.service.listScanLessons().find((l) => l.metadata.finding_category === 'xss');
    expect(p.lesson_ids).toEqual([xssLesson?.id as never]);
    expect(p.expected_reward).toBeLessThan(0);
  });

  test('a new project borrows from its scanner and category, and names the lessons it borrows from', async () => {
    const result = await agent.service.predict(finding({ project: 'brand-new', model_name: 'o3' }));
    const p = (result as Extract<typeof result, { ok: true }>).prediction;
    expect(p.evidence_n).toBe(0);
    expect(p.p_false_positive).toBeCloseTo(P_SCANNER_CATEGORY, 5);
    expect(p.lesson_ids).toHaveLength(1);
    const other = await agent.service.predict(finding({ scanner: 'codeql', category: 'sql-injection', project: 'brand-new' }));
    expect((other as Extract<typeof other, { ok: true }>).prediction.p_false_positive).toBeLessThan(0.1);
  });

  test('a bad finding is refused with the field and the reason', async () => {
    const result = await agent.service.predict(finding({ confidence: 2, scanner: undefined }));
    expect(result).toEqual({
      ok: false,
      rejections: [
        { index: 0, field: 'scanner', message: 'scanner is required' },
        { index: 0, field: 'confidence', message: 'confidence must be a number in [0,1]' },
      ],
    });
  });

  test('ingesting moves the prior at once, without a learning pass', async () => {
    const before = ((await agent.service.predict(finding({ project: 'later' }))) as { prediction: { p_false_positive: number } }).prediction.p_false_positive;
    await agent.service.ingest(makeRows({ n: 20, labels: ['fixed'], project: 'later', category: 'xss', keyPrefix: 't-later' }));
    const after = ((await agent.service.predict(finding({ project: 'later' }))) as { prediction: { p_false_positive: number } }).prediction.p_false_positive;
    expect(after).toBeLessThan(before - 0.2);
  });

  test('POST /triage: one prediction per finding; bad rows by line with 400, the good ones still answered', async () => {
    const ok = recordingResponse();
    await handlePostTriage({ body: [finding(), finding({ finding_key: 'new-2', label: 'fixed' })], headers: {} }, ok.res, agent.runtime);
    expect(ok.sent.status).toBe(200);
    const body = ok.sent.body as { predictions: { finding_key: string }[]; rejected: unknown[] };
    expect(body.predictions.map((p) => p.finding_key)).toEqual(['new-1', 'new-2']);
    expect(body.rejected).toEqual([]);

    const bad = recordingResponse();
    await handlePostTriage({ body: `${JSON.stringify(finding())}\n{"finding_key": 3}\n`, headers: {} }, bad.res, agent.runtime);
    expect(bad.sent.status).toBe(400);
    const badBody = bad.sent.body as { predictions: unknown[]; rejected: { line: number; field: string }[] };
    expect(badBody.predictions).toHaveLength(1);
    expect([...new Set(badBody.rejected.map((r) => r.line))]).toEqual([2]);
    expect(badBody.rejected.map((r) => r.field)).toContain('finding_key');

    const empty = recordingResponse();
    await handlePostTriage({ body: '', headers: {} }, empty.res, agent.runtime);
    expect(empty.sent.status).toBe(400);
  });

  test('GET /metrics: the report, with k and now from the query; bad query values are 400 naming the parameter', async () => {
    const ok = recordingResponse();
    await handleGetMetrics({ query: { now: '2026-11-13T00:00:00Z', k: '5' } }, ok.res, agent.runtime);
    expect(ok.sent.status).toBe(200);
    const report = ok.sent.body as { as_of: string; k: number; overall: { findings: number; false_positive_rate: number }; by_scanner: Record<string, unknown> };
    expect(report.as_of).toBe('2026-11-13T00:00:00.000Z');
    expect(report.k).toBe(5);
    expect(report.overall.findings).toBe(100);
    expect(report.overall.false_positive_rate).toBeCloseTo(30 / 100, 12);
    expect(Object.keys(report.by_scanner)).toEqual(['codeql', 'semgrep']);

    const badK = recordingResponse();
    await handleGetMetrics({ query: { k: '0' } }, badK.res, agent.runtime);
    expect(badK.sent).toEqual({ status: 400, body: { error: 'k must be an integer from 1 to 100000 (got "0")' } });
    // Beyond the range, or not written as a plain integer: once a 500 (a LIMIT past bigint) or a k the caller did not write.
    for (const k of ['100001', '99999999999999999999', '0x10', '1e3', '1.0', ' 3']) {
      const refused = recordingResponse();
      await handleGetMetrics({ query: { k } }, refused.res, agent.runtime);
      expect(refused.sent).toEqual({ status: 400, body: { error: `k must be an integer from 1 to 100000 (got ${JSON.stringify(k)})` } });
    }
    const largest = recordingResponse();
    await handleGetMetrics({ query: { k: '100000', slices: '1' } }, largest.res, agent.runtime);
    expect(largest.sent.status).toBe(200);
    expect(largest.sent.body).toMatchObject({ k: 100_000, slice_limit: 1, overall: { findings: 100 } });
    const badNow = recordingResponse();
    await handleGetMetrics({ query: { now: 'soon' } }, badNow.res, agent.runtime);
    expect(badNow.sent.status).toBe(400);
    expect((badNow.sent.body as { error: string }).error).toContain('now must be an ISO-8601 time');
  });

  test('a restart rebuilds the same prior from the database', async () => {
    const before = await agent.service.predict(finding());
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    expect(await agent.service.predict(finding())).toEqual(before);
  });
});
