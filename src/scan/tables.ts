import { bigserial, doublePrecision, index, jsonb, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { pluginSchema } from '../shared/plugin-schema';

/** Labelled outcomes of findings: one per (agent, finding, label); `row_json` is the validated row as ingested. */
export const outcomesTable = pluginSchema.table(
  'outcomes',
  {
    id: uuid('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    agentId: uuid('agent_id').notNull(),
    findingKey: text('finding_key').notNull(),
    label: text('label').notNull(),
    ts: timestamp('ts', { withTimezone: true }).notNull(),
    groupId: text('group_id').notNull(),
    reward: doublePrecision('reward').notNull(),
    rowJson: jsonb('row_json').notNull(),
    ingestedAt: timestamp('ingested_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('outcomes_agent_id_finding_key_label_unique').on(t.agentId, t.findingKey, t.label), index('outcomes_group_idx').on(t.agentId, t.groupId, t.ts)],
);

/** Which outcomes have been learned from: a narrow table, so marking 100k outcomes never rewrites the wide outcome rows. */
export const outcomeLearned = pluginSchema.table('outcome_learned', {
  outcomeId: uuid('outcome_id').primaryKey(),
  agentId: uuid('agent_id').notNull(),
  learnedAt: timestamp('learned_at', { withTimezone: true }).notNull(),
});

/** The outcomes each scan lesson was learned from (its provenance). */
export const scanLessonEvidence = pluginSchema.table(
  'scan_lesson_evidence',
  {
    lessonId: uuid('lesson_id').notNull(),
    outcomeId: uuid('outcome_id').notNull(),
    agentId: uuid('agent_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.lessonId, t.outcomeId] })],
);

/** Findings seen without a label (SARIF results nobody has triaged yet): they await an outcome. */
export const findingsTable = pluginSchema.table(
  'findings',
  {
    agentId: uuid('agent_id').notNull(),
    findingKey: text('finding_key').notNull(),
    groupId: text('group_id').notNull(),
    firstSeen: timestamp('first_seen', { withTimezone: true }).notNull(),
    rowJson: jsonb('row_json').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.findingKey] })],
);

export const scanTables = { outcomes: outcomesTable, outcomeLearned, scanLessonEvidence, findings: findingsTable };
