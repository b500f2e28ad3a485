import { type ActionEventPayload, EventType, type IAgentRuntime, type Memory, type PluginEvents, type UUID } from '@elizaos/core';
import { actionOutcomeEvent } from '../model/feedback-detect';
import { clipText } from '../../shared/prompt-text';
import type { Teacher } from '../model/types';
import type { RuleBookService } from '../rule-book-service';
import { RULE_BOOK_SERVICE } from '../../shared/service-names';
import { trustOf } from '../../shared/speaker-trust';
import { errorText } from '../../shared/error-text';

/**
 * The action audit. ElizaOS 1.7.2 gives a plugin no way to stop another plugin's action before it
 * runs: `runtime.processActions` awaits the ACTION_STARTED handlers but ignores what they return
 * (a handler that throws fails the whole message instead), and it never calls an action's
 * `validate` (only the ACTIONS provider does, to list actions for the model). So this is an audit,
 * not a guard: before each action it logs which rules speak about it, after it judges them on what
 * the agent did. What keeps the agent from breaking a NEVER rule is the rule in its prompt
 * (TOP_RULES, a non-dynamic provider, is in the prompt the agent plans its actions from).
 */

const LOG_SRC = 'plugin:self-improve:rules';
/** The `source` of events recorded for failed actions. */
export const ACTION_EVENT_SOURCE = 'action';
/** Longest intended-action text audited (and kept in the guard log); each part is cut first. */
export const MAX_ACTION_TEXT_CHARS = 1000;
const MAX_PART_CHARS = 400;
/** Actions remembered between their start and completion, per runtime (oldest forgotten first). */
export const MAX_PENDING_GUARDS = 1000;
/** Messages of the room read to find the request an action carries out. */
const REQUEST_LOOKBACK = 5;

interface PendingAudit {
  guardId: string;
  /** `ActionTexts.own`. */
  own: string;
  /** `ActionTexts.requester`. */
  requester?: Memory;
}

const pendingByRuntime = new WeakMap<IAgentRuntime, Map<string, PendingAudit>>();

function pendingOf(runtime: IAgentRuntime): Map<string, PendingAudit> {
  let pending = pendingByRuntime.get(runtime);
  if (!pending) {
    pending = new Map();
    pendingByRuntime.set(runtime, pending);
  }
  return pending;
}

const oneLine = (text: string) => clipText(text.replace(/\s+/g, ' ').trim(), MAX_PART_CHARS);
const asString = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const actionNameOf = (content: Record<string, unknown>) => (Array.isArray(content.actions) && typeof content.actions[0] === 'string' ? content.actions[0] : 'action');

/** An action in words: what the audit matches before it runs and what its outcome is judged on. */
export interface ActionTexts {
  /** `NAME (name words): <the agent's thought>. Request: <the person's request>`: the scope the rules are matched against. */
  intended: string;
  /** `NAME (name words): <the agent's thought>.`: what the agent itself set out to do. */
  own: string;
  /** The person's message the action carries out (the newest of the room not from the agent), when there is one. */
  requester?: Memory;
}

/**
 * What the agent sets out to do, as the audit reads it. Each part is on one line and cut to 400
 * characters, the whole to `MAX_ACTION_TEXT_CHARS`; the action name is also given as words
 * (`RUN_SHELL` → `run shell`) so rules can match it. The runtime's ACTION_STARTED carries the
 * agent's thought but not the message, so the request is the newest of the room's last few
 * messages not from the agent (one bounded read; in a busy group room it may be another person's
 * message — the thought still says what the action is for). The request widens the scope the
 * rules are matched in, but is not what the agent did: a person writing "rm -rf is not allowed
 * there" must not count as the agent running rm -rf, so the outcome is judged on `own`.
 */
export async function actionTexts(runtime: IAgentRuntime, payload: ActionEventPayload): Promise<ActionTexts> {
  const content = payload.content as Record<string, unknown>;
  const name = actionNameOf(content);
  const words = name.replace(/[_\-.]+/g, ' ').toLowerCase().trim();
  const thought = asString(content.thought);
  const own = `${name} (${words})${thought ? `: ${oneLine(thought)}.` : ''}`;
  const requester = await latestRequest(runtime, payload.roomId);
  const request = requester?.content.text;
  return { own, intended: `${own}${request ? ` Request: ${oneLine(request)}` : ''}`.slice(0, MAX_ACTION_TEXT_CHARS), ...(requester ? { requester } : {}) };
}

async function latestRequest(runtime: IAgentRuntime, roomId: UUID | undefined): Promise<Memory | undefined> {
  if (!roomId) return undefined;
  try {
    const memories = await runtime.getMemories({ tableName: 'messages', roomId, count: REQUEST_LOOKBACK });
    const fromPeople = memories.filter((m) => m.entityId !== runtime.agentId && asString(m.content?.text) !== undefined);
    fromPeople.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
    return fromPeople[0];
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'could not read the request behind an action; auditing the action alone');
    return undefined;
  }
}

/**
 * Who an action answers for: the person whose request it carries out, and whether they are
 * trusted now; no teacher when no person asked (the agent's own initiative). Only actions for
 * trusted people (or for no one) move rules, the ledger and the ELO book.
 */
async function requesterTeacher(runtime: IAgentRuntime, requester: Memory | undefined): Promise<Teacher | undefined> {
  if (!requester) return undefined;
  return { entityId: requester.entityId, trusted: (await trustOf(runtime, requester)).trusted };
}

/**
 * ACTION_STARTED: asks the rule book which rules speak about the intended action
 * (`guard(actionTexts.intended)`: matched rules and scores, logged as a pending guard-log entry in
 * the seed's format) and remembers the entry by action id. It cannot stop the action (see above).
 * Never throws (a throwing handler would fail the whole message): failures are logged.
 */
export async function onActionStartedAudit(payload: ActionEventPayload): Promise<void> {
  const runtime = payload.runtime;
  try {
    const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
    const actionId = asString((payload.content as Record<string, unknown> | undefined)?.actionId);
    if (!book || !actionId) return;
    const texts = await actionTexts(runtime, payload);
    const { entry } = await book.guard(texts.intended);
    const pending = pendingOf(runtime);
    pending.set(actionId, { guardId: entry.id, own: texts.own, ...(texts.requester ? { requester: texts.requester } : {}) });
    if (pending.size > MAX_PENDING_GUARDS) pending.delete(pending.keys().next().value as string);
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'audit before an action failed; the action is not audited');
  }
}

/**
 * ACTION_COMPLETED: settles the action's guard entry (`settleGuard` with whether it succeeded and
 * `ActionTexts.own`, what the agent set out to do; matched rules are validated or violated as
 * `judgeRuleOnOutcome` says, credited in the ledger and the ELO book only when the action answered
 * a trusted person or no person). Succeeded = neither `actionStatus` is failed nor
 * `actionResult.success` false. The result text is not judged: tool output (logs, refusals such
 * as "rm -rf is not allowed") names things the agent did not do. Then, for a failed action only,
 * records a `mistake` event (`actionOutcomeEvent`, source `action`, problem = `actionResult.error`,
 * else its text) taught by the person the action answered (so an untrusted person's requests make
 * candidates, not rules). Successes are not recorded as events: every routine action would add
 * one, and three of the same action would promote a PREFER rule that says only that the action
 * works. Never throws.
 */
export async function onActionCompletedAudit(payload: ActionEventPayload): Promise<void> {
  const runtime = payload.runtime;
  try {
    const book = runtime.getService<RuleBookService>(RULE_BOOK_SERVICE);
    if (!book) return;
    const content = (payload.content ?? {}) as Record<string, unknown>;
    const result = (content.actionResult ?? {}) as { success?: unknown; error?: unknown; text?: unknown };
    const succeeded = content.actionStatus !== 'failed' && result.success !== false;
    const actionId = asString(content.actionId);
    const pending = actionId === undefined ? undefined : pendingOf(runtime).get(actionId);
    const teacher = await requesterTeacher(runtime, pending ? pending.requester : await latestRequest(runtime, payload.roomId));
    await settle(runtime, book, actionId, succeeded, teacher?.trusted ?? true);
    if (succeeded) return;
    const error = result.error instanceof Error ? result.error.message : (asString(result.error) ?? asString(result.text));
    const draft = actionOutcomeEvent({ actionName: actionNameOf(content), succeeded: false, nowMs: Date.now(), source: ACTION_EVENT_SOURCE, ...(error === undefined ? {} : { error }) });
    await book.recordDraft(draft, ACTION_EVENT_SOURCE, teacher ? { teacher } : {});
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'could not record the failed action as an event');
  }
}

/** Settles the guard entry remembered for `actionId`, if any (`credit`: rules, ledger and ELO move); a refusal (unknown entry, already settled) or a failure is logged. */
async function settle(runtime: IAgentRuntime, book: RuleBookService, actionId: string | undefined, succeeded: boolean, credit: boolean): Promise<void> {
  const pending = actionId === undefined ? undefined : pendingOf(runtime).get(actionId);
  if (actionId === undefined || !pending) return;
  pendingOf(runtime).delete(actionId);
  try {
    const settled = await book.settleGuard(pending.guardId, { succeeded, actionText: pending.own }, Date.now(), { credit });
    if (!settled.ok) runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, guardId: pending.guardId, code: settled.code }, settled.message);
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, guardId: pending.guardId, error: errorText(error) }, 'could not settle the guard entry');
  }
}

/** The action audit's handlers for the runtime's action events. */
export const ruleAuditEvents: PluginEvents = {
  [EventType.ACTION_STARTED]: [onActionStartedAudit],
  [EventType.ACTION_COMPLETED]: [onActionCompletedAudit],
};
