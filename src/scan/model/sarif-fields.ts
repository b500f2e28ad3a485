import { MAX_TEXT_CHARS } from './outcome';

/**
 * Readers for one SARIF 2.1.0 result's fields, used by ./sarif. A value counts as present when it
 * is a non-blank string (numbers where stated); anything else falls through to the next source.
 */

export type Json = Record<string, unknown>;

export const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;

/** Reads a nested own property / array element, or undefined when any step is missing. */
export function dig(value: unknown, ...keys: (string | number)[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined;
    else {
      const object = asObject(current);
      current = object && Object.hasOwn(object, key) ? object[key] : undefined;
    }
  }
  return current;
}

export const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
export const firstText = (...values: unknown[]): string | undefined => values.map(text).find((v) => v !== undefined);
export const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Cuts to MAX_TEXT_CHARS UTF-16 units without leaving half a surrogate pair. */
export function clip(value: string): string {
  if (value.length <= MAX_TEXT_CHARS) return value;
  const cut = value.slice(0, MAX_TEXT_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Names a found value for an error message: its JSON for short strings, else its kind. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `${typeof value} ${String(value)}`;
}

/** The rule at `ruleIndex` in tool.driver.rules, else the rule whose id is the result's ruleId / rule.id. */
export function findRule(result: Json, rules: unknown[]): Json | undefined {
  const index = result.ruleIndex;
  const byIndex = typeof index === 'number' && Number.isInteger(index) && index >= 0 ? asObject(rules[index]) : undefined;
  if (byIndex) return byIndex;
  const id = firstText(result.ruleId, dig(result, 'rule', 'id'));
  return id === undefined ? undefined : rules.map(asObject).find((rule) => rule !== undefined && rule.id === id);
}

/** Last path segment of a repository URI (https or scp-like git@host:owner/name), minus ".git". */
export function repositoryName(uri: unknown): string | undefined {
  const segment = text(uri)?.replace(/[?#].*$/, '').replace(/\/+$/, '').split(/[/:]/).pop();
  return text(segment?.replace(/\.git$/i, ''));
}

/**
 * guid → correlationGuid → fingerprints → `ruleId:` + partialFingerprints (value of the
 * alphabetically first key of each) → ruleId@uri:line. Partial fingerprints such as CodeQL's
 * primaryLocationLineHash hash the line, not the rule, so the rule id is put in front of them.
 */
export function findingKeyOf(result: Json, ruleId: string | undefined): string | undefined {
  const stated = firstText(result.guid, result.correlationGuid, firstByKey(result.fingerprints));
  if (stated !== undefined) return stated;
  const partial = firstByKey(result.partialFingerprints);
  if (partial !== undefined) return ruleId === undefined ? partial : `${ruleId}:${partial}`;
  const location = dig(result, 'locations', 0, 'physicalLocation');
  const uri = text(dig(location, 'artifactLocation', 'uri'));
  if (ruleId === undefined && uri === undefined) return undefined;
  const line = dig(location, 'region', 'startLine');
  const lineText = typeof line === 'number' && Number.isInteger(line) && line > 0 ? `:${line}` : '';
  return `${ruleId ?? ''}${uri === undefined ? '' : `@${uri}`}${lineText}`;
}

function firstByKey(map: unknown): string | undefined {
  const object = asObject(map);
  return object && firstText(...Object.keys(object).sort().map((key) => object[key]));
}

const CWE_REFERENCE = /(?<![a-z0-9])cwe-(\d{1,9})(?!\d)/i;

/** properties.cwe (non-negative integer) → first CWE-<n> in result tags → rule tags → rule relationships. */
export function cweOf(result: Json, rule: Json | undefined): number | undefined {
  const stated = dig(result, 'properties', 'cwe');
  if (typeof stated === 'number' && Number.isSafeInteger(stated) && stated >= 0) return stated;
  const relationships = listOf(dig(rule, 'relationships')).map((relation) => {
    const id = text(dig(relation, 'target', 'id'));
    const taxonomy = text(dig(relation, 'target', 'toolComponent', 'name'))?.toUpperCase();
    return id !== undefined && /^\d+$/.test(id) && taxonomy === 'CWE' ? `CWE-${id}` : id;
  });
  const candidates = [...listOf(dig(result, 'properties', 'tags')), ...listOf(dig(rule, 'properties', 'tags')), ...relationships];
  for (const candidate of candidates) {
    const match = typeof candidate === 'string' ? CWE_REFERENCE.exec(candidate) : null;
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** properties.confidence in [0,1] → rank/100 when rank is in [0,100] (SARIF's -1 means unset). */
export function scannerConfidenceOf(result: Json): number | undefined {
  const stated = dig(result, 'properties', 'confidence');
  if (typeof stated === 'number' && stated >= 0 && stated <= 1) return stated;
  const rank = result.rank;
  return typeof rank === 'number' && rank >= 0 && rank <= 100 ? rank / 100 : undefined;
}

/** message.text → rule.messageStrings[message.id].text (placeholders {n} filled) → rule.shortDescription.text. */
export function summaryOf(result: Json, rule: Json | undefined): string | undefined {
  const messageId = text(dig(result, 'message', 'id'));
  const template = firstText(dig(result, 'message', 'text'), messageId === undefined ? undefined : dig(rule, 'messageStrings', messageId, 'text'));
  if (template !== undefined) {
    const args = listOf(dig(result, 'message', 'arguments'));
    return clip(template.replace(/\{\{|\}\}|\{(\d+)\}/g, (token, n?: string) => {
      if (n === undefined) return token.charAt(0);
      const arg = args[Number(n)];
      return typeof arg === 'string' ? arg : token;
    }));
  }
  const description = text(dig(rule, 'shortDescription', 'text'));
  return description === undefined ? undefined : clip(description);
}
