import { OUTCOME_LABELS, type OutcomeLabel } from './outcome';
import {
  asObject,
  clip,
  scannerConfidenceOf,
  cweOf,
  describe,
  dig,
  findingKeyOf,
  findRule,
  firstText,
  type Json,
  listOf,
  repositoryName,
  summaryOf,
  text,
} from './sarif-fields';
import { pathText, wireProblems } from '../../shared/wire-text';

/**
 * SARIF 2.1.0 log → raw finding rows for the outcome pipeline. Rows are not validated against the
 * outcome schema here (the service does that); only structural problems, and row fields holding
 * text the database cannot store (`wireProblems`: U+0000, an unpaired surrogate), are reported, each
 * with a path such as "runs[0].results[3]". In every fallback chain a value counts as present when it is a
 * non-blank string (numbers where stated); anything else falls through to the next source.
 */

export interface SarifDefaults {
  project?: string;
  model_provider?: string;
  model_name?: string;
  ts?: string;
}

export interface SarifFinding {
  /** Where it came from, e.g. "runs[0].results[3]". */
  path: string;
  /** The wire row without a label; undefined fields are omitted. */
  row: Record<string, unknown>;
  /** The triage label the SARIF states, or null: a finding awaiting a label. */
  label: OutcomeLabel | null;
  /** Short machine-readable reason for the label, e.g. 'suppression:accepted', 'baseline:absent', 'none'. */
  labelReason: string;
}

export interface SarifError {
  path: string;
  field: string;
  message: string;
}

export interface SarifParse {
  findings: SarifFinding[];
  errors: SarifError[];
  /** Results whose kind is pass, notApplicable or informational: not findings, not errors. */
  skipped: number;
}

export interface SarifLabel {
  label: OutcomeLabel | null;
  reason: string;
  /** Justification(s) of the suppressions that decided the label, joined with " | ". */
  notes?: string;
}

/** A suppression justification saying the finding was never real. Case-insensitive, no `g` flag (stateless). */
export const SARIF_FALSE_POSITIVE_PATTERN =
  /\b(?:false[\s-]?positives?|fp|not\s+an?\s+(?:real\s+)?(?:issue|bug|problem|vulnerability)|not\s+exploitable|unreachable|incorrectly\s+(?:flagged|reported))\b/i;

const NON_FINDING_KINDS: readonly unknown[] = ['pass', 'notApplicable', 'informational'];
const INVALID_LABEL = 'properties.label:invalid';
const PROJECT_REQUIRED =
  'project is required: set properties.project on the result or the run, or pass a default project (CLI --project, HTTP ?project=)';
const TS_REQUIRED =
  'ts is required: set properties.ts on the result or invocations[0].endTimeUtc on the run, or pass a time (e.g. CLI --now)';
const KEY_REQUIRED =
  'finding_key cannot be derived: the result has no guid, correlationGuid, fingerprints, partialFingerprints, ruleId or location uri';

const isOutcomeLabel = (value: unknown): value is OutcomeLabel => (OUTCOME_LABELS as readonly unknown[]).includes(value);

/**
 * The label a SARIF result states, first rule that applies:
 * 1. `properties.label` one of OUTCOME_LABELS → it ('properties.label'); any other non-null value →
 *    null with reason 'properties.label:invalid' (parseSarif reports it).
 * 2. Suppressions (status absent or "accepted" = in effect): any in effect → `rejected_fp` when an
 *    in-effect justification matches SARIF_FALSE_POSITIVE_PATTERN, else `ignored`; else any
 *    "underReview" → null; else any "rejected" → `accepted` (the finding stands). Non-object
 *    suppressions and unknown statuses are ignored.
 * 3. `baselineState` "absent" → `fixed`. 4. Otherwise null ('none').
 */
export function sarifLabel(result: unknown): SarifLabel {
  const stated = dig(result, 'properties', 'label');
  if (stated !== undefined && stated !== null) {
    return isOutcomeLabel(stated) ? { label: stated, reason: 'properties.label' } : { label: null, reason: INVALID_LABEL };
  }
  const suppressions = listOf(dig(result, 'suppressions')).map(asObject).filter((s): s is Json => s !== undefined);
  const bySuppression = labelFromSuppressions(suppressions);
  if (bySuppression) return bySuppression;
  if (dig(result, 'baselineState') === 'absent') return { label: 'fixed', reason: 'baseline:absent' };
  return { label: null, reason: 'none' };
}

function labelFromSuppressions(suppressions: Json[]): SarifLabel | undefined {
  const withStatus = (status: string) => suppressions.filter((s) => (s.status ?? 'accepted') === status);
  const inEffect = withStatus('accepted');
  if (inEffect.length > 0) {
    const falsePositive = inEffect.some((s) => SARIF_FALSE_POSITIVE_PATTERN.test(text(s.justification) ?? ''));
    return withNotes(
      falsePositive ? { label: 'rejected_fp', reason: 'suppression:false_positive' } : { label: 'ignored', reason: 'suppression:accepted' },
      inEffect,
    );
  }
  const underReview = withStatus('underReview');
  if (underReview.length > 0) return withNotes({ label: null, reason: 'suppression:under_review' }, underReview);
  const rejected = withStatus('rejected');
  if (rejected.length > 0) return withNotes({ label: 'accepted', reason: 'suppression:rejected' }, rejected);
  return undefined;
}

function withNotes(label: SarifLabel, deciding: Json[]): SarifLabel {
  const justifications = [...new Set(deciding.map((s) => text(s.justification)).filter((j) => j !== undefined))];
  return justifications.length > 0 ? { ...label, notes: clip(justifications.join(' | ')) } : label;
}

/** Parses a SARIF 2.1.0 log into finding rows; see the module comment and each helper for the mapping. */
export function parseSarif(doc: unknown, defaults: SarifDefaults = {}): SarifParse {
  const out: SarifParse = { findings: [], errors: [], skipped: 0 };
  const version = dig(doc, 'version');
  const runs = dig(doc, 'runs');
  if (version !== '2.1.0') {
    const found = asObject(doc) ? `version ${describe(version)}` : describe(doc);
    out.errors.push({ path: '(document)', field: 'version', message: `expected a SARIF log with version "2.1.0", found ${found}` });
  } else if (!Array.isArray(runs)) {
    out.errors.push({ path: '(document)', field: 'runs', message: `expected runs to be an array, found ${describe(runs)}` });
  } else {
    runs.forEach((run, i) => parseRun(run, `runs[${i}]`, defaults, out));
  }
  return out;
}

interface RunContext {
  run: unknown;
  scanner: string;
  rules: unknown[];
  defaults: SarifDefaults;
}

/** A run without tool.driver.name is one error and its results are skipped; missing results = none. */
function parseRun(run: unknown, path: string, defaults: SarifDefaults, out: SarifParse): void {
  const scanner = text(dig(run, 'tool', 'driver', 'name'));
  if (scanner === undefined) {
    const message = asObject(run)
      ? 'tool.driver.name is required (it names the scanner); the results of this run are skipped'
      : `run must be an object with tool.driver.name, found ${describe(run)}`;
    out.errors.push({ path, field: 'tool.driver.name', message });
    return;
  }
  const context: RunContext = { run, scanner, rules: listOf(dig(run, 'tool', 'driver', 'rules')), defaults };
  listOf(dig(run, 'results')).forEach((raw, j) => {
    const resultPath = `${path}.results[${j}]`;
    const result = asObject(raw);
    if (!result) {
      out.errors.push({ path: resultPath, field: '(result)', message: `result must be an object, found ${describe(raw)}` });
    } else if (NON_FINDING_KINDS.includes(result.kind)) {
      out.skipped += 1;
    } else {
      const mapped = mapResult(result, context);
      if ('errors' in mapped) out.errors.push(...mapped.errors.map((e) => ({ path: resultPath, ...e })));
      else out.findings.push({ path: resultPath, ...mapped });
    }
  });
}

type Mapped = Omit<SarifFinding, 'path'> | { errors: Omit<SarifError, 'path'>[] };

function mapResult(result: Json, context: RunContext): Mapped {
  const { run, defaults, scanner } = context;
  const rule = findRule(result, context.rules);
  const ruleId = firstText(result.ruleId, dig(result, 'rule', 'id'), rule?.id);
  const own = (key: string) => dig(result, 'properties', key);
  const ofRun = (key: string) => dig(run, 'properties', key);
  const project =
    firstText(own('project'), ofRun('project'), defaults.project) ??
    repositoryName(dig(run, 'versionControlProvenance', 0, 'repositoryUri'));
  const ts = firstText(own('ts'), dig(run, 'invocations', 0, 'endTimeUtc'), dig(run, 'invocations', 0, 'startTimeUtc'), defaults.ts);
  const findingKey = findingKeyOf(result, ruleId);
  const decided = sarifLabel(result);

  const errors: Omit<SarifError, 'path'>[] = [];
  if (findingKey === undefined) errors.push({ field: 'finding_key', message: KEY_REQUIRED });
  if (ts === undefined) errors.push({ field: 'ts', message: TS_REQUIRED });
  if (project === undefined) errors.push({ field: 'project', message: PROJECT_REQUIRED });
  if (decided.reason === INVALID_LABEL) {
    const allowed = `properties.label must be one of ${OUTCOME_LABELS.join(', ')}`;
    errors.push({ field: 'properties.label', message: `${allowed} (got ${describe(own('label'))})` });
  }
  if (errors.length > 0) return { errors };

  const row: Record<string, unknown> = {
    finding_key: findingKey,
    ts,
    project,
    scanner,
    model_provider: firstText(own('model_provider'), ofRun('model_provider'), defaults.model_provider) ?? scanner,
    model_name:
      firstText(own('model_name'), ofRun('model_name'), defaults.model_name, dig(run, 'tool', 'driver', 'semanticVersion'), dig(run, 'tool', 'driver', 'version')) ??
      'unversioned',
    category: firstText(own('category'), dig(rule, 'properties', 'category')) ?? ruleId,
    cwe: cweOf(result, rule),
    confidence: scannerConfidenceOf(result),
    severity: firstText(result.level, dig(rule, 'defaultConfiguration', 'level')) ?? 'warning',
    summary: summaryOf(result, rule),
    source: 'sarif',
    notes: decided.notes,
  };
  const compact = Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
  const unstorable = wireProblems(compact);
  if (unstorable.length > 0) return { errors: unstorable.map((p) => ({ field: pathText(p.path), message: p.message })) };
  return { row: compact, label: decided.label, labelReason: decided.reason };
}
