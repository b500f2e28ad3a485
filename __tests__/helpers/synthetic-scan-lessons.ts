import type { UUID } from '@elizaos/core';
import { stableId } from '../../src/shared/ids';
import type { StoredScanLesson } from '../../src/scan/scan-lesson-metadata';

export const SYNTHETIC_PROJECTS = ['payments-api', 'mobile-app', 'billing', 'auth-service'];
export const SYNTHETIC_SCANNERS = ['semgrep', 'codeql', 'snyk-code'];
export const SYNTHETIC_CATEGORIES = ['xss', 'sql-injection', 'path-traversal', 'hardcoded-secret', 'ssrf', 'weak-crypto', 'dependency-version'];
const PHRASES = ['were rejected as false positives', 'were fixed or accepted', 'were ignored without comment', 'fixes were reopened'];

/** Lesson number `i` of a large synthetic index: scopes, confidences, rewards and dates cycle, text varies. */
export function syntheticScanLesson(i: number, text?: string): StoredScanLesson {
  const project = SYNTHETIC_PROJECTS[i % SYNTHETIC_PROJECTS.length] as string;
  const scanner = SYNTHETIC_SCANNERS[i % SYNTHETIC_SCANNERS.length] as string;
  const category = SYNTHETIC_CATEGORIES[i % SYNTHETIC_CATEGORIES.length] as string;
  const iso = new Date(Date.UTC(2026, 10, 1 + (i % 20))).toISOString();
  return {
    id: stableId('synthetic-lesson', String(i)) as UUID,
    text:
      text ??
      `For ${scanner} on project ${project}, category ${category}: findings near ${['parser', 'template', 'router', 'client'][i % 4]} code ${PHRASES[i % PHRASES.length]} (variant ${i}).`,
    createdAt: 0,
    metadata: {
      type: 'scan-model-lesson',
      category: 'false-positive-pattern',
      confidence: 0.56 + (i % 40) / 100,
      avg_reward: -0.5 + (i % 10) / 10,
      sample_size: 20 + (i % 50),
      project,
      scanner,
      model_provider: 'openai',
      model_name: 'gpt-4o',
      prompt_version: null,
      strategy_version: null,
      window_start: iso,
      window_end: iso,
      created_from: 'scan_finding_outcomes',
      finding_category: category,
      group_id: JSON.stringify([project, scanner, 'openai', 'gpt-4o', category, i % 50]),
      outcome_ids: [],
      evidence_count: 20,
      label_counts: { fixed: 5, accepted: 0, ignored: 0, rejected_fp: 15, reopened: 0 },
      false_positive_rate: 0.75,
      origin: 'statistics',
      stated_confidence: 1,
      reinforcements: 0,
      first_learned_at: iso,
      last_seen: iso,
      embedding_source: 'lexical',
    },
  };
}
