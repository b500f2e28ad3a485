import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { DAY_MS } from '../../src/scan/model/grouping';
import { computeScanMetrics } from '../../src/scan/model/metrics';
import { weeklyTriage } from '../../src/scan/model/weekly-triage';
import { MetricRollup } from '../../src/scan/metric-rollup-store';
import { dbOf } from '../../src/shared/sql';
import { findingMetrics, metricRollupState, metricTallies, weekFindingMetrics } from '../../src/scan/tables';
import { startAgent, type TestAgent } from '../helpers/runtime';

const START = Date.parse('2026-09-01T00:00:00Z');
const HOUR = 3_600_000;
const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'] as const;
// Keys around U+E000..U+FFFF and astral characters: code-unit order differs from code-point order there.
const KEY_STEMS = ['a', 'b', '\uE000', '\u{1F600}', "o'hara", 'z'];
const PROJECTS = ['payments', 'mobile', "pay'; DROP TABLE x;--", '\u{1F600}proj'];
const SCANNERS = ['semgrep', 'codeql'];
const MODELS = [
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3'],
] as const;

/** A deterministic mix: many findings over ten weeks, discrete confidences (ties), some without one, some relabelled. */
function mixedRows(seed: number, n: number, offsetMs = 0): Record<string, unknown>[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => {
    const [provider, name] = MODELS[Math.floor(next() * MODELS.length)] as readonly [string, string];
    const confidence = next() < 0.2 ? undefined : [0, 0.3, 0.5, 0.9, 1][Math.floor(next() * 5)];
    return {
      finding_key: `${KEY_STEMS[i % KEY_STEMS.length]}-${seed}-${Math.floor(i / 2)}`,
      label: LABELS[Math.floor(next() * LABELS.length)],
      ts: new Date(START + offsetMs + Math.floor(next() * 70 * 24) * HOUR + (i % 7) * 1000).toISOString(),
      project: PROJECTS[Math.floor(next() * PROJECTS.length)],
      scanner: SCANNERS[Math.floor(next() * SCANNERS.length)],
      model_provider: provider,
      model_name: name,
      ...(confidence === undefined ? {} : { confidence }),
    };
  });
}

/** One finding relabelled across projects and models: accepted, fixed a day later, reopened, then judged a false positive elsewhere. */
const RELABELS = [
  { label: 'accepted', ts: '2026-10-01T10:00:00Z', project: 'payments', model_name: 'gpt-4o', confidence: 0.9 },
  { label: 'fixed', ts: '2026-10-02T10:00:00Z', project: 'payments', model_name: 'gpt-4o', confidence: 0.9 },
  { label: 'reopened', ts: '2026-10-20T10:00:00Z', project: 'mobile', model_name: 'claude-3' },
  { label: 'rejected_fp', ts: '2026-10-21T10:00:00Z', project: 'mobile', model_name: 'claude-3', confidence: 0.3 },
].map((r) => ({ finding_key: 'relabelled', scanner: 'semgrep', model_provider: r.model_name === 'gpt-4o' ? 'openai' : 'anthropic', ...r }));

/** Numbers rounded to 9 places: the rollup's sums are exact sums rounded once, the rows' are running double sums. */
const rounded = (value: unknown): unknown =>
  typeof value === 'number'
    ? Math.round(value * 1e9) / 1e9 + 0
    : Array.isArray(value)
      ? value.map(rounded)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

/** Times in the middle of a day, at a day's start, and past every outcome. */
const AS_OFS = [Date.parse('2026-10-15T13:37:11.123Z'), Date.parse('2026-10-27T00:00:00Z'), Date.parse('2026-11-09T23:59:59.999Z'), Date.parse('2027-01-05T06:00:00Z')];

async function expectRollupEqualsRows(agent: TestAgent): Promise<void> {
  const rows = await agent.service.outcomes.forMetrics();
  const firstSeen = await agent.service.findings.firstSeen();
  for (const asOfMs of AS_OFS) {
    for (const k of [1, 7, 1000]) {
      const fromRollup = await agent.service.metrics({ asOfMs, k });
      expect(rounded(fromRollup)).toEqual(rounded(computeScanMetrics(rows, firstSeen, { asOfMs, k })));
      for (const weeks of [1, 9]) {
        expect(rounded(await agent.service.weeklyTriage({ weeks, asOfMs, k }))).toEqual(rounded(weeklyTriage(rows, { weeks, asOfMs, k })));
      }
    }
  }
}

async function forgetRollup(agent: TestAgent): Promise<void> {
  const db = dbOf(agent.runtime);
  for (const table of [findingMetrics, weekFindingMetrics, metricTallies, metricRollupState]) await db.execute(sql`DELETE FROM ${table}`);
}

async function rollupComplete(agent: TestAgent): Promise<boolean> {
  return new MetricRollup(dbOf(agent.runtime), agent.runtime.agentId).complete();
}

describe('the metrics rollup on a real runtime', () => {
  let dir: string;
  let agent: TestAgent;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-metrics-rollup-'));
    agent = await startAgent({ dataDir: dir });
  });
  afterAll(async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('after a mixed ingest with re-labels and first sightings, the rollup gives the figures of every row', async () => {
    // A first sighting before the labels, and one recorded after them (it moves the time to fix).
    await agent.service.recordFindings([{ ...RELABELS[0], ts: '2026-09-20T10:00:00Z', label: undefined }]);
    await agent.service.ingest(mixedRows(1, 400));
    for (const row of RELABELS) await agent.service.ingest([row]);
    await agent.service.ingest(mixedRows(1, 400));
    const laterSighting = mixedRows(1, 40).filter((r) => r.label === 'fixed').map((r) => ({ ...r, label: undefined, ts: '2026-08-01T00:00:00Z' }));
    expect(laterSighting.length).toBeGreaterThan(0);
    await agent.service.recordFindings(laterSighting);
    await agent.service.ingest(mixedRows(2, 300, 3 * DAY_MS));
    expect(await rollupComplete(agent)).toBe(true);
    const report = await agent.service.metrics({ asOfMs: AS_OFS[3] as number, k: 5 });
    expect(report.overall.median_time_to_fix_hours).not.toBeNull();
    expect(report.model_deltas.length).toBeGreaterThan(0);
    expect(Object.keys(report.by_project)).toContain("pay'; DROP TABLE x;--");
    await expectRollupEqualsRows(agent);
  });

  test('a restart on outcomes that predate the rollup fills it in the background, then gives the same figures', async () => {
    await forgetRollup(agent);
    await agent.close();
    agent = await startAgent({ dataDir: dir });
    await agent.service.metricsRollupFilled();
    expect(await rollupComplete(agent)).toBe(true);
    await expectRollupEqualsRows(agent);
  });

  test('a backfill in small chunks with ingests between them counts every outcome once', async () => {
    await forgetRollup(agent);
    const rollup = new MetricRollup(dbOf(agent.runtime), agent.runtime.agentId);
    await rollup.ensureStarted();
    let steps = 0;
    while (await rollup.backfillStep(97)) {
      steps++;
      if (steps === 3) await agent.service.ingest(mixedRows(3, 120, 5 * DAY_MS));
      expect(await rollup.complete()).toBe(false);
    }
    expect(steps).toBeGreaterThan(5);
    expect(await rollup.complete()).toBe(true);
    await expectRollupEqualsRows(agent);
  });
});
