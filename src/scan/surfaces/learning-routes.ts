import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import { DEFAULT_WEEKS, MAX_WEEKS } from '../model/weekly-triage';
import { type EloBookService, SCAN_LESSON_KIND } from '../../elo/elo-book-service';
import type { ScanLesson } from '../scan-lesson-metadata';
import type { ScanOutcomeService } from '../scan-outcome-service';
import { TopK } from '../model/scan-lesson-ranking';
import { REPORT_REUSE_MS } from '../../elo/elo-report';
import { decodeLessonCursor, encodeLessonCursor } from '../model/scan-lesson-cursor';
import { ELO_BOOK_SERVICE } from '../../shared/service-names';
import { queryParam } from '../../shared/http/body';
import { badRequest, serviceOr503 } from './outcome-routes';
import { MAX_METRICS_K } from '../scan-metrics';
import { boundedInt, oneOf, timeParam, uuidList } from '../../shared/http/query-params';

/** Lessons one page of GET /self-improve/lessons holds at most, and by default. */
export const MAX_SCAN_LESSONS_PAGE = 100;
export const DEFAULT_SCAN_LESSONS_PAGE = 20;

/** One lesson as the lessons route lists it: what it says, its scope and evidence, and its ELO now. */
export interface ScanLessonListItem {
  id: string;
  text: string;
  category: string;
  confidence: number;
  sample_size: number;
  avg_reward: number;
  evidence_count: number;
  window_start: string;
  window_end: string;
  first_learned_at: string;
  last_seen: string;
  project: string;
  scanner: string;
  model: string;
  finding_category: string | null;
  /** Its rating in the ELO book now (its starting rating when never rated); null when the ELO book is not running. */
  elo: number | null;
}

function listItem(lesson: ScanLesson, eloOf: ((kind: string, id: string) => number) | null): ScanLessonListItem {
  const m = lesson.metadata;
  return {
    id: lesson.id,
    text: lesson.text,
    category: m.category,
    confidence: m.confidence,
    sample_size: m.sample_size,
    avg_reward: m.avg_reward,
    evidence_count: m.evidence_count,
    window_start: m.window_start,
    window_end: m.window_end,
    first_learned_at: m.first_learned_at,
    last_seen: m.last_seen,
    project: m.project,
    scanner: m.scanner,
    model: `${m.model_provider}/${m.model_name}`,
    finding_category: m.finding_category,
    elo: eloOf ? eloOf(SCAN_LESSON_KIND, lesson.id) : null,
  };
}

/**
 * GET /self-improve/lessons?limit=N&sort=newest|elo&ids=ID,ID&after=CURSOR: the agent's lessons
 * with their text, category, confidence, n, window, evidence count, last seen and ELO now —
 * `newest` (default): latest evidence first; `elo`: highest rating first; ties by id. `limit`
 * 1–100 (default 20); `ids` (at most 100) keeps only those lessons. `count` is how many lessons the
 * agent has in all. `newest` pages are read from the database by its index (`limit` rows, not all
 * of them): `next_after` (null on the last page) passed back as `after` gives the next page;
 * `sort=elo` ranks the lessons held in memory (or those of `ids`) and has no further pages
 * (`next_after` null). 400 naming a bad parameter.
 */
export async function handleGetScanLessons(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const limit = boundedInt(queryParam(req, 'limit'), 'limit', 1, MAX_SCAN_LESSONS_PAGE, DEFAULT_SCAN_LESSONS_PAGE);
  const sort = oneOf(queryParam(req, 'sort'), 'sort', ['newest', 'elo']);
  const ids = uuidList(queryParam(req, 'ids'), 'ids', MAX_SCAN_LESSONS_PAGE);
  const after = decodeLessonCursor(queryParam(req, 'after'), 'after');
  if (!limit.ok) return badRequest(res, limit.message);
  if (!sort.ok) return badRequest(res, sort.message);
  if (!ids.ok) return badRequest(res, ids.message);
  if (!after.ok) return badRequest(res, after.message);
  if (sort.value === 'elo' && after.value !== null) return badRequest(res, 'after pages only sort=newest (sort=elo has one page)');
  const service = serviceOr503(runtime, res);
  if (!service) return;
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  const nowMs = Date.now();
  const only = ids.value.length > 0 ? { ids: ids.value } : {};
  const page = sort.value === 'newest' ? await service.scanLessons.page({ limit: limit.value, after: after.value, ...only }) : await byElo(service, book, nowMs, limit.value, ids.value);
  const eloOf = book ? await book.currentElos(page.lessons.map((l) => ({ kind: SCAN_LESSON_KIND, id: l.id })), nowMs) : null;
  res.status(200).json({ count: service.scanLessons.count(), lessons: page.lessons.map((l) => listItem(l, eloOf)), next_after: page.last === null ? null : encodeLessonCursor(page.last) });
}

/**
 * The `limit` lessons with the highest rating now, ties by id: of `ids` when given (read, held or
 * not), otherwise of the lessons held in memory (SELF_IMPROVE_LESSONS_IN_MEMORY, those with the
 * newest evidence: the ones prompts rank), so the cost follows that bound, not every lesson ever
 * learned (`heldByElo`).
 */
async function byElo(service: ScanOutcomeService, book: EloBookService | null | undefined, nowMs: number, limit: number, ids: readonly string[]): Promise<{ lessons: ScanLesson[]; last: null }> {
  if (ids.length === 0) return { lessons: (await heldByElo(service, book, nowMs)).slice(0, limit), last: null };
  return { lessons: await highestRated((await service.scanLessons.page({ limit: ids.length, after: null, ids })).lessons, book, nowMs, limit), last: null };
}

/**
 * The best MAX_SCAN_LESSONS_PAGE of the lessons held by rating now (one pass over them: 7–10 ms at
 * 10,000 held on the 1M bench database), kept and answered again while neither the lessons held
 * nor the ELO book changed, for at most REPORT_REUSE_MS as the ELO report is: only drift, a slow
 * function of time, moves ratings meanwhile, and it never changes the order of lessons that start
 * from the same rating (every lesson, unless tier rules give lessons other starts). The page's
 * ratings are computed at the time asked.
 */
async function heldByElo(service: ScanOutcomeService, book: EloBookService | null | undefined, nowMs: number): Promise<ScanLesson[]> {
  await service.scanLessonsReady();
  const index = service.scanLessons.index;
  const key = `${index.version}:${book?.version ?? -1}`;
  const kept = keptOrders.get(service);
  if (kept && kept.key === key && nowMs - kept.atMs < REPORT_REUSE_MS) return kept.lessons;
  const lessons = await highestRated(index.all(), book, nowMs, MAX_SCAN_LESSONS_PAGE);
  keptOrders.set(service, { key, atMs: nowMs, lessons });
  return lessons;
}

const keptOrders = new WeakMap<ScanOutcomeService, { key: string; atMs: number; lessons: ScanLesson[] }>();

/** The `limit` of `lessons` rated highest at `nowMs`, ties by id; their ratings read in one call (those not in memory in one query). */
async function highestRated(lessons: readonly ScanLesson[], book: EloBookService | null | undefined, nowMs: number, limit: number): Promise<ScanLesson[]> {
  const eloOf = book ? await book.currentElos(lessons.map((l) => ({ kind: SCAN_LESSON_KIND, id: l.id })), nowMs) : null;
  // Ratings may be 0 or below: every lesson counts.
  const top = new TopK<ScanLesson>(limit, Number.NEGATIVE_INFINITY);
  for (const lesson of lessons) top.offer(lesson.id, lesson, eloOf ? eloOf(SCAN_LESSON_KIND, lesson.id) : 0);
  return top.result().map((r) => r.item);
}

/**
 * GET /self-improve/metrics/weekly?weeks=N&k=K&now=ISO: triage quality week by week (see
 * `weeklyTriage`): false-positive rate, precision@k and calibration error of the findings labelled
 * in each of the N UTC weeks (1–52, default 12) ending with the one holding `now` (default: now),
 * oldest first. 400 naming a bad parameter.
 */
export async function handleGetWeeklyMetrics(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const weeks = boundedInt(queryParam(req, 'weeks'), 'weeks', 1, MAX_WEEKS, DEFAULT_WEEKS);
  const k = boundedInt(queryParam(req, 'k'), 'k', 1, MAX_METRICS_K, 0);
  const now = timeParam(queryParam(req, 'now'), 'now');
  if (!weeks.ok) return badRequest(res, weeks.message);
  if (!k.ok) return badRequest(res, k.message);
  if (!now.ok) return badRequest(res, now.message);
  const service = serviceOr503(runtime, res);
  if (!service) return;
  res.status(200).json(await service.weeklyTriage({ weeks: weeks.value, asOfMs: now.value, ...(k.value === 0 ? {} : { k: k.value }) }));
}

export const learningRoutes: Route[] = [
  { type: 'GET', path: '/lessons', name: 'self-improve-lessons', handler: handleGetScanLessons },
  { type: 'GET', path: '/metrics/weekly', name: 'self-improve-metrics-weekly', handler: handleGetWeeklyMetrics },
];
