import { type SQL, sql } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';

/** Any drizzle database: the runtime's (PGlite) or one over the wire (node-postgres). */
export interface Executes {
  execute(query: SQL): Promise<{ rows: unknown[] }>;
}

/** The table names of the plugin's schema, as they must be in the database. */
export const PLUGIN_TABLE_NAMES = [
  'elo',
  'elo_bucket_basis',
  'elo_bucket_counts',
  'elo_exposures',
  'elo_log',
  'finding_metrics',
  'findings',
  'group_label_counts',
  'group_label_counts_ready',
  'guard_log',
  'learning_lease',
  'learning_progress',
  'ledger',
  'ledger_audit',
  'ledger_fold',
  'ledger_head',
  'ledger_reconciled',
  'ledger_verified',
  'metric_rollup_state',
  'metric_slice_sizes',
  'metric_tallies',
  'outcome_learned',
  'outcomes',
  'rule_events',
  'rule_lessons',
  'rule_parse_errors',
  'rules',
  'scan_lesson_evidence',
  'search_log',
  'session_log',
  'trajectory_totals',
  'triage_level_counts',
  'triage_level_counts_ready',
  'week_finding_metrics',
];

async function rows<T>(db: Executes, query: SQL): Promise<T[]> {
  return (await db.execute(query)).rows as T[];
}

/** "(a, b)" of a constraint or index definition, as a list of names. */
function columnList(definition: string): string {
  const match = /\(([^()]*)\)\s*$/.exec(definition);
  return match?.[1] ?? definition;
}

function constraintLine(k: { t: string; name: string; kind: string; def: string }): string {
  if (k.kind === 'p') return `primary key ${k.t} (${columnList(k.def)})`;
  if (k.kind === 'u') return `unique ${k.t}.${k.name} (${columnList(k.def)})`;
  if (k.kind === 'c') return `check ${k.t}.${k.name}`;
  return `constraint ${k.kind} ${k.t}.${k.name}`;
}

/**
 * What the database holds in schema `schemaName`, one sorted line per fact: each column with its
 * type and nullability, primary keys, unique constraints, checks, and the other indexes.
 */
export async function catalogOf(db: Executes, schemaName = 'self_improve'): Promise<string[]> {
  const columns = await rows<{ t: string; c: string; type: string; not_null: boolean }>(
    db,
    sql`SELECT c.relname AS t, a.attname AS c, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schemaName} AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`,
  );
  const constraints = await rows<{ t: string; name: string; kind: string; def: string }>(
    db,
    sql`SELECT c.relname AS t, k.conname AS name, k.contype::text AS kind, pg_get_constraintdef(k.oid) AS def
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schemaName} AND k.contype <> 'n'`, // PostgreSQL 18 lists NOT NULL as constraints too: the columns say it already
  );
  const indexes = await rows<{ t: string; name: string; is_unique: boolean; def: string }>(
    db,
    sql`SELECT c.relname AS t, i.relname AS name, x.indisunique AS is_unique, pg_get_indexdef(x.indexrelid) AS def
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schemaName} AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)`,
  );
  const lines = [
    ...columns.map((c) => `column ${c.t}.${c.c} ${c.type}${c.not_null ? ' not null' : ''}`),
    ...constraints.map(constraintLine),
    ...indexes.map((i) => `${i.is_unique ? 'unique index' : 'index'} ${i.t}.${i.name} (${columnList(i.def)})`),
  ];
  return lines.sort();
}

/** The same lines as `catalogOf` gives, for what the drizzle tables declare. */
export function declaredCatalog(tables: readonly PgTable[]): string[] {
  const lines: string[] = [];
  for (const table of tables) {
    const config = getTableConfig(table);
    const t = config.name;
    for (const c of config.columns) {
      const type = c.getSQLType() === 'bigserial' ? 'bigint' : c.getSQLType();
      lines.push(`column ${t}.${c.name} ${type}${c.notNull || c.primary ? ' not null' : ''}`);
      if (c.primary) lines.push(`primary key ${t} (${c.name})`);
    }
    for (const pk of config.primaryKeys) lines.push(`primary key ${t} (${pk.columns.map((c) => c.name).join(', ')})`);
    for (const u of config.uniqueConstraints) lines.push(`unique ${t}.${u.name} (${u.columns.map((c) => c.name).join(', ')})`);
    for (const check of config.checks) lines.push(`check ${t}.${check.name}`);
    for (const index of config.indexes) {
      // A descending column reads "name DESC" in PostgreSQL's index definition.
      const names = index.config.columns.map((c) => ('name' in c ? `${c.name}${'indexConfig' in c && c.indexConfig?.order === 'desc' ? ' DESC' : ''}` : String(c)));
      lines.push(`${index.config.unique ? 'unique index' : 'index'} ${t}.${index.config.name} (${names.join(', ')})`);
    }
  }
  return lines.sort();
}
