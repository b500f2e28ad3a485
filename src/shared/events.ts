import type { IAgentRuntime } from '@elizaos/core';
import type { ItemRef } from '../elo/model/exposures';
import type { Rule } from '../rules/model/types';
import type { ScanLesson } from '../scan/scan-lesson-metadata';
import type { OutcomeLabel } from '../scan/model/outcome';
import { EventHub } from './event-hub';
import type { Db } from './sql';
import { errorText } from './error-text';

/** A scan outcome just written: the finding, its label and its weighted reward. */
export interface RecordedOutcome {
  id: string;
  findingKey: string;
  label: OutcomeLabel;
  reward: number;
}

/**
 * The outcome of work the agent did came back: `context` names the work (`findingContext`: a
 * finding got a label; `messageContextId`: the run answering a message ended), `reward` how it went
 * (> 0 good, < 0 bad, 0 neither), `reason` the word for it in logs.
 */
export interface Judgement {
  context: string;
  reward: number;
  reason: string;
}

/** A rule's verdict as stored: its `occurrence`-th validation (or violation). */
export interface RuleVerdictRecord {
  ruleId: string;
  verdict: 'validated' | 'violated';
  occurrence: number;
}

/**
 * The few things that happen in one agent that other subsystems act on. Emitters name what
 * happened; who listens is the listeners' business.
 */
export interface SelfImproveEvents {
  /**
   * New scan outcomes were written inside the ingest's open transaction `tx`, not yet committed.
   * Handlers run in order and are awaited before the commit, so what they write on `tx` commits
   * with the outcomes or not at all. A handler writes in a savepoint of its own
   * (`tx.transaction(...)`): when it fails, its savepoint is rolled back, the failure is logged,
   * and the outcomes still commit.
   */
  outcomesRecorded: { tx: Db; outcomes: readonly RecordedOutcome[] };
  /** Work came back judged (after its records were committed). */
  workJudged: { judgements: readonly Judgement[] };
  /** Rules were validated or violated (each verdict stored with its rule): what judged them, and when. */
  rulesJudged: { verdicts: readonly RuleVerdictRecord[]; context: string; atMs: number };
  /** Rules were created or changed (stored first); announced: a late subscriber gets every rule. */
  rulesChanged: { rules: readonly Rule[] };
  /** Scan lessons were created or reinforced (stored first); announced: a late subscriber gets every lesson. */
  scanLessonsStored: { scanLessons: readonly ScanLesson[] };
  /** Scan lessons were let go from memory (they stay stored): what holds lessons by id forgets them, so it holds what the scan system holds. */
  scanLessonsLetGo: { ids: readonly string[] };
  /** A trajectory was accepted and stored, and was granted `paidSats` (0: accepted but not paid). */
  trajectoryAccepted: { id: string; paidSats: number; quality: number };
  /**
   * A provider put items into a message's prompt, best first. `findingKey`: the known finding the
   * message names, or null.
   */
  itemsShown: { tool: string; messageId: string; roomId: string; text: string; items: readonly ItemRef[]; findingKey: string | null; logExtras?: Record<string, unknown> };
}

export type SelfImproveHub = EventHub<SelfImproveEvents>;

const hubs = new WeakMap<IAgentRuntime, SelfImproveHub>();

/** The event hub of one runtime (one agent); a failing handler is logged with the event's name. */
export function eventsOf(runtime: IAgentRuntime): SelfImproveHub {
  let hub = hubs.get(runtime);
  if (!hub) {
    hub = new EventHub<SelfImproveEvents>((event, error) => {
      runtime.logger.warn(
        { src: 'plugin:self-improve:events', agentId: runtime.agentId, event, error: errorText(error) },
        'an event handler failed; the event went on to the others',
      );
    });
    hubs.set(runtime, hub);
  }
  return hub;
}
