/**
 * Seed 003 (v1.4.0): the shapes of the rules system. Events come in (mistake, success, debug
 * session, feedback, discovery), cluster into lessons, and lessons that keep being confirmed are
 * promoted to typed rules whose confidence decays unless validated. Inside the code names are
 * camelCase and times are epoch milliseconds; the seed's snake_case field names and `YYYY-MM-DD`
 * dates are the wire format (exports, logs, HTTP, CLI), converted at the boundary.
 */

export const EVENT_TYPES = ['mistake', 'success', 'debug_session', 'feedback', 'discovery'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Seed 003's `confidence` of an event or lesson: still being tried, or shown to hold. */
export const EVIDENCE_LEVELS = ['testing', 'proven'] as const;
export type EvidenceLevel = (typeof EVIDENCE_LEVELS)[number];

/** One thing that happened and what was learned from it (seed 003 event format). */
export interface LearningEvent {
  /** Stable id (derived from the event's content, so re-ingesting is idempotent). */
  id: string;
  tsMs: number;
  type: EventType;
  /** Lower-case `^[a-z][a-z0-9_-]*$`, e.g. shell, auth, memory, config. */
  category: string;
  /** Lower-case, deduplicated, sorted. */
  tags: string[];
  problem: string;
  solution: string;
  /** What the event's source says of it: seed 003's `confidence` (the wire field and the column keep that name). */
  evidenceLevel: EvidenceLevel;
  /** Where it happened: session, cron, chat, http, cli … */
  source: string;
  /** The human's exact words, for feedback events (wire: `greg_feedback`). */
  feedback?: string;
  /**
   * The person who taught it in conversation (a chat message, or an action run at their request),
   * and whether they were trusted then. Absent for events from the operator (HTTP, CLI) and from
   * the agent's own work: those count as trusted, one confirmation each. Not part of the wire format.
   */
  teacher?: Teacher;
  /** The lesson the event joined or started (`planLearning`), stored with it: a lesson's full provenance. */
  lessonId?: string;
}

/** Who taught an event: the person's entity id, and whether they were trusted (`isTrusted`) when they did. */
export interface Teacher {
  entityId: string;
  trusted: boolean;
}

/** A rule lesson: a reusable lesson clustered from events (seed 003 lesson format), not a scan lesson. */
export interface RuleLesson {
  /** `L-001` style. */
  id: string;
  createdMs: number;
  category: string;
  subcategory?: string;
  tags: string[];
  lesson: string;
  context: string;
  trigger: string;
  action: string;
  /** The rule lesson's evidence level, from its events (seed 003's `confidence`; stored in the lesson document under that name). */
  confidence: EvidenceLevel;
  /** `RULE_LESSON_SCORE_BY_EVIDENCE[confidence]` (wire `confidence_score`). */
  confidenceScore: number;
  timesApplied: number;
  timesSaved: number;
  /** Rule id once promoted (or a candidate of it approved). */
  promotedToRule?: string;
  /** Id of the candidate rule made from the lesson while it waits for promotion or approval. */
  candidateRule?: string;
  /**
   * Distinct confirmations from trusted people (`personConfirmationKey`): one per (person, UTC
   * day). Promotion counts these and `eventConfirmations` (`trustedConfirmationCount`).
   */
  trustedConfirmations: string[];
  /**
   * Confirmations from events without a teacher (the operator's, the agent's own work): one per
   * event, counted, since each event is stored once (its id is its content).
   */
  eventConfirmations: number;
  /** The same, from people who may not teach: shown with a candidate, never counted toward promotion. */
  untrustedConfirmations: string[];
  /**
   * Whether the lesson's words come from a trusted source (its first event was). A lesson someone
   * who may not teach worded is never joined by trusted events and becomes a rule only when a
   * trusted person approves its candidate: an active rule's words are a trusted source's, or approved.
   */
  authorTrusted: boolean;
  /**
   * Ids of the newest `SOURCE_EVENT_IDS_KEPT` events behind the lesson, oldest first (wire:
   * `source_events`, their timestamps). Every event is stored with the id of its lesson
   * (`LearningEvent.lessonId`), so the full provenance is in the events; `eventTypeCounts` counts them all.
   */
  sourceEventIds: string[];
  /** Counts of the event types behind the lesson (every event), used to choose a rule type on promotion. */
  eventTypeCounts: Record<EventType, number>;
  lastValidatedMs: number;
  validationCount: number;
  reviewFlagged: boolean;
}

export const RULE_TYPES = ['MUST', 'NEVER', 'PREFER', 'CHECK'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** Order in which rules reach the prompt: hard constraints first. */
export const RULE_TYPE_PRIORITY: Record<RuleType, number> = { NEVER: 0, MUST: 1, CHECK: 2, PREFER: 3 };

/**
 * `active`: in use (prompt, audit); `retired`: taken out of use; `candidate`: learned from a
 * conversation (or imported without a trusted signature), waiting for a trusted person's approval,
 * never in a prompt; `rejected`: a candidate a trusted person turned down.
 */
export const RULE_STATUSES = ['active', 'retired', 'candidate', 'rejected'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

/** A typed behavioural rule (seed 003 rule format v1.4.0). */
export interface Rule {
  /** `R-001` style. */
  id: string;
  type: RuleType;
  category: string;
  /** Scope within the category, used for matching and conflict detection. */
  tags: string[];
  rule: string;
  reason: string;
  createdMs: number;
  /** Rule lesson id (`L-…`) or scan lesson memory id it was promoted from. */
  sourceLesson: string;
  violations: number;
  lastCheckedMs: number;
  lastValidatedMs: number;
  validationCount: number;
  /** The rule's decaying confidence as last computed (`ruleConfidenceAt`; a function of `lastValidatedMs` and now; wire `confidence_score`). */
  confidenceScore: number;
  reviewFlagged: boolean;
  status: RuleStatus;
  /** Rule ids this one conflicts with (a MUST and a NEVER whose scopes overlap). */
  conflictsWith: string[];
}
