import { sql } from 'drizzle-orm';
import { DAY_MS } from '../scan/model/grouping';
import { type EventTally, tallyFeedback, weekOf } from './model/metrics';
import { EVENT_TYPES, type EventType, type Rule } from './model/types';
import { ruleEvents } from './tables';
import { type Db, epochMs, queryRows } from '../shared/sql';

/** An event's time in epoch ms, as `RuleStore` reads it. */
const TS_MS = epochMs('ts');
const DAY = sql`floor(${TS_MS} / ${sql.raw(String(DAY_MS))})`;

const jsonText = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

/**
 * The rule events of one agent tallied for the metrics (`tallyEvents`) by the database: counts by
 * day and type and the regressions by day (GROUP BY; the days are then summed into ISO weeks), and
 * the first event's time. Only feedback events are read row by row — their polarity is a word count
 * (`feedbackPolarity`) — and only the columns it needs.
 */
export async function tallyStoredEvents(db: Db, agentId: string, rules: readonly Rule[]): Promise<{ tally: EventTally; firstTsMs: number | null }> {
  const ofAgent = sql`agent_id = ${agentId}::uuid`;
  const tally: EventTally = { total: 0, weeks: new Map() };
  const byDay = await queryRows<{ day: number | string; type: string; n: number | string; first: number | string }>(
    db,
    sql`SELECT ${DAY} AS day, type, count(*) AS n, min(${TS_MS}) AS first FROM ${ruleEvents} WHERE ${ofAgent} GROUP BY 1, 2`,
  );
  let firstTsMs: number | null = null;
  for (const r of byDay) {
    const n = Number(r.n);
    tally.total += n;
    firstTsMs = firstTsMs === null ? Number(r.first) : Math.min(firstTsMs, Number(r.first));
    if ((EVENT_TYPES as readonly string[]).includes(r.type)) weekOf(tally, Number(r.day) * DAY_MS).byType[r.type as EventType] += n;
  }
  // A regression: a mistake after a rule of its category, in the rule's scope (`isRegression`).
  if (rules.length > 0) {
    const scopes = JSON.stringify(rules.map((r) => ({ category: r.category, created_ms: r.createdMs, tags: r.tags })));
    const regressions = await queryRows<{ day: number | string; n: number | string }>(
      db,
      sql`SELECT ${DAY} AS day, count(*) AS n FROM ${ruleEvents} e
          WHERE ${ofAgent} AND type = 'mistake' AND EXISTS (
            SELECT 1 FROM jsonb_to_recordset(${scopes}::jsonb) AS r(category text, created_ms float8, tags jsonb)
            WHERE r.category = e.category AND r.created_ms < ${TS_MS}
              AND (jsonb_array_length(r.tags) = 0 OR jsonb_array_length(e.tags) = 0 OR e.tags ?| ARRAY(SELECT jsonb_array_elements_text(r.tags))))
          GROUP BY 1`,
    );
    for (const r of regressions) weekOf(tally, Number(r.day) * DAY_MS).regressions += Number(r.n);
  }
  const feedback = await queryRows<{ ts_ms: number | string; tags: unknown; feedback: string | null; problem: string }>(
    db,
    sql`SELECT ${TS_MS} AS ts_ms, tags, feedback, problem FROM ${ruleEvents} WHERE ${ofAgent} AND type = 'feedback'`,
  );
  for (const r of feedback) {
    const tags = jsonText(r.tags);
    tallyFeedback(tally, { tsMs: Number(r.ts_ms), tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [], problem: r.problem ?? '', ...(r.feedback === null ? {} : { feedback: r.feedback }) });
  }
  return { tally, firstTsMs };
}
