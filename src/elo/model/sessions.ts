import type { ItemRef } from './exposures';

/** A session with no activity for this long is closed at the next check. */
export const SESSION_IDLE_MS = 30 * 60_000;

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
  semantic: number;
  keyword: number;
}

/** Open sessions (one per run or conversation) and what each used, until they end as audit entries. */
export class SessionAudits {
  private readonly open = new Map<string, OpenSession>();

  constructor(private readonly agentId: string) {}

  get openSessions(): number {
    return this.open.size;
  }

  private session(sessionId: string, atMs: number): OpenSession {
    let s = this.open.get(sessionId);
    if (!s) {
      s = { startMs: atMs, lastMs: atMs, used: new Map(), semantic: 0, keyword: 0 };
      this.open.set(sessionId, s);
    }
    s.lastMs = Math.max(s.lastMs, atMs);
    return s;
  }

  search(sessionId: string, type: 'semantic' | 'keyword', results: readonly ItemRef[], atMs: number): void {
    const s = this.session(sessionId, atMs);
    if (type === 'semantic') s.semantic++;
    else s.keyword++;
    this.note(s, results);
  }

  access(sessionId: string, item: ItemRef, atMs: number): void {
    this.note(this.session(sessionId, atMs), [item]);
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

  /** Ends the sessions idle for `SESSION_IDLE_MS` by `nowMs` (all of them with `all`). */
  endIdle(nowMs: number, all = false): SessionAuditEntry[] {
    const ended: SessionAuditEntry[] = [];
    for (const [id, s] of [...this.open]) {
      if (all || nowMs - s.lastMs >= SESSION_IDLE_MS) ended.push(this.end(id, s.lastMs) as SessionAuditEntry);
    }
    return ended;
  }

  private note(s: OpenSession, items: readonly ItemRef[]): void {
    for (const { kind, id } of items) {
      let ids = s.used.get(kind);
      if (!ids) s.used.set(kind, (ids = new Set()));
      ids.add(id);
    }
  }
}
