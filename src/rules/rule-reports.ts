import path from 'node:path';
import type { IAgentRuntime } from '@elizaos/core';
import { type DecayPolicy, ruleConfidenceAt, isInjectable } from './model/rule-confidence';
import { type RuleWire, ruleToWire } from './model/export';
import type { ImportStep } from './model/import';
import type { Rule } from './model/types';
import type { EventTextResult, RuleBookService, RuleFilter } from './rule-book-service';

/**
 * What the rules surfaces (HTTP routes, CLI, dashboard) send: the rule book's results in seed 003
 * wire names (snake_case), built once here so every surface says the same thing.
 */

/** A refused event row: by `line` (JSONL, and lines that are not JSON) or by `index` (0-based item of a JSON array). */
export type EventRejectionWire = ({ line: number } | { index: number }) & { field: string; message: string };

export interface EventIngestReport {
  rows: number;
  accepted: number;
  duplicate: number;
  /** Lines that are not JSON (field `(line)`, also in the parse-error log), then rows that failed validation. */
  rejected: EventRejectionWire[];
  /** How many lines went to the parse-error log. */
  parse_errors: number;
  lessons_created: number;
  lessons_updated: number;
  rules_promoted: string[];
}

/** Rows of a JSON array are numbered by 0-based `index`; everything else by 1-based `line`. */
export function isJsonArrayText(text: string): boolean {
  return text.trimStart().startsWith('[');
}

/** `ingestEventText`'s result for the wire; `byIndex` when the input was a JSON array (see `isJsonArrayText`). */
export function eventIngestReport(result: EventTextResult, byIndex: boolean): EventIngestReport {
  const broken: EventRejectionWire[] = result.parseErrors.map((e) => ({ line: e.line, field: '(line)', message: e.message }));
  const refused: EventRejectionWire[] = result.rejected.map((r) => ({ ...(byIndex ? { index: r.line - 1 } : { line: r.line }), field: r.field, message: r.message }));
  return {
    rows: result.rows,
    accepted: result.accepted,
    duplicate: result.duplicate,
    rejected: [...broken, ...refused],
    parse_errors: result.parseErrors.length,
    lessons_created: result.ruleLessonsCreated,
    lessons_updated: result.ruleLessonsUpdated,
    rules_promoted: [...result.rulesPromoted],
  };
}

/** A rejection's place as people read it: `line 4` or `item 2` (0-based index). */
export function rejectionPlace(r: EventRejectionWire): string {
  return 'line' in r ? `line ${r.line}` : `item ${r.index}`;
}

/** A listed rule: the seed's rule fields, plus its conflicts and its confidence now (decayed from its last validation). */
export interface RuleListItem extends RuleWire {
  conflicts_with: string[];
  /** `ruleConfidenceAt(last validated, now)`, 4 decimals: what the prompt and the guard use. */
  confidence_now: number;
  /** Whether TOP_RULES may inject it now (active, unflagged, no conflict, confidence ≥ 0.5). */
  injectable: boolean;
}

export function ruleListItem(rule: Rule, nowMs: number, policy: DecayPolicy): RuleListItem {
  return {
    ...ruleToWire(rule),
    conflicts_with: [...rule.conflictsWith],
    confidence_now: Math.round(ruleConfidenceAt(rule.lastValidatedMs, nowMs, policy) * 10_000) / 10_000,
    injectable: isInjectable(rule, nowMs, policy),
  };
}

/** A MUST/NEVER pair whose scopes overlap: neither is injected until one is retired. */
export interface RuleConflictWire {
  rules: [string, string];
  category: string;
}

/** Each conflict among `rules` once, lower id first, in id order. */
export function conflictPairs(rules: readonly Rule[]): RuleConflictWire[] {
  const listed = new Map(rules.map((r) => [r.id, r]));
  const pairs: RuleConflictWire[] = [];
  for (const rule of listed.values()) {
    for (const other of rule.conflictsWith) {
      if (rule.id < other && listed.has(other)) pairs.push({ rules: [rule.id, other], category: rule.category });
    }
  }
  return pairs.sort((a, b) => (a.rules.join() < b.rules.join() ? -1 : 1));
}

export interface RulesListing {
  as_of: string;
  count: number;
  /** Listed rules flagged for review (confidence fell below 0.5). */
  flagged: number;
  rules: RuleListItem[];
  conflicts: RuleConflictWire[];
}

/** The rules that pass `filter` (by type priority, then id), with their conflicts, as of `nowMs`. */
export function rulesListing(book: Pick<RuleBookService, 'rules' | 'settings'>, filter: RuleFilter, nowMs: number): RulesListing {
  const rules = book.rules(filter);
  return {
    as_of: new Date(nowMs).toISOString(),
    count: rules.length,
    flagged: rules.filter((r) => r.reviewFlagged).length,
    rules: rules.map((r) => ruleListItem(r, nowMs, book.settings.policy)),
    conflicts: conflictPairs(rules),
  };
}

/** One row of an import's id mapping: the source agent's id, and the id it got here or the rule it duplicates. */
export interface ImportMappingWire {
  original_id: string;
  action: 'added' | 'skipped';
  id: string;
  reason?: 'same_hash' | 'similar_text';
}

export function importMapping(steps: readonly ImportStep[]): ImportMappingWire[] {
  return steps.map((s) =>
    s.action === 'add' ? { original_id: s.originalId, action: 'added', id: s.rule.id } : { original_id: s.originalId, action: 'skipped', id: s.duplicateOf, reason: s.reason },
  );
}

/**
 * Who exports: the agent's name as `agent_handle`; as `source_workspace` the PGlite directory
 * (absolute) when the agent has one on disk, else the working directory (never a database URL).
 */
export function exportOrigin(runtime: IAgentRuntime): { agentHandle: string; sourceWorkspace: string } {
  const setting = runtime.getSetting('PGLITE_DATA_DIR');
  const dir = typeof setting === 'string' ? setting : process.env.PGLITE_DATA_DIR;
  const onDisk = dir !== undefined && dir !== '' && !dir.includes('://') && !(runtime.getSetting('POSTGRES_URL') ?? process.env.POSTGRES_URL);
  return { agentHandle: runtime.character.name, sourceWorkspace: onDisk ? path.resolve(dir) : process.cwd() };
}
