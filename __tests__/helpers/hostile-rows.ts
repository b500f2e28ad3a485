import { makeRows } from './rows';

/** A refused row and what its rejection must say: the field it names and the message. */
export interface HostileRow {
  row: Record<string, unknown>;
  field: string;
  message: RegExp;
}

/**
 * Good outcome rows and the hostile ones of issue 13 (a NUL, a lone surrogate, year 0001,
 * confidence null and 1e999, a NUL deep in an unknown field), each with the field its rejection names.
 */
export function hostileOutcomeRows(keyPrefix: string): { good: Record<string, unknown>[]; bad: HostileRow[] } {
  const good = makeRows({ n: 4, labels: ['rejected_fp', 'fixed'], category: 'xss', keyPrefix });
  const base = good[0] as Record<string, unknown>;
  const bad: HostileRow[] = [
    { row: { ...base, finding_key: `${keyPrefix}-nul`, summary: 'reflected xss\u0000' }, field: 'summary', message: /^summary contains a NUL character \(U\+0000\)/ },
    { row: { ...base, finding_key: `${keyPrefix}-surrogate`, model_name: 'gpt-4o\uD800' }, field: 'model_name', message: /^model_name contains an unpaired UTF-16 surrogate/ },
    { row: { ...base, finding_key: `${keyPrefix}-ancient`, ts: '0001-01-01T00:00:00Z' }, field: 'ts', message: /^ts must be between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z/ },
    { row: { ...base, finding_key: `${keyPrefix}-null`, confidence: null }, field: 'confidence', message: /^confidence must be a number in \[0,1\], got null$/ },
    { row: { ...base, finding_key: `${keyPrefix}-inf`, ...JSON.parse('{"confidence": 1e999}') }, field: 'confidence', message: /^confidence must be a number in \[0,1\], got Infinity$/ },
    { row: { ...base, finding_key: `${keyPrefix}-nested`, extra: { history: ['ok', 'x\u0000'] } }, field: 'extra.history.1', message: /NUL character/ },
  ];
  return { good, bad };
}
