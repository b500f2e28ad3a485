// The package's public API is what src/index.ts exports, and nothing else. Growing it is a
// deliberate act: add the name here and a line for it in the README's "Library API" section.
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const REPO_ROOT = path.resolve(import.meta.dir, '../..');
const INDEX = path.join(REPO_ROOT, 'src/index.ts');

const RUNTIME_EXPORTS = [
  'default',
  'selfImprovePlugin',
  'ScanOutcomeService',
  'scanOutcomeServiceOf',
  'TrajectoryService',
  'trajectoryServiceOf',
  'RewardLedgerService',
  'rewardLedgerOf',
  'EloBookService',
  'eloBookOf',
  'RuleBookService',
  'ruleBookOf',
  'selfImproveTables',
  'settingsSchema',
  'parseConfig',
  'loadConfig',
  'ConfigError',
  'OUTCOME_LABELS',
  'checkOutcomeRow',
  'checkOutcomeRows',
  'REWARD_BY_LABEL',
  'weightedReward',
  'wilsonInterval',
  'statisticalSupport',
  'summarizeOutcomes',
  'TriagePrior',
  'elo',
  'verifyChain',
  'makeCheckpoint',
  'verifyAgainstCheckpoint',
  'parseSarif',
  'brierScore',
  'logLoss',
  'rocAuc',
];

const TYPE_EXPORTS = [
  'OutcomeIngestResult',
  'PredictResult',
  'TriagePrediction',
  'LearnReport',
  'ScanLesson',
  'ScanMetricsReport',
  'WeeklyTriageReport',
  'TrajectoryInput',
  'TrajectorySource',
  'TrajectoryRecordOptions',
  'StoredTrajectory',
  'AppendResult',
  'LedgerVerification',
  'CheckpointResult',
  'ReconcileReport',
  'LedgerTotals',
  'LedgerMetrics',
  'HistoryQuery',
  'EloItemState',
  'Retrieval',
  'RetrievedItem',
  'AccessOptions',
  'ItemRef',
  'ContextItem',
  'Rule',
  'RuleLesson',
  'RuleFilter',
  'RuleChange',
  'EventIngestResult',
  'EventTextResult',
  'GuardSettlement',
  'ImportResult',
  'RuleExport',
  'RuleMetrics',
  'SelfImproveConfig',
  'OutcomeRow',
  'FindingRow',
  'OutcomeLabel',
  'RowRejection',
  'TriageEstimate',
  'GroupKey',
  'LedgerTransaction',
  'LedgerCheckpoint',
  'SarifDefaults',
  'Forecast',
];

interface ParsedExports {
  /** Names exported as values (functions, classes, constants, namespaces, the default). */
  values: string[];
  /** Names exported as types only (`export type { … }`, `type X` in an export list, interfaces, type aliases). */
  types: string[];
}

/** The names a module's own export statements declare, read from its source text. */
function exportsOfSource(fileName: string, text: string): ParsedExports {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: ParsedExports = { values: [], types: [] };
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const isDefault = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) throw new Error(`${fileName}: \`export *\` hides what is exported; name the exports`);
      if (ts.isNamespaceExport(clause)) found.values.push(clause.name.text);
      else for (const specifier of clause.elements) (statement.isTypeOnly || specifier.isTypeOnly ? found.types : found.values).push(specifier.name.text);
    } else if (ts.isExportAssignment(statement)) {
      found.values.push('default');
    } else if (exported(statement)) {
      if (isDefault(statement)) found.values.push('default');
      else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) found.values.push(d.name.getText(source));
      else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) found.types.push(statement.name.text);
      else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) found.values.push(statement.name.text);
    }
  }
  return found;
}

/** The README's "## Library API" section, up to the next second-level heading. */
function libraryApiSection(readme: string): string {
  const start = readme.indexOf('\n## Library API\n');
  if (start < 0) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const sorted = (names: readonly string[]) => [...names].sort();

describe('the public API (src/index.ts)', () => {
  const parsed = exportsOfSource(INDEX, readFileSync(INDEX, 'utf8'));

  test('the parser reads export lists, type-only exports, declarations and namespaces', () => {
    const sample = [
      "export { a, type B } from './x';",
      "export type { C } from './y';",
      "export * as d from './z';",
      'export const e = 1, f = 2;',
      'export function g() {}',
      'export interface H {}',
      'export type I = string;',
      'export default g;',
    ].join('\n');
    expect(exportsOfSource('sample.ts', sample)).toEqual({ values: ['a', 'd', 'e', 'f', 'g', 'default'], types: ['B', 'C', 'H', 'I'] });
  });

  test('the runtime exports are exactly the listed ones, and the parsed export statements agree with them', async () => {
    const runtime = Object.keys(await import('../../src/index'));
    expect(sorted(runtime)).toEqual(sorted(RUNTIME_EXPORTS));
    expect(sorted(parsed.values)).toEqual(sorted(runtime));
  });

  test('the type-only exports are exactly the listed ones', () => {
    expect(sorted(parsed.types)).toEqual(sorted(TYPE_EXPORTS));
  });

  test('no name is listed twice', () => {
    const all = [...RUNTIME_EXPORTS, ...TYPE_EXPORTS];
    expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
  });

  test("every export has its line in the README's Library API section", () => {
    const section = libraryApiSection(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(section).not.toBe('');
    const documented = new Set([...section.matchAll(/^- `([A-Za-z_$][\w$]*)`:/gm)].map((m) => m[1]));
    expect([...RUNTIME_EXPORTS, ...TYPE_EXPORTS].filter((name) => !documented.has(name))).toEqual([]);
  });

  test("the README's Library API section documents no name that is not exported", () => {
    const section = libraryApiSection(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));
    const documented = [...section.matchAll(/^- `([A-Za-z_$][\w$]*)`:/gm)].map((m) => m[1] as string);
    const exported = new Set([...RUNTIME_EXPORTS, ...TYPE_EXPORTS]);
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((name) => !exported.has(name))).toEqual([]);
  });
});
