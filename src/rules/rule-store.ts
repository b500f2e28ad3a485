import type { UUID } from '@elizaos/core';
import { type SQL, sql } from 'drizzle-orm';
import { type GuardEntry, guardEntryToWire, type ParseErrorEntry, parseErrorToWire, type SettledGuardOutcome } from './model/logs';
import type { LearningEvent, Rule } from './model/types';
import { eventRowSchema, guardRowSchema, ruleLessonRowSchema, type Loaded, parseErrorRowSchema, ruleRowSchema, type StoredRuleLesson, validateRows } from './rule-rows';
import { guardLog, ruleEvents, ruleLessons, ruleParseErrors, rulesTable } from './tables';
import { qualifiedName } from '../shared/plugin-schema';
import { chunks, type Db, epochMs, jsonRows, queryRows } from '../shared/sql';
import type { LogRetention } from '../shared/log-retention';

/** Rows per INSERT statement (all given as one JSON parameter, `jsonRows`). */
const INSERT_BATCH = 500;

/** What one `commitLearning` call writes; every part is optional. */
export interface LearningBatch {
  events?: readonly LearningEvent[];
  ruleLessons?: readonly StoredRuleLesson[];
  rules?: readonly Rule[];
  guardEntries?: readonly GuardEntry[];
  parseErrors?: readonly ParseErrorEntry[];
  /**
   * Outcomes of pending guard entries (with `saveLogged`, the entry's save_logged too); one that
   * is unknown or already settled rolls the whole batch back with `GuardOutcomeConflict`.
   */
  guardOutcomes?: readonly { id: string; outcome: SettledGuardOutcome; saveLogged?: boolean }[];
}

/** Thrown inside `commitLearning` (and so rolling it back) when a guard entry of `guardOutcomes` is not pending. */
export class GuardOutcomeConflict extends Error {
  constructor(readonly guardId: string) {
    super(`guard entry ${guardId} is unknown or already has an outcome`);
    this.name = 'GuardOutcomeConflict';
  }
}

export interface CommitResult {
  /** Ids of the events that were not stored before, in input order. */
  newEventIds: string[];
  /** Ids of the guard entries that were not stored before, in input order. */
  newGuardIds: string[];
}

export type GuardOutcomeResult = { ok: true } | { ok: false; code: 'not_found' | 'already_set'; message: string };

const iso = (ms: number) => new Date(ms).toISOString();

/** The written columns of each table, as `jsonRows` reads the rows given to a statement. */
const EVENT_COLUMNS = {
  id: 'text',
  ts: 'timestamptz',
  type: 'text',
  category: 'text',
  tags: 'jsonb',
  problem: 'text',
  solution: 'text',
  confidence: 'text',
  source: 'text',
  feedback: 'text',
  teacher_id: 'text',
  teacher_trusted: 'boolean',
  lesson_id: 'text',
};
const RULE_LESSON_COLUMNS = { id: 'text', category: 'text', created_at: 'timestamptz', promoted_to_rule: 'text', doc: 'jsonb', vector: 'double precision[]', vector_source: 'text' };
const RULE_COLUMNS = { id: 'text', type: 'text', category: 'text', status: 'text', confidence_score: 'float8', doc: 'jsonb' };
const GUARD_COLUMNS = { id: 'text', ts: 'timestamptz', outcome: 'text', entry: 'jsonb' };

function eventRow(e: LearningEvent) {
  return {
    id: e.id,
    ts: iso(e.tsMs),
    type: e.type,
    category: e.category,
    tags: e.tags,
    problem: e.problem,
    solution: e.solution,
    confidence: e.evidenceLevel,
    source: e.source,
    feedback: e.feedback ?? null,
    teacher_id: e.teacher?.entityId ?? null,
    teacher_trusted: e.teacher?.trusted ?? null,
    lesson_id: e.lessonId ?? null,
  };
}

function ruleLessonRow({ lesson: l, vector: v }: StoredRuleLesson) {
  return { id: l.id, category: l.category, created_at: iso(l.createdMs), promoted_to_rule: l.promotedToRule ?? null, doc: l, vector: v ? finiteValues(v.values) : null, vector_source: v?.source ?? null };
}

/** A lesson vector's values as a plain array, all finite (JSON would make any other one null); anything else is a programmer error. */
function finiteValues(values: readonly number[]): number[] {
  for (const v of values) if (!Number.isFinite(v)) throw new RangeError('a lesson vector holds a value that is not a finite number');
  return Array.from(values);
}

/** The last item per id, in first-seen order: one statement may not upsert the same key twice. */
function lastById<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [idOf(item), item])).values()];
}

/**
 * The rules system of one agent (seed 003) in the runtime's database: events, rule lessons with their
 * vectors, typed rules, and the append-only guard and parse-error logs. Writes of several kinds
 * go through `commitLearning`, one database transaction: an event is never stored without the
 * lesson and rule changes it caused, nor the other way round.
 */
export class RuleStore {
  constructor(
    private readonly db: Db,
    readonly agentId: UUID,
    /** Keeps the guard log and the parse-error log to their newest rows. */
    private readonly retention?: LogRetention,
  ) {}

  /**
   * Writes every part of the batch in one transaction, all or nothing. Events and guard entries
   * already stored (same id) are left as they are; lessons and rules are upserted by id (the last
   * one wins when an id repeats); a lesson without a vector keeps the vector stored with it.
   */
  async commitLearning(batch: LearningBatch): Promise<CommitResult> {
    const result: CommitResult = { newEventIds: [], newGuardIds: [] };
    const sizes = [batch.events, batch.ruleLessons, batch.rules, batch.guardEntries, batch.parseErrors, batch.guardOutcomes].map((part) => part?.length ?? 0);
    if (sizes.every((n) => n === 0)) return result;
    await this.db.transaction(async (tx) => {
      result.newEventIds = await this.writeEvents(tx, batch.events ?? []);
      await this.writeRuleLessons(tx, batch.ruleLessons ?? []);
      await this.writeRules(tx, batch.rules ?? []);
      result.newGuardIds = await this.writeGuardEntries(tx, batch.guardEntries ?? []);
      await this.writeGuardOutcomes(tx, batch.guardOutcomes ?? []);
      await this.writeParseErrors(tx, batch.parseErrors ?? []);
    });
    // Retention once the entries are committed, in statements of its own (`pruneToNewest`).
    await this.retention?.noteAppended(this.db, guardLog, result.newGuardIds.length);
    await this.retention?.noteAppended(this.db, ruleParseErrors, batch.parseErrors?.length ?? 0);
    return result;
  }

  /** Stores events; re-inserting a stored event changes nothing. Returns the ids that were new. */
  async insertEvents(events: readonly LearningEvent[]): Promise<string[]> {
    return (await this.commitLearning({ events })).newEventIds;
  }

  async upsertRuleLessons(lessons: readonly StoredRuleLesson[]): Promise<void> {
    await this.commitLearning({ ruleLessons: lessons });
  }

  async upsertRules(rules: readonly Rule[]): Promise<void> {
    await this.commitLearning({ rules });
  }

  /** Appends guard entries; an entry whose id is stored already is left as it is. Returns the ids that were new. */
  async appendGuardEntries(entries: readonly GuardEntry[]): Promise<string[]> {
    return (await this.commitLearning({ guardEntries: entries })).newGuardIds;
  }

  async appendParseErrors(entries: readonly ParseErrorEntry[]): Promise<void> {
    await this.commitLearning({ parseErrors: entries });
  }

  /** Events at or after `sinceMs` (of lesson `lessonId`); with `limit`, only the newest `limit`. Oldest first (by time, then id). */
  async loadEvents(options: { sinceMs?: number; limit?: number; lessonId?: string } = {}): Promise<Loaded<LearningEvent>> {
    const rows = await queryRows<Record<string, unknown>>(
      this.db,
      sql`SELECT id, ${epochMs('ts')} AS ts_ms, type, category, tags, problem, solution, confidence, source, feedback, teacher_id, teacher_trusted, lesson_id
          FROM ${ruleEvents} WHERE agent_id = ${this.agentId}::uuid ${this.since('ts', options.sinceMs)}
          ${options.lessonId === undefined ? sql.empty() : sql`AND lesson_id = ${options.lessonId}`}
          ORDER BY ts DESC, id DESC ${options.limit === undefined ? sql.empty() : sql`LIMIT ${options.limit}`}`,
    );
    return validateRows(qualifiedName(ruleEvents), rows.reverse(), eventRowSchema, (r) => r.id);
  }

  /** Which of these event ids are stored. */
  async knownEventIds(ids: readonly string[]): Promise<Set<string>> {
    const known = new Set<string>();
    for (const batch of chunks([...new Set(ids)], INSERT_BATCH)) {
      const list = sql.join(
        batch.map((id) => sql`${id}`),
        sql`, `,
      );
      const rows = await queryRows<{ id: string }>(this.db, sql`SELECT id FROM ${ruleEvents} WHERE agent_id = ${this.agentId}::uuid AND id IN (${list})`);
      for (const r of rows) known.add(r.id);
    }
    return known;
  }

  async eventCount(): Promise<number> {
    const [row] = await queryRows<{ n: number }>(this.db, sql`SELECT count(*)::int AS n FROM ${ruleEvents} WHERE agent_id = ${this.agentId}::uuid`);
    return Number(row?.n ?? 0);
  }

  /** Every rule lesson with its stored vector, by id. */
  async loadRuleLessons(): Promise<Loaded<StoredRuleLesson>> {
    const rows = await queryRows<Record<string, unknown>>(
      this.db,
      sql`SELECT id, doc, vector, vector_source FROM ${ruleLessons} WHERE agent_id = ${this.agentId}::uuid ORDER BY id`,
    );
    return validateRows(qualifiedName(ruleLessons), rows, ruleLessonRowSchema, (r) => r.id);
  }

  /**
   * Lessons stored before each event kept its lesson (`lesson_id`) list every one of their event
   * ids in their document, and an `event:<id>` key per operator event. In one transaction, each of
   * those events is given its lesson and the lessons are written again as they read now
   * (`ruleLessonRowSchema`: the newest ids, operator events counted), so their provenance survives
   * the cut. Returns the lessons rewritten: none after the first start that found any.
   */
  async adoptLegacyLessons(): Promise<Loaded<StoredRuleLesson>> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<Record<string, unknown>>(
        tx,
        sql`SELECT id, doc, vector, vector_source FROM ${ruleLessons} WHERE agent_id = ${this.agentId}::uuid AND doc->'eventConfirmations' IS NULL ORDER BY id FOR UPDATE`,
      );
      const loaded = validateRows(qualifiedName(ruleLessons), rows, ruleLessonRowSchema, (r) => r.id);
      if (loaded.items.length === 0) return loaded;
      await tx.execute(
        sql`UPDATE ${ruleEvents} AS e SET lesson_id = l.id
            FROM ${ruleLessons} AS l CROSS JOIN LATERAL jsonb_array_elements_text(l.doc->'sourceEventIds') AS s(event_id)
            WHERE l.agent_id = ${this.agentId}::uuid AND l.doc->'eventConfirmations' IS NULL
              AND e.agent_id = l.agent_id AND e.id = s.event_id AND e.lesson_id IS NULL`,
      );
      await this.writeRuleLessons(tx, loaded.items);
      return loaded;
    });
  }

  /** Every rule (active and retired), by id. */
  async loadRules(): Promise<Loaded<Rule>> {
    const rows = await queryRows<Record<string, unknown>>(this.db, sql`SELECT id, doc FROM ${rulesTable} WHERE agent_id = ${this.agentId}::uuid ORDER BY id`);
    return validateRows(qualifiedName(rulesTable), rows, ruleRowSchema, (r) => r.id);
  }

  /**
   * Sets the outcome of a pending guard entry, once: an entry that has one keeps it
   * (`already_set`), an unknown id is `not_found`. (The `outcome` column is NULL while pending.)
   */
  async setGuardOutcome(id: string, outcome: SettledGuardOutcome): Promise<GuardOutcomeResult> {
    try {
      await this.commitLearning({ guardOutcomes: [{ id, outcome }] });
      return { ok: true };
    } catch (error) {
      if (!(error instanceof GuardOutcomeConflict)) throw error;
    }
    const [existing] = await queryRows<{ outcome: string }>(this.db, sql`SELECT outcome FROM ${guardLog} WHERE agent_id = ${this.agentId}::uuid AND id = ${id}`);
    return existing
      ? { ok: false, code: 'already_set', message: `guard entry ${id} already has the outcome ${existing.outcome}` }
      : { ok: false, code: 'not_found', message: `no guard entry ${id}` };
  }

  /** The newest `limit` guard entries at or after `sinceMs`, newest first. */
  async guardEntries(options: { limit: number; sinceMs?: number }): Promise<Loaded<GuardEntry>> {
    const rows = await queryRows<Record<string, unknown>>(
      this.db,
      sql`SELECT id, entry FROM ${guardLog} WHERE agent_id = ${this.agentId}::uuid ${this.since('ts', options.sinceMs)}
          ORDER BY ts DESC, seq DESC LIMIT ${options.limit}`,
    );
    return validateRows(qualifiedName(guardLog), rows, guardRowSchema, (r) => r.id);
  }

  /** One guard entry by id; `items` is empty when there is none. */
  async guardEntry(id: string): Promise<Loaded<GuardEntry>> {
    const rows = await queryRows<Record<string, unknown>>(this.db, sql`SELECT id, entry FROM ${guardLog} WHERE agent_id = ${this.agentId}::uuid AND id = ${id}`);
    return validateRows(qualifiedName(guardLog), rows, guardRowSchema, (r) => r.id);
  }

  /** The newest `limit` parse errors, newest first. */
  async parseErrors(limit: number): Promise<Loaded<ParseErrorEntry>> {
    const rows = await queryRows<Record<string, unknown>>(
      this.db,
      sql`SELECT seq, entry FROM ${ruleParseErrors} WHERE agent_id = ${this.agentId}::uuid ORDER BY ts DESC, seq DESC LIMIT ${limit}`,
    );
    return validateRows(qualifiedName(ruleParseErrors), rows, parseErrorRowSchema, (r) => r.seq);
  }

  private since(column: string, sinceMs: number | undefined): SQL {
    return sinceMs === undefined ? sql.empty() : sql`AND ${sql.raw(column)} >= ${iso(sinceMs)}::timestamptz`;
  }

  private async writeEvents(tx: Db, events: readonly LearningEvent[]): Promise<string[]> {
    const inserted = new Set<string>();
    for (const batch of chunks(events, INSERT_BATCH)) {
      const rows = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO ${ruleEvents} (agent_id, id, ts, type, category, tags, problem, solution, confidence, source, feedback, teacher_id, teacher_trusted, lesson_id)
            SELECT ${this.agentId}::uuid, v.id, v.ts, v.type, v.category, v.tags, v.problem, v.solution, v.confidence, v.source, v.feedback, v.teacher_id, v.teacher_trusted, v.lesson_id
            FROM ${jsonRows(batch.map(eventRow), EVENT_COLUMNS)} ON CONFLICT (agent_id, id) DO NOTHING RETURNING id`,
      );
      for (const r of rows) inserted.add(r.id);
    }
    return [...new Set(events.map((e) => e.id))].filter((id) => inserted.has(id));
  }

  private async writeRuleLessons(tx: Db, lessons: readonly StoredRuleLesson[]): Promise<void> {
    const table = ruleLessons;
    for (const batch of chunks(lastById(lessons, (l) => l.lesson.id), INSERT_BATCH)) {
      await tx.execute(
        sql`INSERT INTO ${table} AS t (agent_id, id, category, created_at, promoted_to_rule, doc, vector, vector_source, updated_at)
            SELECT ${this.agentId}::uuid, v.id, v.category, v.created_at, v.promoted_to_rule, v.doc, v.vector, v.vector_source, now()
            FROM ${jsonRows(batch.map(ruleLessonRow), RULE_LESSON_COLUMNS)}
            ON CONFLICT (agent_id, id) DO UPDATE SET category = EXCLUDED.category, created_at = EXCLUDED.created_at, promoted_to_rule = EXCLUDED.promoted_to_rule,
              doc = EXCLUDED.doc, updated_at = EXCLUDED.updated_at,
              vector = coalesce(EXCLUDED.vector, t.vector),
              vector_source = CASE WHEN EXCLUDED.vector IS NULL THEN t.vector_source ELSE EXCLUDED.vector_source END`,
      );
    }
  }

  private async writeRules(tx: Db, rules: readonly Rule[]): Promise<void> {
    for (const batch of chunks(lastById(rules, (r) => r.id), INSERT_BATCH)) {
      await tx.execute(
        sql`INSERT INTO ${rulesTable} (agent_id, id, type, category, status, confidence_score, doc, updated_at)
            SELECT ${this.agentId}::uuid, v.id, v.type, v.category, v.status, v.confidence_score, v.doc, now()
            FROM ${jsonRows(
              batch.map((r) => ({ id: r.id, type: r.type, category: r.category, status: r.status, confidence_score: r.confidenceScore, doc: r })),
              RULE_COLUMNS,
            )}
            ON CONFLICT (agent_id, id) DO UPDATE SET type = EXCLUDED.type, category = EXCLUDED.category, status = EXCLUDED.status,
              confidence_score = EXCLUDED.confidence_score, doc = EXCLUDED.doc, updated_at = EXCLUDED.updated_at`,
      );
    }
  }

  private async writeGuardEntries(tx: Db, entries: readonly GuardEntry[]): Promise<string[]> {
    const inserted = new Set<string>();
    for (const batch of chunks(entries, INSERT_BATCH)) {
      const rows = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO ${guardLog} (agent_id, id, ts, outcome, entry)
            SELECT ${this.agentId}::uuid, v.id, v.ts, v.outcome, v.entry
            FROM ${jsonRows(
              batch.map((e) => ({ id: e.id, ts: iso(e.tsMs), outcome: e.outcome === 'pending' ? null : e.outcome, entry: guardEntryToWire(e) })),
              GUARD_COLUMNS,
            )}
            ON CONFLICT (agent_id, id) DO NOTHING RETURNING id`,
      );
      for (const r of rows) inserted.add(r.id);
    }
    return [...new Set(entries.map((e) => e.id))].filter((id) => inserted.has(id));
  }

  private async writeGuardOutcomes(tx: Db, outcomes: NonNullable<LearningBatch['guardOutcomes']>): Promise<void> {
    for (const { id, outcome, saveLogged } of outcomes) {
      const withOutcome = sql`jsonb_set(entry, '{outcome}', to_jsonb(${outcome}::text))`;
      const entry = saveLogged === undefined ? withOutcome : sql`jsonb_set(${withOutcome}, '{save_logged}', to_jsonb(${saveLogged}::boolean))`;
      const updated = await queryRows<{ id: string }>(
        tx,
        sql`UPDATE ${guardLog} SET outcome = ${outcome}, entry = ${entry}
            WHERE agent_id = ${this.agentId}::uuid AND id = ${id} AND outcome IS NULL RETURNING id`,
      );
      if (updated.length === 0) throw new GuardOutcomeConflict(id);
    }
  }

  private async writeParseErrors(tx: Db, entries: readonly ParseErrorEntry[]): Promise<void> {
    for (const batch of chunks(entries, INSERT_BATCH)) {
      await tx.execute(
        sql`INSERT INTO ${ruleParseErrors} (agent_id, ts, entry)
            SELECT ${this.agentId}::uuid, v.ts, v.entry FROM ${jsonRows(
              batch.map((e) => ({ ts: iso(e.tsMs), entry: parseErrorToWire(e) })),
              { ts: 'timestamptz', entry: 'jsonb' },
            )}`,
      );
    }
  }
}
