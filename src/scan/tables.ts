import { bigint, bigserial, doublePrecision, index, jsonb, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
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
  (t) => [
    unique('outcomes_agent_id_finding_key_label_unique').on(t.agentId, t.findingKey, t.label),
    index('outcomes_group_idx').on(t.agentId, t.groupId, t.ts),
    // Ledger reconciliation summarises one range of an agent's outcome ids at a time.
    index('outcomes_agent_id_idx').on(t.agentId, t.id),
  ],
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

/**
 * Who is learning for an agent: one learning pass per agent at a time across processes. `holder`
 * holds it until `expires_at` (renewed while it learns; a crashed holder's lease runs out);
 * `generation` counts finished passes, so a process sees when another one has learned.
 */
export const learningLease = pluginSchema.table('learning_lease', {
  agentId: uuid('agent_id').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
});

export const scanTables = { outcomes: outcomesTable, outcomeLearned, scanLessonEvidence, findings: findingsTable, learningLease };
