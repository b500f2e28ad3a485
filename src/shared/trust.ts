/**
 * Who may teach the agent, validate, retire, approve or reject its rules, and label findings.
 * ElizaOS's own roles decide: a world's `metadata.roles` maps entity ids to OWNER, ADMIN or NONE
 * (core 1.7.2 `roles.ts`), and the world's `metadata.ownership.ownerId` is its owner. OWNERs and
 * ADMINs of the message's world are trusted, so is every entity the operator lists in
 * SELF_IMPROVE_TRUSTED_ENTITIES, and so is the agent itself. Everyone else may still speak: what
 * they teach waits as a candidate for a trusted person's approval, and what they ask to change is
 * refused.
 */

export const TRUSTED_ROLES = ['OWNER', 'ADMIN'] as const;
export type TrustedRole = (typeof TRUSTED_ROLES)[number];

/** Why someone is trusted. */
export type TrustBasis = TrustedRole | 'listed' | 'agent';

export type Trust = { trusted: true; basis: TrustBasis } | { trusted: false; role: string };

export interface TrustFacts {
  entityId: string;
  agentId: string;
  /** Entity ids the operator listed, each also as the runtime derives it (`createUniqueUuid(runtime, id)`). */
  listed: ReadonlySet<string>;
  /** The entity's role in the message's world (`metadata.roles[entityId]`), when it has one. */
  role?: string;
  /** The world's `metadata.ownership.ownerId`, when set. */
  ownerId?: string;
}

/** In order: the agent itself; an OWNER (by role, or the world's owner) or ADMIN; a listed entity; else not trusted. */
export function decideTrust(facts: TrustFacts): Trust {
  const entityId = facts.entityId.toLowerCase();
  if (entityId === facts.agentId.toLowerCase()) return { trusted: true, basis: 'agent' };
  const role = facts.role?.toUpperCase();
  if (role === 'OWNER' || (facts.ownerId !== undefined && facts.ownerId.toLowerCase() === entityId)) return { trusted: true, basis: 'OWNER' };
  if (role === 'ADMIN') return { trusted: true, basis: 'ADMIN' };
  if (facts.listed.has(entityId)) return { trusted: true, basis: 'listed' };
  return { trusted: false, role: role ?? 'NONE' };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type EntityListParse = { ok: true; ids: string[] } | { ok: false; message: string };

/** SELF_IMPROVE_TRUSTED_ENTITIES: comma-separated UUIDs (spaces around them ignored, lower-cased, duplicates dropped); empty is none. */
export function parseEntityList(text: string): EntityListParse {
  const ids: string[] = [];
  const entries = text.split(',').map((e) => e.trim());
  for (const [index, entry] of entries.entries()) {
    if (entry === '') continue;
    const id = entry.toLowerCase();
    if (!UUID.test(id)) return { ok: false, message: `must be comma-separated entity UUIDs; entry ${index + 1} is not a UUID` };
    if (!ids.includes(id)) ids.push(id);
  }
  return { ok: true, ids };
}

/** What only trusted people may do, as the refusal names it. */
export type TrustedDeed = 'validate rules' | 'retire rules' | 'approve candidate rules' | 'reject candidate rules' | 'label findings';

/** The reply to someone who may not do `deed`: who may, and that nothing changed. */
export function refusalText(deed: TrustedDeed): string {
  return `Only the agent's owner or admins (or people its operator lists as trusted) can ${deed}; nothing changed.`;
}
