import { DAY_MS } from '../../scan/model/grouping';
import { isoDay, isoSeconds, isoWeek, isoWeekStartMs } from './dates';
import { feedbackPolarity } from './feedback';
import type { GuardEntry } from './logs';
import { scopesOverlap } from './conflicts';
import type { EventType, LearningEvent, Rule, RuleLesson } from './types';

/** Seed 003's metrics format: one entry per ISO week plus totals. */
export const METRICS_VERSION = '1.4.0';

const WEEK_MS = 7 * DAY_MS;

export interface WeeklyRuleMetrics {
  week: string;
  generated: string;
  events: { total: number; mistakes: number; successes: number; debug_sessions: number; feedback: number; discoveries: number };
  regressions: number;
  rules_active: number;
  lessons_total: number;
  lessons_promoted: number;
  total_violations: number;
  /** In [0, 1], 2 decimals; null when the week gives no way to tell. */
  satisfaction: number | null;
}

export interface RuleMetrics {
  version: string;
  started: string;
  weekly: WeeklyRuleMetrics[];
  totals: { events: number; lessons: number; rules: number; total_violations: number; total_saves: number; total_applied: number; promoted: number };
}

/**
 * A regression: a mistake event at time t in the scope of a rule that already existed then
 * (`rule.createdMs < t`, same category, and the rule has no tags or shares one with the event):
 * the agent made a mistake it had a rule against.
 */
export function isRegression(event: Pick<LearningEvent, 'type' | 'tsMs' | 'category' | 'tags'>, rulesOfCategory: readonly Rule[]): boolean {
  return event.type === 'mistake' && rulesOfCategory.some((r) => r.createdMs < event.tsMs && scopesOverlap(r, event));
}

/** What the events of one ISO week add up to: counts by type, regressions, and feedback by known polarity. */
export interface EventWeek {
  byType: Record<EventType, number>;
  regressions: number;
  positive: number;
  negative: number;
}

/** All events, tallied by ISO week (keyed by `isoWeekStartMs`). */
export interface EventTally {
  total: number;
  weeks: Map<number, EventWeek>;
}

const emptyWeek = (): EventWeek => ({ byType: { mistake: 0, success: 0, debug_session: 0, feedback: 0, discovery: 0 }, regressions: 0, positive: 0, negative: 0 });

/** The week of `tsMs` in `tally`, made when missing. */
export function weekOf(tally: EventTally, tsMs: number): EventWeek {
  const start = isoWeekStartMs(tsMs);
  let week = tally.weeks.get(start);
  if (!week) {
    week = emptyWeek();
    tally.weeks.set(start, week);
  }
  return week;
}

/** Adds a feedback event's `feedbackPolarity` to its week (an unknown polarity adds nothing). */
export function tallyFeedback(tally: EventTally, event: Pick<LearningEvent, 'tsMs' | 'tags' | 'feedback' | 'problem'>): void {
  const polarity = feedbackPolarity(event);
  if (polarity === 'positive') weekOf(tally, event.tsMs).positive++;
  else if (polarity === 'negative') weekOf(tally, event.tsMs).negative++;
}

/** The tally of a list of events against `rules` (what the database's aggregates compute, from the rows themselves). */
export function tallyEvents(events: readonly LearningEvent[], rules: readonly Rule[]): EventTally {
  const rulesByCategory = new Map<string, Rule[]>();
  for (const r of rules) rulesByCategory.set(r.category, [...(rulesByCategory.get(r.category) ?? []), r]);
  const tally: EventTally = { total: events.length, weeks: new Map() };
  for (const e of events) {
    const week = weekOf(tally, e.tsMs);
    week.byType[e.type]++;
    if (isRegression(e, rulesByCategory.get(e.category) ?? [])) week.regressions++;
    if (e.type === 'feedback') tallyFeedback(tally, e);
  }
  return tally;
}

/**
 * Satisfaction of a week: among its feedback events whose `feedbackPolarity` is known,
 * `positive / (positive + negative)`; when none is known, among its guard entries with an outcome,
 * `success / (success + failure)`; null when neither exists. Rounded to 2 decimals.
 */
export function weekSatisfaction(feedback: readonly LearningEvent[], guardOutcomes: readonly GuardEntry['outcome'][]): number | null {
  const tally: EventTally = { total: 0, weeks: new Map() };
  for (const e of feedback) tallyFeedback(tally, { ...e, tsMs: 0 });
  const week = tally.weeks.get(isoWeekStartMs(0)) ?? emptyWeek();
  return satisfactionOf(week, guardOutcomes);
}

function satisfactionOf(week: Pick<EventWeek, 'positive' | 'negative'>, guardOutcomes: readonly GuardEntry['outcome'][]): number | null {
  const round = (x: number) => Math.round(x * 100) / 100;
  const { positive, negative } = week;
  if (positive + negative > 0) return round(positive / (positive + negative));
  const success = guardOutcomes.filter((o) => o === 'success').length;
  const failure = guardOutcomes.filter((o) => o === 'failure').length;
  return success + failure > 0 ? round(success / (success + failure)) : null;
}

function bucket<T>(items: readonly T[], tsOf: (item: T) => number | null): Map<number, T[]> {
  const byWeek = new Map<number, T[]>();
  for (const item of items) {
    const ts = tsOf(item);
    if (ts === null) continue;
    const week = isoWeekStartMs(ts);
    const list = byWeek.get(week) ?? [];
    list.push(item);
    byWeek.set(week, list);
  }
  return byWeek;
}

/** What rule metrics are computed from besides the events (given whole, or as their tally). */
interface RuleMetricsInput {
  lessons: readonly RuleLesson[];
  rules: readonly Rule[];
  guardEntries: readonly GuardEntry[];
  nowMs: number;
  startedMs: number;
}

/**
 * Metrics for every ISO week from the one holding `startedMs` to the one holding `nowMs`
 * (none when now is before the start). For a week ending at `end` (its next Monday, 00:00 UTC):
 * - `events`: events whose `tsMs` falls in the week, by type;
 * - `regressions`: those events that `isRegression`;
 * - `rules_active`: active rules created before `end` (retirement is not dated, so a retired rule
 *   counts in no week);
 * - `lessons_total`: lessons created before `end`; `lessons_promoted`: those of them whose rule
 *   (`promotedToRule`) was created before `end` (or, when that rule is unknown, all promoted ones);
 * - `total_violations`: Σ `violations` of the rules created before `end` (counters are not dated:
 *   the current count of the rules that existed then);
 * - `satisfaction`: `weekSatisfaction` of its feedback events and its guard entries' outcomes.
 * Totals: all events and lessons, active rules, Σ violations of all rules, Σ lessons'
 * `timesSaved` and `timesApplied`, and lessons promoted.
 */
export function weeklyRuleMetrics(input: RuleMetricsInput & { events: readonly LearningEvent[] }): RuleMetrics {
  const { events, ...rest } = input;
  return ruleMetricsOf({ ...rest, tally: tallyEvents(events, input.rules) });
}

/** `weeklyRuleMetrics` from the events' tally (`tallyEvents`, or the database's aggregates of the same). */
export function ruleMetricsOf(input: RuleMetricsInput & { tally: EventTally }): RuleMetrics {
  const { tally, lessons, rules, guardEntries, nowMs, startedMs } = input;
  const guardByWeek = bucket(guardEntries, (g) => g.tsMs);
  const ruleCreated = new Map(rules.map((r) => [r.id, r.createdMs]));
  const generated = isoSeconds(nowMs);
  const weekly: WeeklyRuleMetrics[] = [];
  for (let start = isoWeekStartMs(startedMs); start <= nowMs; start += WEEK_MS) {
    const end = start + WEEK_MS;
    const inWeek = tally.weeks.get(start) ?? emptyWeek();
    const byType = inWeek.byType;
    const existing = rules.filter((r) => r.createdMs < end);
    const lessonsThen = lessons.filter((l) => l.createdMs < end);
    weekly.push({
      week: isoWeek(start),
      generated,
      events: {
        total: byType.mistake + byType.success + byType.debug_session + byType.feedback + byType.discovery,
        mistakes: byType.mistake,
        successes: byType.success,
        debug_sessions: byType.debug_session,
        feedback: byType.feedback,
        discoveries: byType.discovery,
      },
      regressions: inWeek.regressions,
      rules_active: existing.filter((r) => r.status === 'active').length,
      lessons_total: lessonsThen.length,
      lessons_promoted: lessonsThen.filter((l) => l.promotedToRule !== undefined && (ruleCreated.get(l.promotedToRule) ?? Number.NEGATIVE_INFINITY) < end).length,
      total_violations: existing.reduce((sum, r) => sum + r.violations, 0),
      satisfaction: satisfactionOf(
        inWeek,
        (guardByWeek.get(start) ?? []).map((g) => g.outcome),
      ),
    });
  }
  return {
    version: METRICS_VERSION,
    started: isoDay(startedMs),
    weekly,
    totals: {
      events: tally.total,
      lessons: lessons.length,
      rules: rules.filter((r) => r.status === 'active').length,
      total_violations: rules.reduce((sum, r) => sum + r.violations, 0),
      total_saves: lessons.reduce((sum, l) => sum + l.timesSaved, 0),
      total_applied: lessons.reduce((sum, l) => sum + l.timesApplied, 0),
      promoted: lessons.filter((l) => l.promotedToRule !== undefined).length,
    },
  };
}
