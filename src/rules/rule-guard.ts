import { randomBytes } from 'node:crypto';
import { applyVerdict, type GuardMatch, judgeRuleOnOutcome, matchRulesForAction, type RuleVerdict } from './model/guard';
import { type GuardEntry, guardLogEntry, withGuardOutcome } from './model/logs';
import { recordRuleLessonApplied } from './model/rule-lessons';
import type { Rule } from './model/types';
import type { RuleBookState, StoredVerdict } from './rule-book-state';
import { type IndexedRuleLesson, withConflicts } from './rule-learning';
import { GuardOutcomeConflict, type LearningBatch } from './rule-store';
import { lexicalVector } from '../shared/lexical-vector';

export type GuardSettlement =
  | { ok: true; entry: GuardEntry; verdicts: { ruleId: string; verdict: RuleVerdict }[] }
  | { ok: false; code: 'not_found' | 'already_set'; message: string };

/**
 * The action audit (seed 003's guard log): before an action, the rules that speak about it are
 * logged as a pending entry; after it, the entry gets its outcome once and the matched rules are
 * judged by it.
 */
export class RuleGuard {
  constructor(private readonly state: RuleBookState) {}

  /**
   * Before an action: the rules that speak about it (`matchRulesForAction`: meaning by lexical
   * vector plus category and tags, `SELF_IMPROVE_GUARD_THRESHOLD`), logged as a pending guard entry.
   */
  guard(action: string, nowMs = Date.now()): Promise<{ entry: GuardEntry; matches: GuardMatch[] }> {
    const state = this.state;
    return state.writes.run(async () => {
      const matches = matchRulesForAction(action, lexicalVector(action), state.preparedRules(), { nowMs, threshold: state.settings.guardThreshold, policy: state.settings.policy });
      for (;;) {
        const entry = guardLogEntry({ nowMs, action, matches, randomHex: randomBytes(3).toString('hex') });
        const [stored] = await state.store.appendGuardEntries([entry]);
        if (stored === entry.id) return { entry, matches };
      }
    });
  }

  /**
   * After the action: sets the guard entry's outcome (once) and judges each matched rule that is
   * still active (`judgeRuleOnOutcome`): validated or violated rules are written with the outcome
   * in one transaction, then announced (`rulesJudged`: credited in the ledger and the ELO book). A
   * validated NEVER rule is a save: its lesson counts it (`times_saved`) and the entry's
   * `save_logged` is set. With `credit: false` (an action run for someone who may not teach) the
   * entry gets its outcome and the verdicts are returned, but no rule, lesson, ledger or ELO entry changes.
   */
  settleGuard(guardId: string, outcome: { succeeded: boolean; actionText: string }, nowMs = Date.now(), options: { credit?: boolean } = {}): Promise<GuardSettlement> {
    const credit = options.credit ?? true;
    const state = this.state;
    return state.writes.run(async (): Promise<GuardSettlement> => {
      const [entry] = state.reported(await state.store.guardEntry(guardId));
      if (!entry) return { ok: false, code: 'not_found', message: `no guard entry ${guardId}` };
      if (entry.outcome !== 'pending') return { ok: false, code: 'already_set', message: `guard entry ${guardId} already has the outcome ${entry.outcome}` };
      const verdicts: { ruleId: string; verdict: RuleVerdict }[] = [];
      const changed: Rule[] = [];
      const lessons: IndexedRuleLesson[] = [];
      for (const ruleId of entry.matchedRules) {
        const rule = state.rules.get(ruleId);
        if (!rule || rule.status !== 'active') continue;
        const verdict = judgeRuleOnOutcome(rule, outcome);
        verdicts.push({ ruleId, verdict });
        if (verdict === 'unchanged' || !credit) continue;
        changed.push(applyVerdict(rule, verdict, nowMs));
        const lesson = state.ruleLessons.get(rule.sourceLesson);
        if (lesson && verdict === 'validated') lessons.push({ ...lesson, lesson: recordRuleLessonApplied(lesson.lesson, rule.type === 'NEVER') });
      }
      const settled = withGuardOutcome(entry, outcome.succeeded ? 'success' : 'failure', credit && verdicts.some((v) => v.verdict === 'validated' && state.rules.get(v.ruleId)?.type === 'NEVER'));
      const rules = changed.length === 0 ? [] : withConflicts(state.rules, changed);
      const batch: LearningBatch = { rules, ruleLessons: state.storedRuleLessons(lessons), guardOutcomes: [{ id: guardId, outcome: settled.outcome as 'success' | 'failure', saveLogged: settled.saveLogged }] };
      try {
        await state.store.commitLearning(batch);
      } catch (error) {
        if (error instanceof GuardOutcomeConflict) return { ok: false, code: 'already_set', message: error.message };
        throw error;
      }
      state.adoptRuleLessons(lessons);
      state.adoptRules(rules);
      if (credit) await state.judged(verdicts.filter((v): v is StoredVerdict => v.verdict !== 'unchanged'), `guard ${guardId}`, nowMs);
      return { ok: true, entry: settled, verdicts };
    });
  }

  /** The newest guard entries, newest first. */
  async guardLog(limit: number): Promise<GuardEntry[]> {
    return this.state.reported(await this.state.store.guardEntries({ limit }));
  }
}
