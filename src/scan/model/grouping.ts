import type { OutcomeRow } from './outcome';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Seed 001 §3.3: the grouping key of an outcome. `category` is null when the row has none. */
export interface GroupKey {
  project: string;
  scanner: string;
  model_provider: string;
  model_name: string;
  category: string | null;
}

export function groupKeyOf(row: Pick<OutcomeRow, 'project' | 'scanner' | 'model_provider' | 'model_name' | 'category'>): GroupKey {
  return {
    project: row.project,
    scanner: row.scanner,
    model_provider: row.model_provider,
    model_name: row.model_name,
    category: row.category ?? null,
  };
}

/** A stable string for a group key, usable as a map key and stored with each lesson. */
export function groupId(key: GroupKey): string {
  return JSON.stringify([key.project, key.scanner, key.model_provider, key.model_name, key.category]);
}

export function parseGroupId(id: string): GroupKey {
  const [project, scanner, model_provider, model_name, category] = JSON.parse(id) as [string, string, string, string, string | null];
  return { project, scanner, model_provider, model_name, category };
}

/** The learning window that ends at `nowMs`: `(nowMs - windowDays days, nowMs]`. */
export function windowEndingAt(nowMs: number, windowDays: number): { startMs: number; endMs: number } {
  return { startMs: nowMs - windowDays * DAY_MS, endMs: nowMs };
}

/** Human-readable scope of a group, used in lesson text and prompts. */
export function describeGroup(key: GroupKey): string {
  const scope = `${key.scanner} with ${key.model_provider}/${key.model_name} on project ${key.project}`;
  return key.category ? `${scope}, category ${key.category}` : scope;
}

/**
 * The windows one learning pass uses for a group, as window end times, newest first. Each pending
 * outcome falls in exactly one window `(end - windowMs, end]`: the first window ends at the newest
 * pending outcome, the next at the newest pending outcome older than that window, and so on. A
 * backlog of three weeks is learned as three weekly windows, as if it had been learned as it came.
 */
export function coveringWindowEnds(pendingTsMs: readonly number[], windowMs: number): number[] {
  const sorted = [...pendingTsMs].sort((a, b) => b - a);
  const ends: number[] = [];
  for (const ts of sorted) {
    const current = ends[ends.length - 1];
    if (current === undefined || ts <= current - windowMs) ends.push(ts);
  }
  return ends;
}

/** The most frequent non-empty value; among equals, the one seen last. Null when there is none. */
export function dominantValue(values: readonly (string | undefined)[]): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  let bestCount = 0;
  for (const v of values) {
    if (!v) continue;
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c >= bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}
