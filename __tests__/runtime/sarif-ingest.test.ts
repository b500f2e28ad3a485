import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handlePostOutcomes } from '../../src/scan/surfaces/outcome-routes';
import { ingestSarif } from '../../src/scan/sarif-ingest';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { type Json, LOCATED, logOf } from '../helpers/sarif-logs';
import { storedOutcomes } from '../helpers/stored-outcomes';
import { createTestModelsPlugin } from '../helpers/test-models';


const SARIF_HEADERS = { 'content-type': 'application/sarif+json' };

/** A located semgrep-style result with a guid (its finding key) and whatever else it needs. */
const result = (guid: string, extra: Json = {}): Json => ({ guid, ruleId: 'js/xss', message: { text: `finding ${guid}` }, ...LOCATED, ...extra });
const inPayments = { properties: { project: 'payments' } };

/** A log whose run names no project: each result names its own, except the last one. */
const TRIAGE_LOG = logOf(
  [
    result('si-fp', { ...inPayments, suppressions: [{ kind: 'external', status: 'accepted', justification: 'False positive: output is escaped by the template engine' }] }),
    result('si-ignored', { ...inPayments, suppressions: [{ kind: 'inSource', justification: 'Risk accepted by the security team until Q3' }] }),
    result('si-stands', { ...inPayments, suppressions: [{ kind: 'external', status: 'rejected', justification: 'The input is user-controlled' }] }),
    result('si-review', { ...inPayments, baselineState: 'new', suppressions: [{ kind: 'external', status: 'underReview' }] }),
    result('si-gone', { ...inPayments, baselineState: 'absent' }),
    result('si-new', { ...inPayments, baselineState: 'new' }),
    result('si-unchanged', { ...inPayments, baselineState: 'unchanged' }),
    result('si-pass', { ...inPayments, kind: 'pass' }),
    result('si-noproject'),
  ],
  { properties: {} },
);
const LABELLED = ['si-fp', 'si-ignored', 'si-stands', 'si-gone'];
const AWAITING = ['si-review', 'si-new', 'si-unchanged'];

describe('SARIF ingest on a real runtime', () => {
  let agent: TestAgent;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-sarif-'));
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin] });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every triage state maps to its label; untriaged results await labels; a result without a project is refused by path', async () => {
    const before = await agent.service.counts();
    const report = await ingestSarif(agent.service, TRIAGE_LOG, {});
    expect(report).toEqual({
      results: 8,
      skipped: 1,
      outcomes: { accepted: 4, duplicate: 0 },
      reopened: 0,
      awaiting: { recorded: 3, known: 0 },
      already_labelled: 0,
      rejected: [{ path: 'runs[0].results[8]', field: 'project', message: expect.stringContaining('project is required') }],
    });

    const known = await agent.service.lookupFindings([...LABELLED, ...AWAITING, 'si-pass', 'si-noproject']);
    expect(Object.fromEntries([...known].map(([key, f]) => [key, f.labels]))).toEqual({
      'si-fp': ['rejected_fp'],
      'si-ignored': ['ignored'],
      'si-stands': ['accepted'],
      'si-gone': ['fixed'],
      'si-review': [],
      'si-new': [],
      'si-unchanged': [],
    });
    expect(known.get('si-new')?.row).toMatchObject({ finding_key: 'si-new', project: 'payments', scanner: 'semgrep', ts: '2026-11-02T14:03:00.000Z' });

    const stored = await storedOutcomes(agent.runtime, [...LABELLED, ...AWAITING]);
    expect(stored.map((r) => [r.finding_key, r.label, r.source, r.ts, r.project, r.scanner])).toEqual([
      ['si-fp', 'rejected_fp', 'sarif', '2026-11-02T14:03:00.000Z', 'payments', 'semgrep'],
      ['si-gone', 'fixed', 'sarif', '2026-11-02T14:03:00.000Z', 'payments', 'semgrep'],
      ['si-ignored', 'ignored', 'sarif', '2026-11-02T14:03:00.000Z', 'payments', 'semgrep'],
      ['si-stands', 'accepted', 'sarif', '2026-11-02T14:03:00.000Z', 'payments', 'semgrep'],
    ]);
    expect(stored.find((r) => r.finding_key === 'si-fp')?.notes).toBe('False positive: output is escaped by the template engine');

    const after = await agent.service.counts();
    expect(after.awaiting_labels - before.awaiting_labels).toBe(AWAITING.length);
    expect(after.outcomes - before.outcomes).toBe(LABELLED.length);
  });

  test('a result with several problems counts once and reports each problem', async () => {
    const report = await ingestSarif(agent.service, logOf([result('two-problems')], { properties: {}, invocations: [] }), {});
    expect(report.results).toBe(1);
    expect(report.rejected.map((r) => [r.path, r.field])).toEqual([
      ['runs[0].results[0]', 'ts'],
      ['runs[0].results[0]', 'project'],
    ]);
  });

  test('ingesting the same log again changes nothing', async () => {
    await ingestSarif(agent.service, TRIAGE_LOG, {});
    const before = await agent.service.counts();
    const again = await ingestSarif(agent.service, TRIAGE_LOG, {});
    expect(again).toMatchObject({ results: 8, skipped: 1, outcomes: { accepted: 0, duplicate: 4 }, reopened: 0, awaiting: { recorded: 0, known: 3 } });
    expect(again.rejected.map((r) => [r.path, r.field])).toEqual([['runs[0].results[8]', 'project']]);
    expect(await agent.service.counts()).toEqual(before);
  });

  test('a finding recorded fixed that shows up again, unsuppressed, in a later log is reopened', async () => {
    // Fixed by an outcome row (2026-11-10) and by a baseline-absent result (2026-11-11); one more fixed after the later log.
    await agent.service.ingest(makeRows({ n: 1, labels: ['fixed'], keyPrefix: 're-row', startIso: '2026-11-10T00:00:00Z' }));
    await agent.service.ingest(makeRows({ n: 1, labels: ['fixed'], keyPrefix: 're-late', startIso: '2026-11-25T00:00:00Z' }));
    const firstLog = logOf([result('re-base', { baselineState: 'absent' })], { invocations: [{ endTimeUtc: '2026-11-11T00:00:00Z' }] });
    expect(await ingestSarif(agent.service, firstLog)).toMatchObject({ outcomes: { accepted: 1, duplicate: 0 }, reopened: 0 });

    const laterLog = logOf(
      [
        result('re-row-0', { baselineState: 'new' }),
        result('re-base', { baselineState: 'unchanged' }),
        result('re-late-0'),
        result('re-still-fixed', { baselineState: 'absent' }),
      ],
      { invocations: [{ endTimeUtc: '2026-11-20T00:00:00Z' }] },
    );
    const report = await ingestSarif(agent.service, laterLog);
    expect(report).toMatchObject({ results: 4, outcomes: { accepted: 3, duplicate: 0 }, reopened: 2, awaiting: { recorded: 0, known: 0 }, already_labelled: 1, rejected: [] });

    const known = await agent.service.lookupFindings(['re-row-0', 're-base', 're-late-0', 're-still-fixed']);
    expect(Object.fromEntries([...known].map(([key, f]) => [key, f.labels]))).toEqual({
      're-row-0': ['fixed', 'reopened'],
      're-base': ['fixed', 'reopened'],
      're-late-0': ['fixed'],
      're-still-fixed': ['fixed'],
    });
    const reopened = (await storedOutcomes(agent.runtime, ['re-row-0', 're-base'])).filter((r) => r.label === 'reopened');
    expect(reopened.map((r) => [r.finding_key, r.source, r.ts])).toEqual([
      ['re-base', 'sarif', '2026-11-20T00:00:00.000Z'],
      ['re-row-0', 'sarif', '2026-11-20T00:00:00.000Z'],
    ]);
    // The log names no model; a known finding keeps the identity it was stored with, so its
    // reopened outcome lands in the same group as its fix.
    const rowFixed = (await storedOutcomes(agent.runtime, ['re-row-0'])).map((r) => [r.label, r.model_provider, r.model_name, r.category]);
    expect(rowFixed).toEqual([
      ['fixed', 'openai', 'gpt-4o', undefined],
      ['reopened', 'openai', 'gpt-4o', undefined],
    ]);

    const before = await agent.service.counts();
    const again = await ingestSarif(agent.service, laterLog);
    // Reopened findings and the one fixed after this log already have labels: nothing awaits.
    expect(again).toMatchObject({ outcomes: { accepted: 0, duplicate: 1 }, reopened: 0, awaiting: { recorded: 0, known: 0 }, already_labelled: 3, rejected: [] });
    expect((await agent.service.counts()).outcomes).toBe(before.outcomes);
  });

  test('POST /self-improve/outcomes with application/sarif+json: parsed or raw body, ?project and ?now fill in, bad input is 400', async () => {
    const now = '2026-12-01T08:30:00Z';
    const query = { project: 'x', now };
    const untimed = { invocations: [] };

    const parsed = recordingResponse();
    const clean = logOf([result('http-a', { baselineState: 'absent' }), result('http-b')], { properties: {}, ...untimed });
    await handlePostOutcomes({ body: clean, headers: SARIF_HEADERS, query }, parsed.res, agent.runtime);
    expect(parsed.sent.status).toBe(200);
    expect(parsed.sent.body).toMatchObject({ results: 2, outcomes: { accepted: 1, duplicate: 0 }, awaiting: { recorded: 1, known: 0 }, rejected: [] });
    const known = await agent.service.lookupFindings(['http-a', 'http-b']);
    expect(known.get('http-a')).toMatchObject({ labels: ['fixed'], lastLabelTs: '2026-12-01T08:30:00.000Z', row: { project: 'x' } });
    expect(known.get('http-b')).toMatchObject({ labels: [], row: { project: 'x', ts: '2026-12-01T08:30:00.000Z' } });

    const raw = recordingResponse();
    const rawLog = logOf([result('http-c', { suppressions: [{ kind: 'external', status: 'rejected' }] })], untimed);
    await handlePostOutcomes({ body: JSON.stringify(rawLog), headers: SARIF_HEADERS, query }, raw.res, agent.runtime);
    expect(raw.sent.status).toBe(200);
    expect(raw.sent.body).toMatchObject({ results: 1, outcomes: { accepted: 1, duplicate: 0 }, rejected: [] });
    // The log's own run project wins over ?project=.
    expect((await agent.service.lookupFindings(['http-c'])).get('http-c')).toMatchObject({ labels: ['accepted'], row: { project: 'payments' } });

    const bad = recordingResponse();
    const mixed = logOf([result('http-good', { baselineState: 'absent' }), result('http-bad', { properties: { label: 'maybe' } })]);
    await handlePostOutcomes({ body: JSON.stringify(mixed), headers: SARIF_HEADERS, query }, bad.res, agent.runtime);
    expect(bad.sent.status).toBe(400);
    expect(bad.sent.body).toMatchObject({ results: 2, outcomes: { accepted: 1, duplicate: 0 } });
    expect((bad.sent.body as { rejected: { path: string; field: string }[] }).rejected.map((r) => [r.path, r.field])).toEqual([
      ['runs[0].results[1]', 'properties.label'],
    ]);
    const afterBad = await agent.service.lookupFindings(['http-good', 'http-bad']);
    expect([...afterBad.keys()]).toEqual(['http-good']);

    const notJson = recordingResponse();
    await handlePostOutcomes({ body: '{"version": "2.1.0", "runs": [', headers: SARIF_HEADERS, query }, notJson.res, agent.runtime);
    expect(notJson.sent.status).toBe(400);
    expect((notJson.sent.body as { error: string }).error).toStartWith('SARIF must be one JSON document');

    const badNow = recordingResponse();
    const countsBefore = await agent.service.counts();
    await handlePostOutcomes({ body: logOf([result('http-d')], untimed), headers: SARIF_HEADERS, query: { project: 'x', now: 'yesterday' } }, badNow.res, agent.runtime);
    expect(badNow.sent.status).toBe(400);
    expect((badNow.sent.body as { error: string }).error).toContain('now must be an ISO-8601 time');
    expect((await agent.service.lookupFindings(['http-d'])).size).toBe(0);
    expect(await agent.service.counts()).toEqual(countsBefore);
  });

  test('CLI ingest of a .sarif file: one JSON document, exit 0 when clean, 2 with a rejected result; --project fills in', async () => {
    const cli = path.join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts');
    const db = path.join(dir, 'db');
    const run = async (file: string) => {
      const proc = Bun.spawn([process.execPath, 'run', cli, 'ingest', file, '--db', db, '--json', '--project', 'P'], {
        stdout: 'pipe',
        stderr: 'pipe',
        env: { ...process.env, LOG_LEVEL: 'info' },
      });
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { stdout, code };
    };
    // No project anywhere in these logs: without --project every result would be refused.
    const cleanFile = path.join(dir, 'clean.sarif');
    await writeFile(cleanFile, JSON.stringify(logOf([result('cli-a', { baselineState: 'absent' }), result('cli-b'), result('cli-pass', { kind: 'pass' })], { properties: {} })));
    const clean = await run(cleanFile);
    expect(clean.code).toBe(0);
    expect(clean.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(clean.stdout)).toEqual({
      file: cleanFile,
      format: 'sarif',
      results: 2,
      skipped: 1,
      outcomes: { accepted: 1, duplicate: 0 },
      reopened: 0,
      awaiting: { recorded: 1, known: 0 },
      already_labelled: 0,
      rejected: [],
    });

    const badFile = path.join(dir, 'bad.sarif');
    await writeFile(badFile, JSON.stringify(logOf([result('cli-a', { baselineState: 'absent' }), result('cli-c', { properties: { label: 'wontfix' } })], { properties: {} })));
    const bad = await run(badFile);
    expect(bad.code).toBe(2);
    const doc = JSON.parse(bad.stdout);
    expect(doc).toMatchObject({ format: 'sarif', results: 2, outcomes: { accepted: 0, duplicate: 1 } });
    expect(doc.rejected.map((r: { path: string; field: string }) => [r.path, r.field])).toEqual([['runs[0].results[1]', 'properties.label']]);
  }, 120_000);
});
