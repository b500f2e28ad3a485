/**
 * Tables of the rules system (seed 003), all keyed by agent. Events are flat columns; lessons and
 * rules are a jsonb document (the truth, validated on read) plus copies of the fields queries
 * filter on; the two logs keep the seed's wire entries as jsonb.
 */
export const RULE_TABLES = {
  events: 'self_improve_rule_events',
  lessons: 'self_improve_rule_lessons',
  rules: 'self_improve_rules',
  guardLog: 'self_improve_guard_log',
  parseErrors: 'self_improve_rule_parse_errors',
} as const;

export const RULE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${RULE_TABLES.events} (
    agent_id uuid NOT NULL,
    id text NOT NULL,
    ts timestamptz NOT NULL,
    type text NOT NULL,
    category text NOT NULL,
    tags jsonb NOT NULL,
    problem text NOT NULL,
    solution text NOT NULL,
    confidence text NOT NULL,
    source text NOT NULL,
    feedback text,
    stored_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, id)
  )`,
  `CREATE INDEX IF NOT EXISTS ${RULE_TABLES.events}_ts ON ${RULE_TABLES.events} (agent_id, ts)`,
  // Who taught the event in conversation (null: the operator or the agent's own work); added after the first release.
  `ALTER TABLE ${RULE_TABLES.events} ADD COLUMN IF NOT EXISTS teacher_id text`,
  `ALTER TABLE ${RULE_TABLES.events} ADD COLUMN IF NOT EXISTS teacher_trusted boolean`,
  `CREATE TABLE IF NOT EXISTS ${RULE_TABLES.lessons} (
    agent_id uuid NOT NULL,
    id text NOT NULL,
    category text NOT NULL,
    created_at timestamptz NOT NULL,
    promoted_to_rule text,
    doc jsonb NOT NULL,
    vector double precision[],
    vector_source text CHECK (vector_source IN ('model', 'lexical')),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (agent_id, id)
  )`,
  `CREATE TABLE IF NOT EXISTS ${RULE_TABLES.rules} (
    agent_id uuid NOT NULL,
    id text NOT NULL,
    type text NOT NULL,
    category text NOT NULL,
    status text NOT NULL,
    confidence_score double precision NOT NULL,
    doc jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (agent_id, id)
  )`,
  `CREATE TABLE IF NOT EXISTS ${RULE_TABLES.guardLog} (
    agent_id uuid NOT NULL,
    id text NOT NULL,
    seq bigserial NOT NULL,
    ts timestamptz NOT NULL,
    outcome text,
    entry jsonb NOT NULL,
    PRIMARY KEY (agent_id, id)
  )`,
  `CREATE INDEX IF NOT EXISTS ${RULE_TABLES.guardLog}_ts ON ${RULE_TABLES.guardLog} (agent_id, ts)`,
  `CREATE TABLE IF NOT EXISTS ${RULE_TABLES.parseErrors} (
    agent_id uuid NOT NULL,
    seq bigserial NOT NULL,
    ts timestamptz NOT NULL,
    entry jsonb NOT NULL,
    PRIMARY KEY (agent_id, seq)
  )`,
];
