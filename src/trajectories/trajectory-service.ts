import { type ActionEventPayload, type IAgentRuntime, type ModelEventPayload, type RunEventPayload, Service, type UUID } from '@elizaos/core';
import { loadConfig, type SelfImproveConfig } from '../shared/config';
import { messageContextId } from '../elo/model/exposures';
import { runEloReward } from './model/run-outcome';
import { stableId } from '../shared/ids';
import { clipText } from '../shared/prompt-text';
import { type RedactionLevel, redact } from './model/redaction';
import { evaluateTrajectory, type TrajectoryEvaluation, type TrajectoryPolicy } from './model/evaluation';
import { parseTrajectoryText, type TrajectoryInput } from './model/input';
import { toStorableText } from '../shared/wire-text';
import { agentMemory } from '../shared/agent-memory';
import { RunRecorder } from './run-recorder';
import { eventsOf } from '../shared/events';
import { SerialQueue } from '../shared/serial-queue';
import { serviceOf } from '../shared/service-of';
import { TRAJECTORY_SERVICE } from '../shared/service-names';
import { dbOf } from '../shared/sql';
import { type LogRetention, logRetentionOf } from '../shared/log-retention';
import type { PageCursor } from './model/page-cursor';
import {
  ensureTrajectoriesIndex,
  pruneTrajectories,
  submittedPaidSince,
  TRAJECTORIES_TABLE,
  TRAJECTORY_MEMORY_TYPE,
  type TrajectoryRow,
  trajectoryPage,
  trajectoryPaidBefore,
} from './trajectory-store';
import { ensureTrajectoryTotals, type TrajectoryTotals, trajectoryTotals } from './trajectory-totals';
import { errorText } from '../shared/error-text';
import { startTurn } from '../shared/event-loop';

export { TRAJECTORIES_TABLE, TRAJECTORY_MEMORY_TYPE } from './trajectory-store';
/** Longest transcript stored per trajectory; the evaluation always covers the whole run. */
const MAX_TRANSCRIPT_CHARS = 20_000;
const LOG_SRC = 'plugin:self-improve:trajectories';

export type TrajectorySource = 'runtime' | 'http' | 'cli';

/** A stored, scored, redacted trajectory. Snake_case: printed as JSON. */
export interface StoredTrajectory {
  id: UUID;
  source: TrajectorySource;
  run_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  evaluation: TrajectoryEvaluation;
  redaction: { level: RedactionLevel; counts: Record<string, number> };
  /** The redacted transcript, one step per line. */
  transcript: string;
  /**
   * Sats the ledger was asked to pay for it: 0 when not accepted, not paid (an unauthenticated
   * submission), over the day's cap, or paid before (stored earlier, deleted by retention, sent again).
   */
  paid_sats: number;
}

/** One page of stored trajectories, newest first; `next_before` names the next page (null: this is the last). */
export interface TrajectoryPage {
  trajectories: StoredTrajectory[];
  next_before: PageCursor | null;
}

/** Whether a recorded trajectory may pay: the agent's own runs and the operator's CLI do; an HTTP submission only with a key. */
export interface TrajectoryRecordOptions {
  pay: boolean;
}

/** One step per line: `[kind name] text`, newlines inside a step flattened. */
function transcriptOf(trajectory: TrajectoryInput): string {
  return trajectory.steps.map((s) => `[${s.kind}${s.name ? ` ${s.name}` : ''}${s.ok === false ? ' failed' : ''}] ${s.text.replace(/\r?\n/g, ' ⏎ ')}`).join('\n');
}

/**
 * Cut after redaction, so a secret is never cut short of the pattern that would have caught it. A
 * run recorded from the runtime's own events (a tool's output) may hold U+0000 or an unpaired
 * surrogate, which the memories table refuses: they become U+FFFD. (External trajectories are
 * checked line by line first: a line holding one is refused.)
 */
const bounded = (text: string) => toStorableText(clipText(text, MAX_TRANSCRIPT_CHARS));

/**
 * The evaluation with the test/build commands it quotes redacted at `level`, like the transcript:
 * they are read from the raw text, so a command line can carry a secret (`npm test -- --token=…`).
 */
export function withRedactedCommands(evaluation: TrajectoryEvaluation, level: RedactionLevel): TrajectoryEvaluation {
  return { ...evaluation, checks: evaluation.checks.map((c) => ({ ...c, command: c.command === null ? null : redact(c.command, level).text })) };
}

export function trajectoryPolicy(settings: SelfImproveConfig): TrajectoryPolicy {
  return {
    rates: {
      baseSats: settings.SELF_IMPROVE_TRAJECTORY_BASE_SATS,
      qualityBonusSatsPerPoint: settings.SELF_IMPROVE_TRAJECTORY_QUALITY_BONUS_SATS,
      ciBonusSats: settings.SELF_IMPROVE_TRAJECTORY_CI_BONUS_SATS,
      tokenBonusSatsPer1k: settings.SELF_IMPROVE_TRAJECTORY_TOKEN_BONUS_SATS_PER_1K,
      toolCallBonusSats: settings.SELF_IMPROVE_TRAJECTORY_TOOL_CALL_BONUS_SATS,
    },
    acceptance: {
      minQuality: settings.SELF_IMPROVE_TRAJECTORY_MIN_QUALITY,
      requireCiSignal: settings.SELF_IMPROVE_TRAJECTORY_REQUIRE_CI === 'true',
      minRewardSats: settings.SELF_IMPROVE_TRAJECTORY_MIN_REWARD_SATS,
    },
  };
}

/**
 * Trajectory quality scoring (seed 004): one trajectory per agent run, assembled from the
 * runtime's events and scored when the run ends, plus external trajectories (session logs or
 * JSONL of steps). Each is stored, redacted, as a memory with its score breakdown and reward.
 */
export class TrajectoryService extends Service {
  static override serviceType = TRAJECTORY_SERVICE;
  override capabilityDescription = 'Scores agent runs and external session logs for quality and reward (seed 004), stored redacted';

  settings!: SelfImproveConfig;
  readonly recorder = new RunRecorder();
  /** Records, one at a time (a day's cap for submitted trajectories is spent once). */
  private readonly recording = new SerialQueue();
  /** Ended runs, stored and settled in the order they ended. */
  private readonly runEnds = new SerialQueue();
  /** Keeps the newest SELF_IMPROVE_TRAJECTORY_MAX_ROWS stored trajectories. */
  private retention!: LogRetention;
  /**
   * The kept totals installed and counted (`ensureTrajectoryTotals`), in the background after
   * start: until then, and for good if the database refuses triggers, totals are aggregated.
   */
  totalsKept: Promise<void> = Promise.resolve();

  static override async start(runtime: IAgentRuntime): Promise<TrajectoryService> {
    const service = new TrajectoryService(runtime);
    service.settings = loadConfig(runtime);
    service.retention = logRetentionOf(runtime, service.settings.SELF_IMPROVE_TRAJECTORY_MAX_ROWS, LOG_SRC);
    await startTurn();
    await ensureTrajectoriesIndex(dbOf(runtime)).catch((error: unknown) => {
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'could not create the trajectories index; listing trajectories reads more rows');
    });
    service.totalsKept = (async () => {
      await startTurn();
      await ensureTrajectoryTotals(dbOf(runtime), runtime.agentId);
    })().catch((error: unknown) => {
      runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, error: errorText(error) }, 'could not keep the trajectory totals; each listing counts every stored trajectory');
    });
    return service;
  }

  override async stop(): Promise<void> {
    await Promise.all([this.runEnds.idle(), this.recording.idle(), this.totalsKept]);
  }

  get policy(): TrajectoryPolicy {
    return trajectoryPolicy(this.settings);
  }

  /** Parses and scores a session log or JSONL of steps without storing it. */
  score(text: string, id?: string): { trajectory: TrajectoryInput; evaluation: TrajectoryEvaluation; errors: { line: number; field: string; message: string }[] } {
    const { trajectory, errors } = parseTrajectoryText(text, id === undefined ? {} : { id });
    return { trajectory, evaluation: evaluateTrajectory(trajectory, this.policy), errors };
  }

  /**
   * Scores a trajectory, redacts it at SELF_IMPROVE_TRAJECTORY_REDACTION and stores it as a memory.
   * The agent's own runs are identified by their run id; submitted ones (HTTP, CLI) by what they
   * contain, so submitting the same log under a new id returns the stored one and pays nothing
   * again — also after retention deleted it: the ledger, never pruned, still holds its payment. A submitted trajectory pays at most what is left of SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY
   * (UTC day); records are taken one at a time, so two submissions cannot both spend the same sats.
   */
  record(trajectory: TrajectoryInput, source: TrajectorySource, options: TrajectoryRecordOptions = { pay: true }): Promise<StoredTrajectory> {
    return this.recording.run(() => this.recordNow(trajectory, source, options));
  }

  private async recordNow(trajectory: TrajectoryInput, source: TrajectorySource, options: TrajectoryRecordOptions): Promise<StoredTrajectory> {
    const raw = transcriptOf(trajectory);
    const id = stableId('trajectory', this.runtime.agentId, source === 'runtime' ? (trajectory.id ?? raw) : raw);
    const existing = await this.runtime.getMemoryById(id);
    const known = existing?.id ? storedFrom({ id: existing.id, createdAt: '', text: existing.content.text ?? '', metadata: (existing.metadata ?? {}) as Record<string, unknown> }) : null;
    if (known) return known;
    const level = this.settings.SELF_IMPROVE_TRAJECTORY_REDACTION;
    const redacted = redact(raw, level);
    const evaluation = withRedactedCommands(evaluateTrajectory(trajectory, this.policy), level);
    const earned = evaluation.accepted ? Math.max(0, evaluation.reward.total_sats) : 0;
    const createdAt = Date.now();
    const paid = !options.pay || earned === 0 || (await trajectoryPaidBefore(dbOf(this.runtime), this.runtime.agentId, id)) ? 0 : source === 'runtime' ? earned : Math.min(earned, await this.submittedSatsLeft(createdAt));
    const stored: StoredTrajectory = {
      id,
      source,
      run_id: trajectory.id ?? null,
      started_at: trajectory.started_at ?? null,
      ended_at: trajectory.ended_at ?? null,
      evaluation,
      redaction: { level, counts: redacted.counts },
      transcript: bounded(redacted.text),
      paid_sats: paid,
    };
    const memory = agentMemory(this.runtime, id, stored.transcript, { type: TRAJECTORY_MEMORY_TYPE, ...metadataOf(stored) }, { createdAt, unique: false });
    await this.runtime.createMemory(memory, TRAJECTORIES_TABLE);
    const keep = this.retention.keep;
    await this.retention.noteAppendedTo(TRAJECTORIES_TABLE, 1, () => pruneTrajectories(dbOf(this.runtime), this.runtime.agentId, keep));
    if (evaluation.accepted) await eventsOf(this.runtime).emit('trajectoryAccepted', { id, paidSats: paid, quality: evaluation.quality.quality });
    return stored;
  }

  /** What submitted trajectories (HTTP, CLI) may still earn on the UTC day of `nowMs`. */
  private async submittedSatsLeft(nowMs: number): Promise<number> {
    const paid = await submittedPaidSince(dbOf(this.runtime), this.runtime.agentId, Math.floor(nowMs / 86_400_000) * 86_400_000);
    return Math.max(0, this.settings.SELF_IMPROVE_TRAJECTORY_MAX_SATS_PER_DAY - paid);
  }

  /** Parses, scores and stores an external trajectory. */
  async submit(text: string, source: TrajectorySource, id?: string, options: TrajectoryRecordOptions = { pay: true }): Promise<{ stored: StoredTrajectory; errors: { line: number; field: string; message: string }[] }> {
    const { trajectory, errors } = parseTrajectoryText(text, id === undefined ? {} : { id });
    return { stored: await this.record(trajectory, source, options), errors };
  }

  /**
   * A page of the agent's stored trajectories, newest first (by when they were stored, then id):
   * the `limit` after `before` (the newest without); only accepted ones with `acceptedOnly`. One
   * indexed query, whatever is stored.
   */
  async page(options: { limit: number; before?: PageCursor | null; acceptedOnly?: boolean }): Promise<TrajectoryPage> {
    const rows = await trajectoryPage(dbOf(this.runtime), this.runtime.agentId, { limit: options.limit + 1, before: options.before ?? null, acceptedOnly: options.acceptedOnly ?? false });
    const listed = rows.slice(0, options.limit);
    const last = listed.at(-1);
    return {
      trajectories: listed.map(storedFrom).filter((t): t is StoredTrajectory => t !== null),
      next_before: rows.length > options.limit && last ? { createdAt: last.createdAt, id: last.id } : null,
    };
  }

  /** How many trajectories are stored, accepted, and their sats: database aggregates. */
  totals(): Promise<TrajectoryTotals> {
    return trajectoryTotals(dbOf(this.runtime), this.runtime.agentId);
  }

  onRunStarted(p: RunEventPayload): void {
    this.recorder.start(p.runId, p.startTime ?? Date.now());
  }

  onActionStarted(p: ActionEventPayload): void {
    const content = p.content as Record<string, unknown>;
    this.recorder.actionStarted(asString(content.runId), asString(content.actionId), actionName(content), Date.now());
  }

  onActionCompleted(p: ActionEventPayload): void {
    const content = p.content as Record<string, unknown>;
    const result = (content.actionResult ?? {}) as { success?: boolean; text?: string };
    this.recorder.actionCompleted(asString(content.actionId), actionName(content), result.text ?? asString(content.text) ?? '', result.success !== false, Date.now());
  }

  onModelUsed(p: ModelEventPayload): void {
    this.recorder.modelUsed(String(p.type), p.tokens?.total, Date.now());
  }

  /** Scores and stores the run's trajectory; never throws (a failing event handler would fail the message). */
  onRunEnded(p: RunEventPayload): Promise<void> {
    const trajectory = this.recorder.end(p.runId, p.endTime ?? Date.now(), p.status === 'completed' && !p.error);
    if (!trajectory) return Promise.resolve();
    return this.runEnds.run(() =>
      this.withMessage(trajectory, p.messageId)
        .then((t) => this.record(t, 'runtime'))
        .then(
          (stored) => this.settleRun(p, stored),
          (error: unknown) => {
            this.runtime.logger.warn({ src: LOG_SRC, agentId: this.runtime.agentId, runId: p.runId, error: errorText(error) }, 'could not store the run trajectory');
          },
        ),
    );
  }

  /**
   * The run's outcome judges the work done for its message (`runEloReward`): an accepted trajectory
   * is a reward for the items that were in the prompt, a failed run (timeout or error) that did
   * work (commits, CI) a penalty; anything else — a chat run — moves nothing. The message's context
   * is kept: what the person says about the answer next settles it too (`settleAnswerVerdict`).
   */
  private async settleRun(p: RunEventPayload, stored: StoredTrajectory): Promise<void> {
    if (!p.messageId) return;
    const reward = runEloReward(stored.evaluation, p.status !== 'completed' || Boolean(p.error));
    await eventsOf(this.runtime).emit('workJudged', { judgements: [{ context: messageContextId(p.messageId), reward, reason: reward > 0 ? 'trajectory_accepted' : 'run_failed' }] });
  }

  /** Puts the message that started the run first, when the runtime still has it. */
  private async withMessage(trajectory: TrajectoryInput, messageId: UUID | undefined): Promise<TrajectoryInput> {
    const message = messageId ? await this.runtime.getMemoryById(messageId) : null;
    const text = message?.content.text;
    if (!text) return trajectory;
    return { ...trajectory, steps: [{ kind: 'message', text, ts: trajectory.started_at }, ...trajectory.steps] };
  }
}

const asString = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const actionName = (content: Record<string, unknown>) => (Array.isArray(content.actions) && typeof content.actions[0] === 'string' ? content.actions[0] : 'action');

function metadataOf(t: StoredTrajectory): Record<string, unknown> {
  const { transcript: _transcript, id: _id, ...rest } = t;
  return rest;
}

function storedFrom(row: TrajectoryRow): StoredTrajectory | null {
  const m = row.metadata as Record<string, unknown> & { type?: string };
  if (m.type !== TRAJECTORY_MEMORY_TYPE) return null;
  const { type: _type, ...rest } = m;
  return { ...(rest as Omit<StoredTrajectory, 'id' | 'transcript'>), id: row.id as UUID, transcript: row.text };
}

/** Waits until the runtime has started TrajectoryService and returns it. */
export const trajectoryServiceOf = (runtime: IAgentRuntime): Promise<TrajectoryService> => serviceOf(runtime, TrajectoryService);
