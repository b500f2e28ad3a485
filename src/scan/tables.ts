import { bigint, bigserial, boolean, customType, doublePrecision, index, integer, jsonb, numeric, primaryKey, smallint, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
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
    index('outcomes_ts_idx').on(t.agentId, t.ts),
    index('outcomes_seq_idx').on(t.agentId, t.seq),
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

/** bytea, for keys compared byte by byte (`finding_metrics.key_order`). Written with `decode(hex, 'hex')`. */
const bytea = customType<{ data: string; driverData: string }>({ dataType: () => 'bytea' });

/**
 * What the metrics need of each finding of an agent (a row of `summarizeFindings`), kept by the
 * rollup (`MetricRollup`): the top-k and median queries read it
 * through its indexes only. `key_order` is the finding key as UTF-16 code units, big-endian, so
 * byte order is the model's code-unit order; `neg_confidence` = −confidence, so "most confident
 * first, then key" is one ascending index.
 */
export const findingMetrics = pluginSchema.table(
  'finding_metrics',
  {
    agentId: uuid('agent_id').notNull(),
    findingKey: text('finding_key').notNull(),
    project: text('project').notNull(),
    scanner: text('scanner').notNull(),
    model: text('model').notNull(),
    finalRank: smallint('final_rank').notNull(),
    confirmed: boolean('confirmed').notNull(),
    flags: smallint('flags').notNull(),
    negConfidence: doublePrecision('neg_confidence'),
    keyOrder: bytea('key_order').notNull(),
    hoursToFix: doublePrecision('hours_to_fix'),
    fixBucket: integer('fix_bucket'),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.findingKey] }),
    index('finding_metrics_rank_idx').on(t.agentId, t.negConfidence, t.keyOrder),
    index('finding_metrics_project_rank_idx').on(t.agentId, t.project, t.negConfidence, t.keyOrder),
    index('finding_metrics_scanner_rank_idx').on(t.agentId, t.scanner, t.negConfidence, t.keyOrder),
    index('finding_metrics_model_rank_idx').on(t.agentId, t.model, t.negConfidence, t.keyOrder),
    index('finding_metrics_fix_idx').on(t.agentId, t.fixBucket, t.hoursToFix),
    index('finding_metrics_project_fix_idx').on(t.agentId, t.project, t.fixBucket, t.hoursToFix),
    index('finding_metrics_scanner_fix_idx').on(t.agentId, t.scanner, t.fixBucket, t.hoursToFix),
    index('finding_metrics_model_fix_idx').on(t.agentId, t.model, t.fixBucket, t.hoursToFix),
  ],
);

/**
 * A finding as the weekly series sees it in one UTC week (`week` = 'w:' + its Monday): the label
 * and confidence of its latest outcome of that week.
 */
export const weekFindingMetrics = pluginSchema.table(
  'week_finding_metrics',
  {
    agentId: uuid('agent_id').notNull(),
    week: text('week').notNull(),
    findingKey: text('finding_key').notNull(),
    finalRank: smallint('final_rank').notNull(),
    confirmed: boolean('confirmed').notNull(),
    negConfidence: doublePrecision('neg_confidence'),
    keyOrder: bytea('key_order').notNull(),
  },
  (t) => [
    // Keyed by finding first: the rollup reads a finding's weeks by its key.
    primaryKey({ columns: [t.agentId, t.findingKey, t.week] }),
    index('week_finding_metrics_rank_idx').on(t.agentId, t.week, t.negConfidence, t.keyOrder),
  ],
);

/**
 * Rolled-up metric counts (`MetricRollup`): per agent, scope ('all', 'd:' + UTC day, 'w:' + UTC
 * week's Monday), `grain` (`GRAIN`: every finding, one project, scanner or model, or one triple;
 * the slice columns the grain does not use are '') and `kind` (`TALLY_KIND`) with its bucket: a
 * count `n`, an exact sum `p_sum` (rewards, confidences) and `y_sum` (confirmed findings). Day
 * and hour ('h:' + UTC hour) scopes hold outcome counts down to the model grain, week scopes every finding only. Outcome
 * counts only grow; finding counts move when a finding's latest outcome changes.
 */
export const metricTallies = pluginSchema.table(
  'metric_tallies',
  {
    agentId: uuid('agent_id').notNull(),
    scope: text('scope').notNull(),
    grain: smallint('grain').notNull(),
    project: text('project').notNull(),
    scanner: text('scanner').notNull(),
    model: text('model').notNull(),
    kind: smallint('kind').notNull(),
    bucket: integer('bucket').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
    pSum: numeric('p_sum').notNull(),
    ySum: bigint('y_sum', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.scope, t.grain, t.project, t.scanner, t.model, t.kind, t.bucket] })],
);

/**
 * The all-time outcome count of each project, scanner and model (`grain`: GRAIN.project, .scanner
 * or .model; `name`: the slice's value): the sizes a metrics report ranks to choose the slices it
 * shows. A table of their own, a row per slice, kept by every rollup step: read in name order, it
 * is a few hundred pages. As tally rows (rollup format 2) the 10,200 project sizes of a 1M bench
 * database were spread over 11,000 pages and took 2 s to read, in statements of up to 0.4 s.
 */
export const metricSliceSizes = pluginSchema.table(
  'metric_slice_sizes',
  {
    agentId: uuid('agent_id').notNull(),
    grain: smallint('grain').notNull(),
    name: text('name').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.grain, t.name] })],
);

/**
 * How far the metrics rollup of an agent has followed its outcomes: every outcome with seq ≤
 * `done_seq` is rolled up (`MetricRollup.step`). `format`: the layout its tallies are in
 * (`ROLLUP_FORMAT`); a rollup in an older one is brought up to date when its follower starts.
 * `version`: a new, larger one with every transaction that changes the rollup, so a report
 * computed at a version holds until it changes (`ScanMetrics`' report memo, in every process on
 * the database).
 */
export const metricRollupState = pluginSchema.table('metric_rollup_state', {
  agentId: uuid('agent_id').primaryKey(),
  doneSeq: bigint('done_seq', { mode: 'number' }).notNull(),
  format: smallint('format').notNull().default(1),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * How far learning has got through an agent's outcomes: every outcome with seq ≤
 * `learned_through_seq` is learned from, so a pass looks for pending outcomes only after it.
 */
export const learningProgress = pluginSchema.table('learning_progress', {
  agentId: uuid('agent_id').primaryKey(),
  learnedThroughSeq: bigint('learned_through_seq', { mode: 'number' }).notNull(),
  /**
   * The highest seq any learning pass has looked at (recorded before the pass marks anything):
   * an outcome above it is not learned from, with no need to look in `outcome_learned`. Null on a
   * database from before it was kept (every outcome is then looked up until the next pass).
   */
  seenThroughSeq: bigint('seen_through_seq', { mode: 'number' }),
});

/** Outcomes per group and label (the triage prior's counts), kept by every outcome insert in its transaction. */
export const groupLabelCounts = pluginSchema.table(
  'group_label_counts',
  {
    agentId: uuid('agent_id').notNull(),
    groupId: text('group_id').notNull(),
    label: text('label').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.groupId, t.label] })],
);

/** The agents whose `group_label_counts` hold every outcome (counted once from the outcome rows, then kept by each insert). */
export const groupLabelCountsReady = pluginSchema.table('group_label_counts_ready', {
  agentId: uuid('agent_id').primaryKey(),
});

/**
 * Outcomes per label at the triage prior's parent levels (seed 001: scanner and category, scanner,
 * global), kept by every outcome insert in its transaction beside `group_label_counts`. `scanner`
 * is '' at the global level; `category` is '' where the level has none (`has_category` false: the
 * scanner level, the global level, and a group whose rows have no category).
 */
export const triageLevelCounts = pluginSchema.table(
  'triage_level_counts',
  {
    agentId: uuid('agent_id').notNull(),
    level: text('level').notNull(),
    scanner: text('scanner').notNull(),
    category: text('category').notNull(),
    hasCategory: boolean('has_category').notNull(),
    label: text('label').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.level, t.scanner, t.category, t.hasCategory, t.label] })],
);

/** The agents whose `triage_level_counts` hold every outcome (summed once from `group_label_counts`, then kept by each insert). */
export const triageLevelCountsReady = pluginSchema.table('triage_level_counts_ready', {
  agentId: uuid('agent_id').primaryKey(),
});

export const scanTables = {
  outcomes: outcomesTable,
  outcomeLearned,
  scanLessonEvidence,
  findings: findingsTable,
  learningLease,
  learningProgress,
  groupLabelCounts,
  groupLabelCountsReady,
  triageLevelCounts,
  triageLevelCountsReady,
  findingMetrics,
  weekFindingMetrics,
  metricTallies,
  metricSliceSizes,
  metricRollupState,
};
