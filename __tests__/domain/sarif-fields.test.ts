import { describe, expect, test } from 'bun:test';
import { MAX_TEXT_CHARS } from '../../src/scan/model/outcome';
import { parseSarif, type SarifDefaults } from '../../src/scan/model/sarif';
import { type Json, LOCATED, logOf, RUN_TS } from '../helpers/sarif-logs';

/** The row of a lone result that must map without errors. */
function rowOf(result: Json, run: Json = {}, defaults?: SarifDefaults): Json {
  const parsed = parseSarif(logOf([result], run), defaults);
  expect(parsed.errors).toEqual([]);
  expect(parsed.findings).toHaveLength(1);
  return parsed.findings[0]?.row ?? {};
}

const KEYED = { ruleId: 'js/xss', ...LOCATED };
const driver = (extra: Json) => ({ tool: { driver: { name: 'semgrep', ...extra } } });

describe('project', () => {
  const provenance = (repositoryUri: string) => ({ properties: {}, versionControlProvenance: [{ repositoryUri }] });
  test.each<[string, Json, Json, SarifDefaults | undefined, string]>([
    ['result properties first', { properties: { project: 'from-result' } }, { properties: { project: 'from-run' } }, { project: 'from-default' }, 'from-result'],
    ['then run properties', {}, { properties: { project: 'from-run' } }, { project: 'from-default' }, 'from-run'],
    ['then the default, before provenance', {}, provenance('https://github.com/acme/payments.git'), { project: 'from-default' }, 'from-default'],
    ['then an https provenance', {}, provenance('https://github.com/acme/payments.git'), undefined, 'payments'],
    ['an scp-like provenance', {}, provenance('git@github.com:acme/billing.git'), undefined, 'billing'],
    ['a provenance with a trailing slash', {}, provenance('https://gitlab.com/acme/ledger/'), undefined, 'ledger'],
    ['a blank value falls through', { properties: { project: '  ' } }, { properties: { project: 'from-run' } }, undefined, 'from-run'],
  ])('%s', (_name, result, run, defaults, expected) => {
    expect(rowOf({ ...KEYED, ...result }, run, defaults).project).toBe(expected);
  });
});

describe('model_provider and model_name', () => {
  test.each<[string, Json, Json, SarifDefaults | undefined, string, string]>([
    [
      'result properties first',
      { properties: { model_provider: 'openai', model_name: 'gpt-4o' } },
      { properties: { project: 'p', model_provider: 'x', model_name: 'y' } },
      { model_provider: 'z', model_name: 'w' },
      'openai',
      'gpt-4o',
    ],
    ['then run properties', {}, { properties: { project: 'p', model_provider: 'anthropic', model_name: 'claude' } }, { model_provider: 'z', model_name: 'w' }, 'anthropic', 'claude'],
    ['then defaults', {}, driver({ semanticVersion: '1.50.0' }), { model_provider: 'google', model_name: 'gemini' }, 'google', 'gemini'],
    ['then the driver: name and semanticVersion', {}, driver({ semanticVersion: '1.50.0', version: '1.50' }), undefined, 'semgrep', '1.50.0'],
    ['the driver version', {}, driver({ version: '2024.1' }), undefined, 'semgrep', '2024.1'],
    ['no version at all', {}, driver({}), undefined, 'semgrep', 'unversioned'],
  ])('%s', (_name, result, run, defaults, provider, name) => {
    const row = rowOf({ ...KEYED, ...result }, run, { project: 'p', ...defaults });
    expect([row.model_provider, row.model_name]).toEqual([provider, name]);
  });
});

describe('ts', () => {
  const DEFAULT_TS = '2026-12-01T00:00:00Z';
  test.each<[string, Json, Json, string]>([
    ['result properties first', { properties: { ts: '2026-10-01T08:00:00+02:00' } }, {}, '2026-10-01T08:00:00+02:00'],
    ['then the invocation end', {}, { invocations: [{ startTimeUtc: '2026-11-02T13:58:10Z', endTimeUtc: RUN_TS }] }, RUN_TS],
    ['then the invocation start', {}, { invocations: [{ startTimeUtc: '2026-11-02T13:58:10Z' }] }, '2026-11-02T13:58:10Z'],
    ['then the default', {}, { invocations: [] }, DEFAULT_TS],
    ['kept as given, unvalidated', { properties: { ts: 'yesterday' } }, {}, 'yesterday'],
  ])('%s', (_name, result, run, expected) => {
    expect(rowOf({ ...KEYED, ...result }, run, { ts: DEFAULT_TS }).ts).toBe(expected);
  });
});

describe('finding_key', () => {
  const at = (uri?: string, startLine?: number) => [{ physicalLocation: { artifactLocation: { uri }, region: { startLine } } }];
  test.each<[string, Json, string]>([
    ['guid first', { guid: 'g-1', correlationGuid: 'c-1', fingerprints: { a: 'f' }, ...KEYED }, 'g-1'],
    ['then correlationGuid', { correlationGuid: 'c-1', fingerprints: { a: 'f' }, ...KEYED }, 'c-1'],
    ['then the alphabetically first fingerprint', { fingerprints: { 'sha256/v1': 'later', 'matchBasedId/v1': 'first' }, partialFingerprints: { a: 'p' } }, 'first'],
    ['a blank fingerprint is passed over', { fingerprints: { a: ' ', b: 'second' } }, 'second'],
    ['then partial fingerprints', { partialFingerprints: { primaryLocationStartColumnFingerprint: '13', primaryLocationLineHash: 'h:1' } }, 'h:1'],
    ['partial fingerprints hash the line, so the rule id goes in front', { ruleId: 'js/xss', partialFingerprints: { primaryLocationLineHash: 'h:1' } }, 'js/xss:h:1'],
    ['then ruleId@uri:line', { ruleId: 'js/xss', locations: at('src/a.ts', 7) }, 'js/xss@src/a.ts:7'],
    ['without a line', { ruleId: 'js/xss', locations: at('src/a.ts') }, 'js/xss@src/a.ts'],
    ['without a uri', { ruleId: 'js/xss', locations: at(undefined, 7) }, 'js/xss:7'],
    ['the rule id from result.rule', { rule: { id: 'js/xss' }, locations: at('src/a.ts', 7) }, 'js/xss@src/a.ts:7'],
    ['without a rule id', { locations: at('src/a.ts', 7) }, '@src/a.ts:7'],
  ])('%s', (_name, result, expected) => {
    expect(rowOf(result).finding_key).toBe(expected);
  });
});

describe('rule lookup, category and severity', () => {
  const rules = [
    { id: 'r0', properties: { category: 'injection' }, defaultConfiguration: { level: 'note' } },
    { id: 'r1', shortDescription: { text: 'rule one' } },
  ];
  const run = { ...driver({ rules }), properties: { project: 'p' }, invocations: [{ endTimeUtc: RUN_TS }] };
  test.each<[string, Json, { category: string; severity: string }]>([
    ['ruleIndex finds the rule', { ruleIndex: 0, ...LOCATED }, { category: 'injection', severity: 'note' }],
    ['ruleIndex wins over ruleId', { ruleIndex: 1, ruleId: 'r0', ...LOCATED }, { category: 'r0', severity: 'warning' }],
    ['a ruleIndex out of range falls back to the id', { ruleIndex: 9, ruleId: 'r0', ...LOCATED }, { category: 'injection', severity: 'note' }],
    ['result properties and level first', { ruleId: 'r0', level: 'error', properties: { category: 'sqli' }, ...LOCATED }, { category: 'sqli', severity: 'error' }],
    ['an unknown rule: category is the ruleId, severity warning', { ruleId: 'other', ...LOCATED }, { category: 'other', severity: 'warning' }],
  ])('%s', (_name, result, expected) => {
    const row = rowOf(result, run);
    expect({ category: row.category, severity: row.severity }).toEqual(expected);
  });

  test('no rule id and no category: category is omitted', () => {
    expect(Object.keys(rowOf({ guid: 'g' }))).not.toContain('category');
  });
});

describe('cwe', () => {
  const withRule = (rule: Json, result: Json = {}) => rowOf({ ruleIndex: 0, guid: 'g', ...result }, driver({ rules: [{ id: 'r', ...rule }] })).cwe;
  test.each<[string, Json, Json, number | undefined]>([
    ['properties.cwe first', { properties: { tags: ['security', 'external/cwe/cwe-089'] } }, { properties: { cwe: 79 } }, 79],
    ['a negative properties.cwe falls through', { properties: { tags: ['CWE-22'] } }, { properties: { cwe: -1 } }, 22],
    ['result tags before rule tags', { properties: { tags: ['CWE-22'] } }, { properties: { tags: ['external/cwe/cwe-078'] } }, 78],
    ['rule tags, zero-padded', { properties: { tags: ['security', 'external/cwe/cwe-022'] } }, {}, 22],
    ['rule relationships', { relationships: [{ target: { id: 'CWE-502' }, kinds: ['superset'] }] }, {}, 502],
    ['a numeric relationship into the CWE taxonomy', { relationships: [{ target: { id: '918', toolComponent: { name: 'CWE' } } }] }, {}, 918],
    ['a numeric relationship into another taxonomy', { relationships: [{ target: { id: '918', toolComponent: { name: 'OWASP' } } }] }, {}, undefined],
    ['no CWE anywhere', { properties: { tags: ['security', 'owasp-a03'] } }, {}, undefined],
  ])('%s', (_name, rule, result, expected) => {
    expect(withRule(rule, result)).toBe(expected);
  });
});

describe('confidence', () => {
  test.each<[string, Json, number | undefined]>([
    ['properties.confidence first', { properties: { confidence: 0.7 }, rank: 90 }, 0.7],
    ['then rank / 100', { rank: 85 }, 0.85],
    ['properties.confidence out of range falls back to rank', { properties: { confidence: 1.5 }, rank: 100 }, 1],
    ['rank -1 is unset', { rank: -1 }, undefined],
    ['nothing', {}, undefined],
  ])('%s', (_name, result, expected) => {
    expect(rowOf({ ...KEYED, ...result }).confidence).toBe(expected);
  });
});

describe('summary', () => {
  const rule = { id: 'r', shortDescription: { text: 'Short description' }, messageStrings: { tainted: { text: 'Data from {0} reaches {1} {{sink}}.' } } };
  const run = driver({ rules: [rule] });
  test.each<[string, Json, string | undefined]>([
    ['message.text first', { message: { text: 'Direct text', id: 'tainted' } }, 'Direct text'],
    ['then the rule message string, arguments filled', { message: { id: 'tainted', arguments: ['req.query', 'eval'] } }, 'Data from req.query reaches eval {sink}.'],
    ['an unknown message id falls to the short description', { message: { id: 'constructor' } }, 'Short description'],
  ])('%s', (_name, result, expected) => {
    expect(rowOf({ ruleIndex: 0, guid: 'g', ...result }, run).summary).toBe(expected);
  });

  test('omitted when nothing describes the result', () => {
    expect(Object.keys(rowOf(KEYED))).not.toContain('summary');
  });

  test(`cut to ${MAX_TEXT_CHARS} characters`, () => {
    expect(rowOf({ ...KEYED, message: { text: 'y'.repeat(MAX_TEXT_CHARS * 2) } }).summary).toHaveLength(MAX_TEXT_CHARS);
  });
});

describe('the row', () => {
  test('source is sarif and absent optional fields are omitted', () => {
    expect(rowOf(KEYED)).toEqual({
      finding_key: 'js/xss@src/a.ts:7',
      ts: RUN_TS,
      project: 'payments',
      scanner: 'semgrep',
      model_provider: 'semgrep',
      model_name: 'unversioned',
      category: 'js/xss',
      severity: 'warning',
      source: 'sarif',
    });
  });
});
