import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { handlePostOutcomes } from '../../src/scan/surfaces/outcome-routes';
import { makeRows } from '../helpers/rows';
import { recordingResponse } from '../helpers/route-response';
import { startAgent, type TestAgent } from '../helpers/runtime';
import { createTestModelsPlugin } from '../helpers/test-models';


describe('outcome intake on a real runtime', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent({ plugins: [createTestModelsPlugin().plugin], settings: { SELF_IMPROVE_MAX_BODY_BYTES: '4096' } });
  });
  afterAll(async () => {
    await agent.close();
  });

  test('good rows are kept, bad rows are reported by index and field, duplicates change nothing', async () => {
    const rows = makeRows({ n: 3, labels: ['fixed'], keyPrefix: 'intake-a' });
    const bad = { ...rows[0], finding_key: 'intake-bad', label: 'wontfix', confidence: 2 };
    const first = await agent.service.ingest([rows[0], bad, rows[1], rows[2]]);
    expect(first.accepted).toBe(3);
    expect(first.duplicate).toBe(0);
    expect(first.rejected).toEqual([
      { index: 1, field: 'label', message: 'label must be one of fixed, accepted, ignored, rejected_fp, reopened (got "wontfix")' },
      { index: 1, field: 'confidence', message: 'confidence must be a number in [0,1]' },
    ]);
    const again = await agent.service.ingest(rows);
    expect(again).toMatchObject({ accepted: 0, duplicate: 3, rejected: [] });
    expect(again.outcomes.map((o) => o.id)).toEqual(first.outcomes.map((o) => o.id));
    const counts = await agent.service.counts();
    expect(counts.outcomes).toBe(3);
  });

  test('a later label for a known finding is a new outcome; the same pair twice in one batch is one', async () => {
    const [fixed] = makeRows({ n: 1, labels: ['fixed'], keyPrefix: 'intake-b' });
    const reopened = { ...fixed, label: 'reopened', ts: '2026-11-15T09:00:00Z' };
    const result = await agent.service.ingest([fixed, reopened, { ...reopened }]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted', 'duplicate']);
    expect(result.outcomes[1]?.id).not.toBe(result.outcomes[0]?.id);
  });

  test('POST /self-improve/outcomes: 200 for a JSON array, 400 with line errors for bad JSONL, 413 when too large', async () => {
    const rows = makeRows({ n: 2, labels: ['accepted'], keyPrefix: 'http' });
    const ok = recordingResponse();
    await handlePostOutcomes({ body: rows, headers: {} }, ok.res, agent.runtime);
    expect(ok.sent.status).toBe(200);
    expect(ok.sent.body).toMatchObject({ rows: 2, accepted: 2, duplicate: 0, rejected: [] });

    const jsonl = [JSON.stringify({ ...rows[0], finding_key: 'http-new' }), '{not json', JSON.stringify({ ...rows[1], finding_key: 'http-new-2', ts: 'yesterday' })].join('\n');
    const bad = recordingResponse();
    await handlePostOutcomes({ body: jsonl, headers: { 'content-type': 'application/x-ndjson' } }, bad.res, agent.runtime);
    expect(bad.sent.status).toBe(400);
    const body = bad.sent.body as { accepted: number; rejected: { line: number; field: string }[] };
    expect(body.accepted).toBe(1);
    expect(body.rejected.map((r) => [r.line, r.field])).toEqual([
      [2, '(line)'],
      [3, 'ts'],
    ]);

    const big = recordingResponse();
    await handlePostOutcomes({ body: makeRows({ n: 40, labels: ['fixed'], keyPrefix: 'big' }), headers: {} }, big.res, agent.runtime);
    expect(big.sent.status).toBe(413);
    const declared = recordingResponse();
    await handlePostOutcomes({ body: [], headers: { 'content-length': '999999' } }, declared.res, agent.runtime);
    expect(declared.sent.status).toBe(413);
    const empty = recordingResponse();
    await handlePostOutcomes({ body: '  ', headers: {} }, empty.res, agent.runtime);
    expect(empty.sent.status).toBe(400);
  });

  test('the route is registered under the plugin name', () => {
    expect(agent.runtime.routes.some((r) => r.type === 'POST' && r.path === '/self-improve/outcomes')).toBe(true);
  });
});

test('a bad setting stops init with an error naming the setting, the value and what is allowed', async () => {
  await expect(startAgent({ settings: { SELF_IMPROVE_MIN_CONFIDENCE: '1.5' } })).rejects.toThrow(
    'Invalid setting SELF_IMPROVE_MIN_CONFIDENCE="1.5": must be a number between 0 and 1',
  );
});
