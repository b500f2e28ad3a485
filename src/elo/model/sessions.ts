import type { ItemRef } from './exposures';

/** A session with no activity for this long is closed at the next check. */
export const SESSION_IDLE_MS = 30 * 60_000;
/**
 * A session ends as soon as it has used this many distinct items, and goes on as a new part under
 * the same id from its next activity: an entry lists at most this many items, and a session that
 * never idles (every access without a session id is the agent's own) is not held in memory forever.
 * At 1M outcomes in `bench/scale.ts` the agent's own session was written with thousands of items
 * per entry: reading 75 such entries for the ELO report's samples took 110–570 ms.
 */
export const SESSION_MAX_ITEMS = 500;

/**
 * Sessions open at once: when another opens, the one used least recently ends (written at the next
 * tick, as a session that reached SESSION_MAX_ITEMS is). An agent talking to many people opens one
 * per conversation; each ends only after SESSION_IDLE_MS without use.
 */
export const SESSION_MAX_OPEN = 1_000;

/** Seed 002 §2's session audit entry, plus `items_used` for kinds the seed has no list for. */
export interface SessionAuditEntry {
  session_id: string;
  agent_id: string;
  start_time: string;
  end_time: string;
  files_accessed: string[];
  symbols_expanded: string[];
  adrs_read: string[];
  search_queries: number;
  semantic_searches: number;
  keyword_searches: number;
  items_used: Record<string, string[]>;
}

/** The seed's lists by item kind; every other kind goes to `items_used`. */
export const SEED_LIST_BY_KIND: Record<string, 'files_accessed' | 'symbols_expanded' | 'adrs_read'> = { file: 'files_accessed', symbol: 'symbols_expanded', adr: 'adrs_read' };

interface OpenSession {
  startMs: number;
  lastMs: number;
  used: Map<string, Set<string>>;
  /** Distinct items in `used`, all kinds. */
  items: number;
  semantic: number;
  keyword: number;
}

/** Open sessions (one per run or conversation) and what each used, until they end as audit entries. */
export class SessionAudits {
  private readonly open = new Map<string, OpenSession>();
  /** Parts of sessions that reached SESSION_MAX_ITEMS, and sessions ended beyond SESSION_MAX_OPEN, until the next `endIdle` returns them. */
  private full: SessionAuditEntry[] = [];

  constructor(private readonly agentId: string) {}

  get openSessions(): number {
    return this.open.size;
  }

  /** The open session, made the most recently used (the map's order); opened when it is not, ending the least recently used beyond SESSION_MAX_OPEN. */
  private session(sessionId: string, atMs: number): OpenSession {
    let s = this.open.get(sessionId);
    if (s) this.open.delete(sessionId);
    else {
      s = { startMs: atMs, lastMs: atMs, used: new Map(), items: 0, semantic: 0, keyword: 0 };
      if (this.open.size >= SESSION_MAX_OPEN) {
        const [leastRecent, least] = this.open.entries().next().value as [string, OpenSession];
        this.full.push(this.end(leastRecent, least.lastMs) as SessionAuditEntry);
      }
    }
    this.open.set(sessionId, s);
    s.lastMs = Math.max(s.lastMs, atMs);
    return s;
  }

  search(sessionId: string, type: 'semantic' | 'keyword', results: readonly ItemRef[], atMs: number): void {
    const s = this.session(sessionId, atMs);
    if (type === 'semantic') s.semantic++;
    else s.keyword++;
    this.note(sessionId, s, results, atMs);
  }

  access(sessionId: string, item: ItemRef, atMs: number): void {
    this.note(sessionId, this.session(sessionId, atMs), [item], atMs);
  }

  /** Ends a session; null when it was not open. */
  end(sessionId: string, atMs: number): SessionAuditEntry | null {
    const s = this.open.get(sessionId);
    if (!s) return null;
    this.open.delete(sessionId);
    const lists = { files_accessed: [] as string[], symbols_expanded: [] as string[], adrs_read: [] as string[] };
    const other: Record<string, string[]> = {};
    for (const [kind, ids] of [...s.used].sort(([a], [b]) => a.localeCompare(b))) {
      const sorted = [...ids].sort();
      const list = SEED_LIST_BY_KIND[kind];
      if (list) lists[list].push(...sorted);
      else other[kind] = sorted;
    }
    return {
      session_id: sessionId,
      agent_id: this.agentId,
      start_time: new Date(s.startMs).toISOString(),
      end_time: new Date(Math.max(atMs, s.lastMs)).toISOString(),
      ...lists,
      search_queries: s.semantic + s.keyword,
      semantic_searches: s.semantic,
      keyword_searches: s.keyword,
      items_used: other,
    };
  }

  /** The parts of sessions that reached SESSION_MAX_ITEMS and the sessions ended beyond SESSION_MAX_OPEN since the last call, then the sessions idle for `SESSION_IDLE_MS` by `nowMs` (all of them with `all`), ended. */
  endIdle(nowMs: number, all = false): SessionAuditEntry[] {
    const ended = this.full;
    this.full = [];
    for (const [id, s] of [...this.open]) {
      if (all || nowMs - s.lastMs >= SESSION_IDLE_MS) ended.push(this.end(id, s.lastMs) as SessionAuditEntry);
    }
    return ended;
  }

  private note(sessionId: string, s: OpenSession, items: readonly ItemRef[], atMs: number): void {
    let current: OpenSession | null = s;
    for (const { kind, id } of items) {
      // A part ended by the item before: the next part starts with this one.
      current ??= this.session(sessionId, atMs);
      let ids = current.used.get(kind);
      if (!ids) current.used.set(kind, (ids = new Set()));
      if (ids.has(id)) continue;
      ids.add(id);
      if (++current.items < SESSION_MAX_ITEMS) continue;
      this.full.push(this.end(sessionId, atMs) as SessionAuditEntry);
      current = null;
    }
  }
}
