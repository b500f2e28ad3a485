import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, doublePrecision, index, jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/*
 * Tables of the rules system (seed 003), all keyed by agent. Events are flat columns; lessons and
 * rules are a jsonb document (the truth, validated on read) plus copies of the fields queries
 * filter on; the two logs keep the seed's wire entries as jsonb.
 */

export const ruleEvents = pluginSchema.table(
  'rule_events',
  {
    agentId: uuid('agent_id').notNull(),
    id: text('id').notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    type: text('type').notNull(),
    category: text('category').notNull(),
    tags: jsonb('tags').notNull(),
    problem: text('problem').notNull(),
    solution: text('solution').notNull(),
    confidence: text('confidence').notNull(),
    source: text('source').notNull(),
    feedback: text('feedback'),
    storedAt: timestamp('stored_at', { withTimezone: true }).notNull().defaultNow(),
    /** Who taught the event in conversation (null: the operator or the agent's own work). */
    teacherId: text('teacher_id'),
    teacherTrusted: boolean('teacher_trusted'),
    /** The lesson the event joined or started: a lesson's provenance (its document keeps only its newest event ids). */
    lessonId: text('lesson_id'),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.id] }), index('rule_events_ts_idx').on(t.agentId, t.ts), index('rule_events_lesson_idx').on(t.agentId, t.lessonId, t.ts)],
);

/** The rules system's lessons (distinct from the scan lessons, which are memories). */
export const ruleLessons = pluginSchema.table(
  'rule_lessons',
  {
    agentId: uuid('agent_id').notNull(),
    id: text('id').notNull(),
    category: text('category').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    promotedToRule: text('promoted_to_rule'),
    doc: jsonb('doc').notNull(),
    vector: doublePrecision('vector').array(),
    vectorSource: text('vector_source'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.id] }), check('rule_lessons_vector_source_check', sql`vector_source IN ('model', 'lexical')`)],
);

export const rulesTable = pluginSchema.table(
  'rules',
  {
    agentId: uuid('agent_id').notNull(),
    id: text('id').notNull(),
    type: text('type').notNull(),
    category: text('category').notNull(),
    status: text('status').notNull(),
    confidenceScore: doublePrecision('confidence_score').notNull(),
    doc: jsonb('doc').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.id] })],
);

/** Guard decisions; `outcome` is NULL while pending. */
export const guardLog = pluginSchema.table(
  'guard_log',
  {
    agentId: uuid('agent_id').notNull(),
    id: text('id').notNull(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    outcome: text('outcome'),
    entry: jsonb('entry').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.id] }), index('guard_log_ts_idx').on(t.agentId, t.ts), index('guard_log_seq_idx').on(t.agentId, t.seq)],
);

export const ruleParseErrors = pluginSchema.table(
  'rule_parse_errors',
  {
    agentId: uuid('agent_id').notNull(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    entry: jsonb('entry').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.seq] })],
);

export const ruleTables = { ruleEvents, ruleLessons, rules: rulesTable, guardLog, ruleParseErrors };
