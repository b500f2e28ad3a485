import type { IAgentRuntime } from '@elizaos/core';
import { type PreparedRule, prepareRule } from './model/prompt';
import type { Rule } from './model/types';
import type { RuleBookSettings } from './rule-book-settings';
import { type IndexedRuleLesson, storedRuleLesson } from './rule-learning';
import type { Loaded, StoredRuleLesson } from './rule-rows';
import type { RuleStore } from './rule-store';
import type { ScanLesson } from '../scan/scan-lesson-metadata';
import type { Vectorizer } from '../scan/scan-lesson-store';
import { eventsOf } from '../shared/events';
import { SerialQueue } from '../shared/serial-queue';

export const RULES_LOG_SRC = 'plugin:self-improve:rules';

/** A verdict that moved a rule. */
export interface StoredVerdict {
  ruleId: string;
  verdict: 'validated' | 'violated';
}

/**
 * What the rule book's parts share: its settings, store and vectorizer, the rule lessons (with their
 * vectors) and rules held in memory, the scan lessons announced by the scan system, and the one
 * queue every write goes through (concurrent callers never plan from the same state). Every
 * change is committed to the store before the memory takes it, and announced after.
 */
export class RuleBookState {
  readonly ruleLessons = new Map<string, IndexedRuleLesson>();
  readonly rules = new Map<string, Rule>();
  /** Scan lessons (seed 001) by id, as `scanLessonsStored` announces them and until `scanLessonsLetGo` (the lessons the scan system holds): candidates for promotion to rules. */
  readonly scanLessons = new Map<string, ScanLesson>();
  /** Writes, one at a time. */
  readonly writes = new SerialQueue();
  eventTotal = 0;
  private readonly prepared = new Map<string, PreparedRule>();
  private preparedList: PreparedRule[] | null = null;

  constructor(
    readonly runtime: IAgentRuntime,
    readonly settings: RuleBookSettings,
    readonly store: RuleStore,
    readonly vectorizer: Vectorizer,
  ) {}

  /** The active rules, prepared for matching (text vectors computed once per rule text). */
  preparedRules(): PreparedRule[] {
    this.preparedList ??= [...this.prepared.values()];
    return this.preparedList;
  }

  /** Takes rules that were just written (or loaded) into the map and the prepared index (active rules only), and announces them (`rulesChanged`). */
  adoptRules(rules: readonly Rule[]): void {
    if (rules.length === 0) return;
    for (const rule of rules) {
      const before = this.rules.get(rule.id);
      this.rules.set(rule.id, rule);
      if (rule.status !== 'active') this.prepared.delete(rule.id);
      else {
        const prepared = this.prepared.get(rule.id);
        const sameText = before !== undefined && before.rule === rule.rule && before.category === rule.category && before.tags.join() === rule.tags.join();
        this.prepared.set(rule.id, prepared && sameText ? { ...prepared, rule } : prepareRule(rule));
      }
    }
    this.preparedList = null;
    void eventsOf(this.runtime).emit('rulesChanged', { rules });
  }

  /** Takes rule lessons that were just written. */
  adoptRuleLessons(lessons: readonly IndexedRuleLesson[]): void {
    for (const l of lessons) this.ruleLessons.set(l.lesson.id, l);
  }

  /** Lessons as the store keeps them, with the source of their vectors. */
  storedRuleLessons(lessons: readonly IndexedRuleLesson[]): StoredRuleLesson[] {
    return lessons.map((l) => storedRuleLesson(l, this.vectorizer.source));
  }

  /**
   * Announces verdicts just stored (`rulesJudged`: the ledger credits them, the ELO book scores
   * them), each as the rule's n-th validation (or violation), n as just stored. Waits for the
   * listeners; a failing one is logged, never thrown.
   */
  async judged(verdicts: readonly StoredVerdict[], context: string, nowMs: number): Promise<void> {
    if (verdicts.length === 0) return;
    const occurrence = (v: StoredVerdict) => (v.verdict === 'validated' ? this.rules.get(v.ruleId)?.validationCount : this.rules.get(v.ruleId)?.violations) ?? 0;
    await eventsOf(this.runtime).emit('rulesJudged', { verdicts: verdicts.map((v) => ({ ...v, occurrence: occurrence(v) })), context, atMs: nowMs });
  }

  /** The rows a load returned; the ones it skipped are logged. */
  reported<T>(loaded: Loaded<T>): T[] {
    for (const issue of loaded.skipped) {
      this.runtime.logger.warn({ src: RULES_LOG_SRC, agentId: this.runtime.agentId, table: issue.table, id: issue.id, issue: issue.message }, 'stored row is invalid; left out');
    }
    return loaded.items;
  }
}
