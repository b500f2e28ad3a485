import { ELO_TIERS, type EloTier } from './tiers';

/**
 * Which tier a new item starts in (seed 002 "Initial ELO"), by kind and path pattern. Written as
 * `pattern=TIER` entries separated by `;` or newlines, first match wins, anything unmatched starts
 * MEDIUM. A pattern is a kind (`rule`), or a kind and a glob over the item's id or path
 * (`file:LAW/CANON/**`): `**` matches anything including `/`, `*` anything but `/`, `?` one
 * character but `/`; the rest is literal.
 */
export interface TierRule {
  kind: string;
  /** Absent: every item of the kind. */
  glob?: string;
  tier: EloTier;
  matcher?: RegExp;
}

/** Seed 002's table of starting tiers, for items of kind `file`. */
export const SEED_INITIAL_TIERS = [
  'file:LAW/CANON/**=HIGH',
  'file:AGENTS.md=HIGH',
  'file:NAVIGATION/MAPS/**=HIGH',
  'file:CAPABILITY/SKILLS/**=MEDIUM',
  'file:LAW/CONTEXT/decisions/**=MEDIUM',
  'file:THOUGHT/LAB/**=LOW',
  'file:MEMORY/ARCHIVE/**=LOW',
  'file:**/fixtures/**=LOW',
].join(';');

export type TierMapResult = { ok: true; rules: TierRule[] } | { ok: false; code: 'bad_entry' | 'bad_tier'; entry: string; message: string };

const KIND = /^[a-z][a-z0-9_-]*$/;

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Parses a tier map; an error names the entry and what is allowed. */
export function parseTierMap(spec: string): TierMapResult {
  const rules: TierRule[] = [];
  for (const raw of spec.split(/[;\n]/)) {
    const entry = raw.trim();
    if (entry === '') continue;
    const eq = entry.lastIndexOf('=');
    const pattern = eq > 0 ? entry.slice(0, eq).trim() : '';
    const tier = eq > 0 ? entry.slice(eq + 1).trim().toUpperCase() : '';
    const colon = pattern.indexOf(':');
    const kind = colon < 0 ? pattern : pattern.slice(0, colon);
    const glob = colon < 0 ? undefined : pattern.slice(colon + 1);
    if (!KIND.test(kind) || glob === '') {
      return { ok: false, code: 'bad_entry', entry, message: `"${entry}" must be kind=TIER or kind:glob=TIER, kind matching ${KIND.source}` };
    }
    if (!(ELO_TIERS as readonly string[]).includes(tier)) {
      return { ok: false, code: 'bad_tier', entry, message: `"${entry}": tier must be one of ${ELO_TIERS.join(', ')}` };
    }
    rules.push({ kind, tier: tier as EloTier, ...(glob === undefined ? {} : { glob, matcher: globToRegExp(glob) }) });
  }
  return { ok: true, rules };
}

/** The starting tier of an item: the first rule whose kind matches and whose glob (if any) matches the path, else MEDIUM. */
export function initialTierFor(rules: readonly TierRule[], kind: string, path: string): EloTier {
  for (const rule of rules) {
    if (rule.kind !== kind) continue;
    if (!rule.matcher || rule.matcher.test(path)) return rule.tier;
  }
  return 'MEDIUM';
}
