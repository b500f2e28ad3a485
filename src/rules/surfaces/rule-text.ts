import type { ImportError } from '../model/import';
import type { ImportTrust, RuleSignature, UnsignedMark } from '../model/signing';
import type { GuardEntryWire } from '../model/logs';
import type { RuleMetrics } from '../model/metrics';
import type { EventIngestReport, ImportMappingWire, RuleListItem, RulesListing } from '../rule-reports';
import { rejectionPlace } from '../rule-reports';

/** Human-readable text of the rules commands; the JSON documents are the wire shapes themselves. */

export function eventIngestText(file: string, r: EventIngestReport): string {
  const lines = [
    `${file}: ${r.rows} rows, ${r.accepted} accepted, ${r.duplicate} duplicate, ${r.rejected.length} rejected (${r.parse_errors} not JSON, logged as parse errors)`,
    `  lessons created ${r.lessons_created}, updated ${r.lessons_updated}; rules promoted: ${r.rules_promoted.join(', ') || 'none'}`,
    ...r.rejected.map((x) => `  ${rejectionPlace(x)}: ${x.field}: ${x.message}`),
  ];
  return lines.join('\n');
}

export function ruleLine(r: RuleListItem): string {
  const marks = [r.status === 'active' ? '' : r.status.toUpperCase(), r.review_flagged ? 'FLAGGED' : '', r.conflicts_with.length > 0 ? `conflicts ${r.conflicts_with.join(',')}` : ''].filter((m) => m !== '');
  return [
    `${r.id} ${r.type} [${r.category}] ${r.rule}`,
    `    confidence ${r.confidence_score.toFixed(2)} (now ${r.confidence_now.toFixed(2)})  validated ${r.validation_count}x, last ${r.last_validated}  violations ${r.violations}  from ${r.source_lesson}${marks.length > 0 ? `  ${marks.join('  ')}` : ''}`,
  ].join('\n');
}

export function rulesListText(listing: RulesListing): string {
  if (listing.count === 0) return 'no rules';
  const conflicts = listing.conflicts.map((c) => `conflict: ${c.rules[0]} and ${c.rules[1]} (${c.category}); neither is injected until one is retired`);
  return [...listing.rules.map(ruleLine), `${listing.count} rules, ${listing.flagged} flagged for review`, ...conflicts].join('\n');
}

/** What an export's signature means to whoever imports it. */
export function exportSignatureText(signature: RuleSignature | UnsignedMark): string {
  return signature.algorithm === 'none' ? signature.note : `signed with Ed25519 key ${signature.key_id}`;
}

/** How far an import was trusted, in words. */
export function importTrustText(trust: { trust: ImportTrust; key_id?: string }): string {
  switch (trust.trust) {
    case 'trusted':
      return `signed by trusted key ${trust.key_id}: rules imported as they are`;
    case 'unknown_signer':
      return `signed by key ${trust.key_id}, which is not in SELF_IMPROVE_RULE_TRUSTED_KEYS: active rules imported as candidates (approve them with \`self-improve rules approve ID\`)`;
    case 'unsigned':
      return 'unsigned: active rules imported as candidates (approve them with `self-improve rules approve ID`)';
  }
}

export function importMappingText(file: string, mapping: readonly ImportMappingWire[], trust: { trust: ImportTrust; key_id?: string }): string {
  const added = mapping.filter((m) => m.action === 'added').length;
  return [
    `${file}: verified ${mapping.length} rules; ${added} added, ${mapping.length - added} skipped as duplicates; ${importTrustText(trust)}`,
    ...mapping.map((m) => (m.action === 'added' ? `  ${m.original_id} -> ${m.id}` : `  ${m.original_id} = ${m.id} (skipped: ${m.reason})`)),
  ].join('\n');
}

export function importRefusalText(file: string, e: ImportError): string {
  const where = e.ruleId !== undefined ? `, first bad rule ${e.ruleId}` : e.index !== undefined ? `, first bad rule #${e.index}` : '';
  return `refused ${file} (${e.code}${where}${e.field ? `, field ${e.field}` : ''}): ${e.message}; nothing was imported`;
}

export function ruleMetricsText(m: RuleMetrics): string {
  const t = m.totals;
  const week = m.weekly[m.weekly.length - 1];
  const lines = [
    `rules metrics v${m.version} since ${m.started}: ${m.weekly.length} weeks`,
    `  totals: ${t.events} events, ${t.lessons} lessons, ${t.rules} active rules, ${t.promoted} promoted, ${t.total_violations} violations, ${t.total_saves} saves, ${t.total_applied} applied`,
  ];
  if (week) {
    const e = week.events;
    lines.push(
      `  ${week.week}: ${e.total} events (${e.mistakes} mistakes, ${e.successes} successes, ${e.debug_sessions} debug sessions, ${e.feedback} feedback, ${e.discoveries} discoveries), ${week.regressions} regressions, satisfaction ${week.satisfaction ?? 'n/a'}`,
    );
  }
  return lines.join('\n');
}

export function guardLogText(entries: readonly GuardEntryWire[]): string {
  if (entries.length === 0) return '(no guard entries)';
  return entries
    .map((g) => `${g.id} ${g.ts} ${g.outcome}${g.save_logged ? ' save' : ''}  ${g.matched_rules.map((id) => `${id} (${g.scores[id]})`).join(', ') || 'no rules matched'}  ${g.action}`)
    .join('\n');
}
