import type { SarifDefaults } from '../../src/scan/model/sarif';

/** SARIF 2.1.0 fixtures for the sarif domain tests, shaped like real scanner output. */

export type Json = Record<string, unknown>;

/** A CodeQL-style log: rules with CWE tags, results by ruleIndex, partial fingerprints, provenance. */
export const CODEQL_LOG = {
  $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
  version: '2.1.0',
  runs: [
    {
      tool: {
        driver: {
          name: 'CodeQL',
          organization: 'GitHub',
          semanticVersion: '2.15.3',
          rules: [
            {
              id: 'js/sql-injection',
              name: 'js/sql-injection',
              shortDescription: { text: 'Database query built from user-controlled sources' },
              defaultConfiguration: { level: 'error' },
              properties: { tags: ['security', 'external/cwe/cwe-089'], precision: 'high', 'security-severity': '8.8' },
            },
            {
              id: 'js/reflected-xss',
              name: 'js/reflected-xss',
              shortDescription: { text: 'Reflected cross-site scripting' },
              messageStrings: { default: { text: 'Cross-site scripting vulnerability due to {0}.' } },
              defaultConfiguration: { level: 'error' },
              properties: { tags: ['security', 'external/cwe/cwe-079', 'external/cwe/cwe-116'] },
            },
          ],
        },
      },
      invocations: [{ executionSuccessful: true, startTimeUtc: '2026-11-02T13:58:10Z', endTimeUtc: '2026-11-02T14:03:00Z' }],
      versionControlProvenance: [{ repositoryUri: 'https://github.com/acme/payments.git', revisionId: '4f2c9e1', branch: 'refs/heads/main' }],
      results: [
        {
          ruleId: 'js/sql-injection',
          ruleIndex: 0,
          rule: { id: 'js/sql-injection', index: 0 },
          message: { text: 'This query string depends on a [user-provided value](1).' },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: 'src/db/orders.ts', uriBaseId: '%SRCROOT%', index: 0 },
                region: { startLine: 42, startColumn: 18, endColumn: 61 },
              },
            },
          ],
          partialFingerprints: { primaryLocationStartColumnFingerprint: '13', primaryLocationLineHash: '5c1a7e0f9b2d3c4e:1' },
        },
        {
          ruleId: 'js/reflected-xss',
          ruleIndex: 1,
          level: 'warning',
          message: { id: 'default', arguments: ['a [user-provided value](1)'] },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'src/routes/search.ts' }, region: { startLine: 17 } } }],
          partialFingerprints: { primaryLocationLineHash: '9e8d7c6b5a4f3e2d:1' },
          suppressions: [{ kind: 'external', status: 'accepted', justification: 'False positive: output is escaped by the template engine' }],
        },
      ],
    },
  ],
};

/** A Semgrep-style log: no ruleIndex, fingerprints, no invocation times, nosemgrep in-source suppression. */
export const SEMGREP_LOG = {
  version: '2.1.0',
  runs: [
    {
      tool: {
        driver: {
          name: 'Semgrep OSS',
          semanticVersion: '1.50.0',
          rules: [
            {
              id: 'python.django.security.injection.sql.sql-injection-db-cursor-execute',
              shortDescription: { text: 'User-controlled data in a SQL cursor' },
              defaultConfiguration: { level: 'error' },
              properties: { precision: 'very-high', tags: ['CWE-89: Improper Neutralization of Special Elements used in an SQL Command', 'OWASP-A03:2021 - Injection'] },
            },
          ],
        },
      },
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: [] }],
      results: [
        {
          ruleId: 'python.django.security.injection.sql.sql-injection-db-cursor-execute',
          level: 'error',
          message: { text: 'User-controlled data from request is passed to cursor.execute()' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'app/views.py', uriBaseId: '%SRCROOT%' }, region: { startLine: 88 } } }],
          fingerprints: { 'matchBasedId/v1': 'a1b2c3d4e5f6' },
          properties: {},
        },
        {
          ruleId: 'python.django.security.injection.sql.sql-injection-db-cursor-execute',
          level: 'error',
          message: { text: 'User-controlled data from request is passed to cursor.execute()' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'app/admin.py' }, region: { startLine: 12 } } }],
          fingerprints: { 'matchBasedId/v1': 'f6e5d4c3b2a1' },
          suppressions: [{ kind: 'inSource' }],
        },
      ],
    },
  ],
};

export const SEMGREP_DEFAULTS: SarifDefaults = { project: 'payments', ts: '2026-11-02T15:00:00Z', model_provider: 'anthropic', model_name: 'claude-sonnet-4' };

export const RUN_TS = '2026-11-02T14:03:00Z';

/** A one-run log with a named driver, an end time and a project, unless `run` overrides them. */
export function logOf(results: unknown[], run: Json = {}): Json {
  return {
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'semgrep' } }, invocations: [{ endTimeUtc: RUN_TS }], properties: { project: 'payments' }, results, ...run }],
  };
}

export const LOCATED = { locations: [{ physicalLocation: { artifactLocation: { uri: 'src/a.ts' }, region: { startLine: 7 } } }] };
