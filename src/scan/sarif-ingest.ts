import { jsonErrorWhere } from '../shared/json-error';
import type { FindingRow } from './model/outcome';
import { type SarifDefaults, type SarifError, parseSarif } from './model/sarif';
import type { ScanOutcomeService } from './scan-outcome-service';

/** What a SARIF log added. Snake_case: printed as JSON. */
export interface SarifIngestResult {
  /** Results that describe findings (pass / notApplicable / informational ones are `skipped`). */
  results: number;
  skipped: number;
  /** Results whose triage state gave a label, stored as outcomes. */
  outcomes: { accepted: number; duplicate: number };
  /** Findings that reappeared after being recorded fixed: stored as `reopened` outcomes. */
  reopened: number;
  /** Results without triage information, recorded as findings awaiting labels. */
  awaiting: { recorded: number; known: number };
  /** Results without triage information for findings that already have a label: nothing to record. */
  already_labelled: number;
  /** Refused results: where (e.g. `runs[0].results[3]`), which field, why. */
  rejected: SarifError[];
}

/** The parsed `.sarif` body: anything else is a usage error for the caller to report. */
export function parseSarifText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = jsonErrorWhere(text);
    throw new SyntaxError(`SARIF must be one JSON document: syntax error${where ? ` at ${where}` : ''}: ${(error as Error).message}`);
  }
}

/**
 * Ingests a SARIF 2.1.0 log. Results whose suppressions or baseline state say how they were
 * triaged become outcomes (mapping in `domain/sarif.ts` and the README); the rest are recorded as
 * findings awaiting labels, except that a finding seen again after its last label was `fixed` is
 * recorded as `reopened`, and one that already has a label needs nothing. A finding the agent
 * already knows keeps its stored project, scanner, model and category. Re-ingesting the same log
 * changes nothing.
 */
export async function ingestSarif(service: ScanOutcomeService, doc: unknown, defaults: SarifDefaults = {}): Promise<SarifIngestResult> {
  const parsed = parseSarif(doc, defaults);
  const result: SarifIngestResult = {
    results: parsed.findings.length + new Set(parsed.errors.filter((e) => e.path.includes('results[')).map((e) => e.path)).size,
    skipped: parsed.skipped,
    outcomes: { accepted: 0, duplicate: 0 },
    reopened: 0,
    awaiting: { recorded: 0, known: 0 },
    already_labelled: 0,
    rejected: [...parsed.errors],
  };
  const known = await service.lookupFindings(parsed.findings.map((f) => String(f.row.finding_key)));
  const outcomeRows: { path: string; row: Record<string, unknown> }[] = [];
  const awaitingRows: { path: string; row: Record<string, unknown> }[] = [];
  for (const finding of parsed.findings) {
    const seen = known.get(String(finding.row.finding_key));
    // A known finding keeps the identity it was first stored with: a SARIF log often cannot name the model.
    const row = seen ? { ...finding.row, ...identityOf(seen.row) } : finding.row;
    if (finding.label !== null) {
      outcomeRows.push({ path: finding.path, row: { ...row, label: finding.label } });
      continue;
    }
    const lastLabel = seen?.labels[seen.labels.length - 1];
    const lastLabelTs = seen?.lastLabelTs;
    if (lastLabel === 'fixed' && typeof lastLabelTs === 'string' && Date.parse(String(row.ts)) > Date.parse(lastLabelTs)) {
      outcomeRows.push({ path: finding.path, row: { ...row, label: 'reopened' } });
      result.reopened++;
    } else if (seen && seen.labels.length > 0) {
      result.already_labelled++;
    } else {
      awaitingRows.push({ path: finding.path, row });
    }
  }
  const stored = await service.ingest(outcomeRows.map((r) => r.row));
  result.outcomes = { accepted: stored.accepted, duplicate: stored.duplicate };
  for (const r of stored.rejected) result.rejected.push({ path: outcomeRows[r.index]?.path ?? '(unknown)', field: r.field, message: r.message });
  const recorded = await service.recordFindings(awaitingRows.map((r) => r.row));
  result.awaiting = { recorded: recorded.recorded, known: recorded.known };
  for (const r of recorded.rejected) result.rejected.push({ path: awaitingRows[r.index]?.path ?? '(unknown)', field: r.field, message: r.message });
  return result;
}

function identityOf(row: FindingRow): Partial<FindingRow> {
  const { project, scanner, model_provider, model_name, category } = row;
  return { project, scanner, model_provider, model_name, category };
}

/** Characters of a text, after its leading whitespace, that `looksLikeSarif` reads. */
export const SARIF_SNIFF_CHARS = 2_000;

/** Whether a file name or text (its first SARIF_SNIFF_CHARS characters are enough) looks like SARIF rather than outcome JSONL. */
export function looksLikeSarif(fileName: string, text: string): boolean {
  if (/\.sarif(\.json)?$/i.test(fileName)) return true;
  const head = text.trimStart().slice(0, SARIF_SNIFF_CHARS);
  return head.startsWith('{') && /"\$schema"\s*:\s*"[^"]*sarif/i.test(head);
}
