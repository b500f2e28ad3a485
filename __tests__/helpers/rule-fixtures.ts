import { eventId } from '../../src/rules/model/events';
import { emptyEventTypeCounts } from '../../src/rules/model/rule-lessons';
import type { LearningEvent, Rule, RuleLesson } from '../../src/rules/model/types';

export const DAY = 86_400_000;
/** 2026-02-02T00:00:00Z, a Monday. */
export const T0 = Date.UTC(2026, 1, 2);

export function makeRule(patch: Partial<Rule> & Pick<Rule, 'id'>): Rule {
  return {
    type: 'MUST',
    category: 'shell',
    tags: [],
    rule: `Always do the thing of ${patch.id}`,
    reason: 'because',
    createdMs: T0,
    sourceLesson: 'L-001',
    violations: 0,
    lastCheckedMs: T0,
    lastValidatedMs: T0,
    validationCount: 0,
    confidenceScore: 0.9,
    reviewFlagged: false,
    status: 'active',
    conflictsWith: [],
    ...patch,
  };
}

export function makeEvent(patch: Partial<Omit<LearningEvent, 'id'>> = {}): LearningEvent {
  const body: Omit<LearningEvent, 'id'> = {
    tsMs: T0,
    type: 'mistake',
    category: 'shell',
    tags: [],
    problem: 'ran rm -rf in the wrong directory',
    solution: 'check pwd before deleting',
    evidenceLevel: 'testing',
    source: 'test',
    ...patch,
  };
  return { id: eventId(body), ...body };
}

/** A lesson; unless given, its trusted confirmations are its events (as events from the operator count). */
export function makeRuleLesson(patch: Partial<RuleLesson> & Pick<RuleLesson, 'id'>): RuleLesson {
  return {
    trustedConfirmations: [],
    eventConfirmations: patch.sourceEventIds?.length ?? 0,
    untrustedConfirmations: [],
    authorTrusted: true,
    createdMs: T0,
    category: 'shell',
    tags: [],
    lesson: 'check pwd before deleting',
    context: 'From a mistake in shell',
    trigger: 'ran rm -rf in the wrong directory',
    action: 'check pwd before deleting',
    confidence: 'testing',
    confidenceScore: 0.6,
    timesApplied: 0,
    timesSaved: 0,
    sourceEventIds: [],
    eventTypeCounts: emptyEventTypeCounts(),
    lastValidatedMs: T0,
    validationCount: 0,
    reviewFlagged: false,
    ...patch,
  };
}
