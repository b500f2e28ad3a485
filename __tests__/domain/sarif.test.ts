import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parseSarif } from '../../src/scan/model/sarif';
import { CODEQL_LOG, LOCATED, logOf, RUN_TS, SEMGREP_DEFAULTS, SEMGREP_LOG } from '../helpers/sarif-logs';

describe('parseSarif: golden logs', () => {
  test('a CodeQL log maps field by field', () => {
    expect(parseSarif(CODEQL_LOG)).toEqual({
      errors: [],
      skipped: 0,
      findings: [
        {
          path: 'runs[0].results[0]',
          label: null,
          labelReason: 'none',
          row: {
            finding_key: 'js/sql-injection:5c1a7e0f9b2d3c4e:1',
            ts: '2026-11-02T14:03:00Z',
            project: 'payments',
            scanner: 'CodeQL',
            model_provider: 'CodeQL',
            model_name: '2.15.3',
            category: 'js/sql-injection',
            cwe: 89,
            severity: 'error',
            summary: 'This query string depends on a [user-provided value](1).',
            source: 'sarif',
          },
        },
        {
          path: 'runs[0].results[1]',
          label: 'rejected_fp',
          labelReason: 'suppression:false_positive',
          row: {
            finding_key: 'js/reflected-xss:9e8d7c6b5a4f3e2d:1',
            ts: '2026-11-02T14:03:00Z',
            project: 'payments',
            scanner: 'CodeQL',
            model_provider: 'CodeQL',
            model_name: '2.15.3',
            category: 'js/reflected-xss',
            cwe: 79,
            severity: 'warning',
            summary: 'Cross-site scripting vulnerability due to a [user-provided value](1).',
            source: 'sarif',
            notes: 'False positive: output is escaped by the template engine',
          },
        },
      ],
    });
  });

  test('a Semgrep log maps with defaults for project, time and model', () => {
    const common = {
      ts: '2026-11-02T15:00:00Z',
      project: 'payments',
      scanner: 'Semgrep OSS',
      model_provider: 'anthropic',
      model_name: 'claude-sonnet-4',
      category: 'python.django.security.injection.sql.sql-injection-db-cursor-execute',
      cwe: 89,
      severity: 'error',
      summary: 'User-controlled data from request is passed to cursor.execute()',
      source: 'sarif',
    };
    expect(parseSarif(SEMGREP_LOG, SEMGREP_DEFAULTS)).toEqual({
      errors: [],
      skipped: 0,
      findings: [
        { path: 'runs[0].results[0]', label: null, labelReason: 'none', row: { ...common, finding_key: 'a1b2c3d4e5f6' } },
        { path: 'runs[0].results[1]', label: 'ignored', labelReason: 'suppression:accepted', row: { ...common, finding_key: 'f6e5d4c3b2a1' } },
      ],
    });
  });
});

describe('parseSarif: errors', () => {
  const GOOD = { ruleId: 'r', ...LOCATED };

  test.each([
    ['a wrong version', { version: '2.0.0', runs: [] }, 'version', ['"2.1.0"', '"2.0.0"']],
    ['no version', { runs: [] }, 'version', ['"2.1.0"', 'nothing']],
    ['null', null, 'version', ['"2.1.0"', 'null']],
    ['an array', [CODEQL_LOG], 'version', ['"2.1.0"', 'an array']],
    ['runs not an array', { version: '2.1.0', runs: { results: [] } }, 'runs', ['array', 'an object']],
    ['runs missing', { version: '2.1.0' }, 'runs', ['array', 'nothing']],
  ])('%s is one document error and no findings', (_name, doc, field, mentions) => {
    const parsed = parseSarif(doc);
    expect(parsed).toEqual({ findings: [], skipped: 0, errors: [{ path: '(document)', field, message: expect.any(String) }] });
    for (const mention of mentions) expect(parsed.errors[0]?.message).toContain(mention);
  });

  test('a run without tool.driver.name is one error; the other runs are still parsed', () => {
    const doc = {
      version: '2.1.0',
      runs: [
        { tool: { driver: { rules: [] } }, results: [GOOD, GOOD] },
        'not a run',
        { tool: { driver: { name: 'semgrep' } }, invocations: [{ endTimeUtc: RUN_TS }], properties: { project: 'p' }, results: [GOOD] },
      ],
    };
    const parsed = parseSarif(doc);
    expect(parsed.errors).toEqual([
      { path: 'runs[0]', field: 'tool.driver.name', message: expect.stringContaining('tool.driver.name is required') },
      { path: 'runs[1]', field: 'tool.driver.name', message: expect.stringContaining('run must be an object') },
    ]);
    expect(parsed.findings.map((f) => f.path)).toEqual(['runs[2].results[0]']);
  });

  test.each([
    ['missing', {}],
    ['not an array', { results: { 0: GOOD } }],
  ])('results %s means no results and no error', (_name, run) => {
    const doc = { version: '2.1.0', runs: [{ tool: { driver: { name: 'semgrep' } }, ...run }] };
    expect(parseSarif(doc)).toEqual({ findings: [], errors: [], skipped: 0 });
  });

  test('a missing project is an error telling how to set it; the result is not returned', () => {
    const parsed = parseSarif(logOf([GOOD], { properties: {} }));
    expect(parsed).toEqual({
      findings: [],
      skipped: 0,
      errors: [
        {
          path: 'runs[0].results[0]',
          field: 'project',
          message: 'project is required: set properties.project on the result or the run, or pass a default project (CLI --project, HTTP ?project=)',
        },
      ],
    });
  });

  test('a missing ts is an error telling to pass a time', () => {
    const parsed = parseSarif(logOf([GOOD], { invocations: [{ executionSuccessful: true }] }));
    expect(parsed.findings).toEqual([]);
    expect(parsed.errors).toEqual([{ path: 'runs[0].results[0]', field: 'ts', message: expect.stringContaining('--now') }]);
  });

  test('a result with no key source is an error on finding_key', () => {
    const parsed = parseSarif(logOf([{ message: { text: 'something' } }]));
    expect(parsed.errors).toEqual([{ path: 'runs[0].results[0]', field: 'finding_key', message: expect.stringContaining('finding_key') }]);
  });

  test('every problem of one result is reported', () => {
    const parsed = parseSarif(logOf([{ properties: { label: 'nope' } }], { properties: {}, invocations: [] }));
    expect(parsed.errors.map((e) => [e.path, e.field])).toEqual([
      ['runs[0].results[0]', 'finding_key'],
      ['runs[0].results[0]', 'ts'],
      ['runs[0].results[0]', 'project'],
      ['runs[0].results[0]', 'properties.label'],
    ]);
  });

  test('a result that is not an object is an error with its path; its neighbours are parsed', () => {
    const parsed = parseSarif(logOf([GOOD, 'oops', GOOD]));
    expect(parsed.errors).toEqual([{ path: 'runs[0].results[1]', field: '(result)', message: 'result must be an object, found "oops"' }]);
    expect(parsed.findings.map((f) => f.path)).toEqual(['runs[0].results[0]', 'runs[0].results[2]']);
  });
});

describe('parseSarif: result kinds', () => {
  test('pass, notApplicable and informational are skipped, not errors', () => {
    const kinds = ['pass', 'notApplicable', 'informational', 'fail', 'review', 'open', undefined];
    const parsed = parseSarif(logOf(kinds.map((kind) => ({ ruleId: 'r', ...LOCATED, kind }))));
    expect(parsed.errors).toEqual([]);
    expect(parsed.skipped).toBe(3);
    expect(parsed.findings.map((f) => f.path)).toEqual(['runs[0].results[3]', 'runs[0].results[4]', 'runs[0].results[5]', 'runs[0].results[6]']);
  });

  test('a skipped result is not checked for missing fields', () => {
    expect(parseSarif(logOf([{ kind: 'pass' }], { properties: {} }))).toEqual({ findings: [], errors: [], skipped: 1 });
  });
});

describe('parseSarif: determinism', () => {
  const POOL: unknown[] = [
    ...CODEQL_LOG.runs[0]!.results,
    { ruleId: 'go/path-injection', guid: '0f9c3a52-8d1e-4b7a-9a61-2f7d5c1e0b33', baselineState: 'absent' },
    { ruleId: 'r', ...LOCATED, kind: 'pass' },
    { ruleId: 'r', ...LOCATED, suppressions: [{ status: 'underReview' }], rank: 40 },
    42,
    { message: { text: 'no key' } },
  ];

  test('the same input gives the same output', () => {
    expect(parseSarif(CODEQL_LOG)).toEqual(parseSarif(structuredClone(CODEQL_LOG)));
  });

  test('each result maps the same whatever its neighbours and order', () => {
    const alone = POOL.map((result) => parseSarif(logOf([result], { tool: CODEQL_LOG.runs[0]!.tool })));
    fc.assert(
      fc.property(fc.shuffledSubarray([...POOL.keys()]), (picked) => {
        const parsed = parseSarif(logOf(picked.map((i) => POOL[i]), { tool: CODEQL_LOG.runs[0]!.tool }));
        const expected = picked.map((i) => alone[i]!);
        const strip = <T extends { path: string }>({ path: _path, ...rest }: T) => rest;
        expect(parsed.findings.map(strip)).toEqual(expected.flatMap((p) => p.findings.map(strip)));
        expect(parsed.errors.map(strip)).toEqual(expected.flatMap((p) => p.errors.map(strip)));
        expect(parsed.skipped).toBe(expected.reduce((sum, p) => sum + p.skipped, 0));
        const pathsAt = (key: 'findings' | 'errors') =>
          expected.flatMap((p, at) => p[key].map((x) => x.path.replace('results[0]', `results[${at}]`)));
        expect(parsed.findings.map((f) => f.path)).toEqual(pathsAt('findings'));
        expect(parsed.errors.map((e) => e.path)).toEqual(pathsAt('errors'));
      }),
    );
  });
});
