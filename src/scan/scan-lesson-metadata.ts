import type { UUID } from '@elizaos/core';
import { z } from 'zod';
import { dominantValue } from './model/grouping';
import { SCAN_LESSON_CATEGORIES } from './model/scan-lesson';
import { type TextPart, textPartSchema } from './model/scan-lesson-figures';
import { OUTCOME_LABELS } from './model/outcome';

export const SCAN_LESSON_MEMORY_TYPE = 'scan-model-lesson';
export const SCAN_LESSON_CREATED_FROM = 'scan_finding_outcomes';
/** The memory table lessons live in: MemoryType.CUSTOM, as seed 001 §5 asks. */
export const SCAN_LESSONS_TABLE = 'custom';
/** Outcome ids kept in a lesson's metadata (newest first); the evidence table keeps them all. */
export const MAX_EVIDENCE_IDS_IN_METADATA = 200;

const labelCountsSchema = z.object(Object.fromEntries(OUTCOME_LABELS.map((l) => [l, z.number().int().nonnegative()])) as Record<(typeof OUTCOME_LABELS)[number], z.ZodNumber>);

/**
 * The metadata of a `scan-model-lesson` memory: every field of seed 001 §5 (always present;
 * `prompt_version`/`strategy_version` are null when the outcomes named none) plus provenance.
 * `category` is the lesson's category; the group's finding category is `finding_category`.
 */
export const scanLessonMetadataSchema = z.object({
  type: z.literal(SCAN_LESSON_MEMORY_TYPE),
  category: z.enum(SCAN_LESSON_CATEGORIES),
  confidence: z.number().min(0).max(1),
  avg_reward: z.number().min(-1).max(1),
  sample_size: z.number().int().positive(),
  project: z.string(),
  scanner: z.string(),
  model_provider: z.string(),
  model_name: z.string(),
  prompt_version: z.string().nullable(),
  strategy_version: z.string().nullable(),
  window_start: z.string(),
  window_end: z.string(),
  created_from: z.literal(SCAN_LESSON_CREATED_FROM),
  // provenance and bookkeeping
  finding_category: z.string().nullable(),
  group_id: z.string(),
  outcome_ids: z.array(z.string().uuid()),
  evidence_count: z.number().int().positive(),
  label_counts: labelCountsSchema,
  false_positive_rate: z.number().min(0).max(1),
  origin: z.enum(['model', 'statistics']),
  stated_confidence: z.number().min(0).max(1),
  reinforcements: z.number().int().nonnegative(),
  first_learned_at: z.string(),
  last_seen: z.string(),
  embedding_source: z.enum(['model', 'lexical']),
  /**
   * A model-written lesson's text as the model's words and the figures in them bound to the
   * statistics they came from (`bindTextFigures`): reinforcement re-renders the figures from the
   * whole evidence. Absent for statistics-written lessons (re-rendered by `renderStatisticalScanLesson`)
   * and for model lessons stored before figures were bound (bound at their next reinforcement).
   */
  text_parts: z.array(textPartSchema).optional(),
});

export type ScanLessonMetadata = z.output<typeof scanLessonMetadataSchema>;

/**
 * A lesson's metadata without its evidence ids: what the plugin holds in memory and everything but
 * the stored memory and the `lessons` command reads. The ids (up to 200 per lesson) were most of a
 * held lesson's memory: 2M strings for 10,000 lessons.
 */
export type HeldScanLessonMetadata = Omit<ScanLessonMetadata, 'outcome_ids'>;

/** A lesson as the plugin holds and ranks it (its evidence ids are in the stored memory and the evidence table). */
export interface ScanLesson {
  id: UUID;
  text: string;
  metadata: HeldScanLessonMetadata;
  createdAt: number;
}

/** A lesson as stored, with the ids of its newest evidence. */
export interface StoredScanLesson extends ScanLesson {
  metadata: ScanLessonMetadata;
}

/** `lesson` without its evidence ids (a new object; `lesson` is left as it is). */
export function heldScanLesson(lesson: ScanLesson): ScanLesson {
  if (!('outcome_ids' in lesson.metadata)) return lesson;
  const { outcome_ids: _ids, ...metadata } = lesson.metadata as ScanLessonMetadata;
  return { ...lesson, metadata };
}

/** Lessons in the order they are listed: newest evidence (`last_seen`) first, then by id. */
export const newestEvidenceFirst = (a: ScanLesson, b: ScanLesson): number => b.metadata.last_seen.localeCompare(a.metadata.last_seen) || a.id.localeCompare(b.id);

export interface ScanLessonFacts {
  category: (typeof SCAN_LESSON_CATEGORIES)[number];
  origin: 'model' | 'statistics';
  /** The confidence the lesson's author stated (the model's, or 1 for statistics): metadata `stated_confidence`. */
  statedConfidence: number;
  /** `scanLessonConfidence(draft, stats)`: what the lesson is stored with (metadata `confidence`). */
  scanLessonConfidence: number;
  groupId: string;
  key: { project: string; scanner: string; model_provider: string; model_name: string; category: string | null };
  /** Every outcome behind the lesson, oldest first. */
  evidence: readonly { id: UUID; promptVersion?: string; strategyVersion?: string }[];
  stats: { n: number; avgReward: number; labelCounts: z.output<typeof labelCountsSchema>; falsePositiveRate: number };
  windowStartMs: number;
  windowEndMs: number;
  asOfMs: number;
  embeddingSource: 'model' | 'lexical';
  /** A model lesson's words and bound figures (see `text_parts`). */
  textParts?: TextPart[];
  previous?: HeldScanLessonMetadata;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Builds the full metadata of a lesson from its facts; a reinforcement keeps the first-learned time and widens the window. */
export function scanLessonMetadataFor(f: ScanLessonFacts): ScanLessonMetadata {
  const newestFirst = [...f.evidence].reverse();
  const windowStart = f.previous ? Math.min(Date.parse(f.previous.window_start), f.windowStartMs) : f.windowStartMs;
  const windowEnd = f.previous ? Math.max(Date.parse(f.previous.window_end), f.windowEndMs) : f.windowEndMs;
  return {
    type: SCAN_LESSON_MEMORY_TYPE,
    category: f.category,
    confidence: f.scanLessonConfidence,
    avg_reward: f.stats.avgReward,
    sample_size: f.stats.n,
    project: f.key.project,
    scanner: f.key.scanner,
    model_provider: f.key.model_provider,
    model_name: f.key.model_name,
    prompt_version: dominantValue(f.evidence.map((o) => o.promptVersion)),
    strategy_version: dominantValue(f.evidence.map((o) => o.strategyVersion)),
    window_start: iso(windowStart),
    window_end: iso(windowEnd),
    created_from: SCAN_LESSON_CREATED_FROM,
    finding_category: f.key.category,
    group_id: f.groupId,
    outcome_ids: newestFirst.slice(0, MAX_EVIDENCE_IDS_IN_METADATA).map((o) => o.id),
    evidence_count: f.evidence.length,
    label_counts: { ...f.stats.labelCounts },
    false_positive_rate: f.stats.falsePositiveRate,
    origin: f.origin,
    stated_confidence: f.statedConfidence,
    reinforcements: f.previous ? f.previous.reinforcements + 1 : 0,
    first_learned_at: f.previous?.first_learned_at ?? iso(f.asOfMs),
    last_seen: iso(f.asOfMs),
    embedding_source: f.embeddingSource,
    ...(f.textParts ? { text_parts: f.textParts } : {}),
  };
}
