import { ruleAfterDecay, ruleAfterValidation, ruleAfterViolation } from './model/rule-confidence';
import { approveCandidate, ruleFromScanLesson, scanLessonPromotion } from './model/promotion';
import { nextId } from './model/rule-lessons';
import type { Rule } from './model/types';
import type { RuleBookState } from './rule-book-state';
import { type IndexedRuleLesson, promoteDue, scanLessonStatsOf, withConflicts } from './rule-learning';
import { newestEvidenceFirst } from '../scan/scan-lesson-metadata';

/** Why a rule was not changed: unknown id; retired; not in use (a candidate or rejected: approve it first); not a candidate (approve, reject). */
export type RuleChangeRefusal = 'not_found' | 'retired' | 'not_active' | 'not_candidate';
export type RuleChange = { ok: true; rule: Rule } | { ok: false; code: RuleChangeRefusal; message: string };

/**
 * The life of rules after they are learned: validation, violation and retirement; a trusted
 * person's approval or rejection of candidates; confidence decay; and promotion of the lessons that
 * come due: the rules system's own rule lessons and the scan system's scan lessons.
 */
export class RuleUpkeep {
  constructor(private readonly state: RuleBookState) {}

  /** A rule confirmed (confidence back to 0.9, one more validation); rewarded in the ledger and a win in the ELO book. Only active rules. */
  validateRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => ruleAfterValidation(r, nowMs), 'validated', 'validated by request');
  }

  /** A rule broken (one more violation); a penalty in the ledger and a loss in the ELO book. Only active rules. */
  recordViolation(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => ruleAfterViolation(r, nowMs), 'violated', 'violation reported');
  }

  /** An active rule taken out of use; conflicts are recomputed, so its partner is no longer held back by it. */
  retireRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.changeRule(id, nowMs, (r) => ({ ...r, status: 'retired', lastCheckedMs: nowMs }), null, 'retired');
  }

  private changeRule(id: string, nowMs: number, change: (rule: Rule) => Rule, verdict: 'validated' | 'violated' | null, context: string): Promise<RuleChange> {
    const state = this.state;
    return state.writes.run(async (): Promise<RuleChange> => {
      const rule = state.rules.get(id);
      if (!rule) return { ok: false, code: 'not_found', message: `no rule ${id}` };
      if (rule.status === 'retired') return { ok: false, code: 'retired', message: `rule ${id} is retired` };
      if (rule.status !== 'active') return { ok: false, code: 'not_active', message: `rule ${id} is ${rule.status === 'candidate' ? 'a candidate: approve it first' : 'rejected'}` };
      const changed = withConflicts(state.rules, [change(rule)]);
      await state.store.upsertRules(changed);
      state.adoptRules(changed);
      if (verdict) await state.judged([{ ruleId: id, verdict }], context, nowMs);
      return { ok: true, rule: state.rules.get(id) as Rule };
    });
  }

  /**
   * A candidate approved by a trusted person (the caller checks who): it becomes active as it was
   * listed (`approveCandidate`), and the lesson it came from counts as promoted to it, in one
   * transaction. No ledger entry: approving is not a validation.
   */
  approveRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.decideCandidate(id, (r) => approveCandidate(r, nowMs));
  }

  /** A candidate turned down by a trusted person: status `rejected`, never in a prompt; its lesson keeps learning. */
  rejectRule(id: string, nowMs = Date.now()): Promise<RuleChange> {
    return this.decideCandidate(id, (r) => ({ ...r, status: 'rejected', lastCheckedMs: nowMs }));
  }

  private decideCandidate(id: string, decide: (rule: Rule) => Rule): Promise<RuleChange> {
    const state = this.state;
    return state.writes.run(async (): Promise<RuleChange> => {
      const rule = state.rules.get(id);
      if (!rule) return { ok: false, code: 'not_found', message: `no rule ${id}` };
      if (rule.status !== 'candidate') return { ok: false, code: 'not_candidate', message: `rule ${id} is ${rule.status}, not a candidate` };
      const decided = decide(rule);
      const rules = withConflicts(state.rules, [decided]);
      const source = [...state.ruleLessons.values()].find((l) => l.lesson.candidateRule === id);
      const lessons = decided.status === 'active' && source && source.lesson.promotedToRule === undefined ? [{ ...source, lesson: { ...source.lesson, promotedToRule: id } }] : [];
      await state.store.commitLearning({ rules, ruleLessons: state.storedRuleLessons(lessons) });
      state.adoptRuleLessons(lessons);
      state.adoptRules(rules);
      return { ok: true, rule: state.rules.get(id) as Rule };
    });
  }

  /**
   * Recomputes every active rule's confidence at `nowMs` from its last validation
   * (`ruleConfidenceAt`), flags those below 0.5, and writes the ones that changed in one transaction.
   * A function of timestamps: a missed run loses nothing, a repeated one changes nothing.
   */
  applyDecay(nowMs: number): Promise<{ decayed: number; flagged: number }> {
    const state = this.state;
    return state.writes.run(async () => {
      const changed: Rule[] = [];
      let flagged = 0;
      for (const rule of state.rules.values()) {
        if (rule.status !== 'active') continue;
        const next = ruleAfterDecay(rule, nowMs, state.settings.policy);
        if (next.confidenceScore === rule.confidenceScore && next.reviewFlagged === rule.reviewFlagged) continue;
        changed.push(next);
        if (next.reviewFlagged && !rule.reviewFlagged) flagged++;
      }
      await state.store.upsertRules(changed);
      state.adoptRules(changed);
      return { decayed: changed.length, flagged };
    });
  }

  /** Promotes rule lessons that meet the promotion settings now (e.g. once `SELF_IMPROVE_RULE_MIN_AGE_DAYS` have passed). */
  promoteRuleLessons(nowMs: number): Promise<string[]> {
    const state = this.state;
    return state.writes.run(async () => {
      const due = new Map([...state.ruleLessons].filter(([, l]) => l.lesson.promotedToRule === undefined));
      const promotions = promoteDue(due, state.rules, state.settings.criteria, nowMs);
      if (promotions.rules.length === 0 && promotions.ruleLessonIds.length === 0) return [];
      const lessons = promotions.ruleLessonIds.map((id) => due.get(id) as IndexedRuleLesson);
      const rules = promotions.rules.length === 0 ? [] : withConflicts(state.rules, promotions.rules);
      await state.store.commitLearning({ ruleLessons: state.storedRuleLessons(lessons), rules });
      state.adoptRuleLessons(lessons);
      state.adoptRules(rules);
      return promotions.promoted;
    });
  }

  /**
   * Promotes `scan-model-lesson` memories (seed 001) with strong, lasting support
   * (`scanLessonPromotion` with the `SELF_IMPROVE_SCAN_RULE_*` settings), newest evidence first,
   * each once: a memory that is the `sourceLesson` of any rule (even a retired one) is not
   * promoted again. Off when `SELF_IMPROVE_SCAN_RULE_PROMOTION=off`. Run by the decay task.
   */
  promoteScanLessons(nowMs: number): Promise<string[]> {
    const state = this.state;
    if (!state.settings.scanPromotion) return Promise.resolve([]);
    return state.writes.run(async () => {
      const sources = new Set([...state.rules.values()].map((r) => r.sourceLesson));
      const promoted: Rule[] = [];
      let nextRuleId = nextId('R', state.rules.keys());
      for (const lesson of [...state.scanLessons.values()].sort(newestEvidenceFirst)) {
        if (sources.has(lesson.id)) continue;
        const stats = scanLessonStatsOf(lesson);
        const decision = scanLessonPromotion(stats, state.settings.scanCriteria, nowMs);
        if (!decision.promote) continue;
        promoted.push(ruleFromScanLesson(stats, decision.type, nextRuleId, nowMs));
        nextRuleId = nextId('R', [nextRuleId]);
      }
      if (promoted.length === 0) return [];
      const rules = withConflicts(state.rules, promoted);
      await state.store.upsertRules(rules);
      state.adoptRules(rules);
      return promoted.map((r) => r.id);
    });
  }
}
