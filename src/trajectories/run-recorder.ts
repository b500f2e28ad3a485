import type { TrajectoryInput, TrajectoryStep } from './model/input';

/** Longest step text kept while a run is open (the rest is cut, never the run). */
const MAX_STEP_CHARS = 4_000;
/** Most steps kept per run; later steps still count toward tokens and tool calls. */
const MAX_STEPS = 500;
/** Open runs older than this are dropped when a new run starts (a run that never ended). */
const STALE_RUN_MS = 3_600_000;

interface OpenRun {
  runId: string;
  startMs: number;
  steps: TrajectoryStep[];
  modelTokens: number;
  modelCalls: number;
  actionCalls: number;
}

/**
 * Cuts a long step text, dropping the word the cut falls in: a secret cut in half could slip past
 * the redaction patterns that would have caught it whole.
 */
export function clip(text: string): string {
  if (text.length <= MAX_STEP_CHARS) return text;
  const cut = text.slice(0, MAX_STEP_CHARS - 1);
  return `${/\S$/.test(cut) && /\S/.test(text[MAX_STEP_CHARS - 1] ?? '') ? cut.replace(/\S+$/, '') : cut}…`;
}
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Assembles one trajectory per agent run from the runtime's events: RUN_STARTED opens it, the
 * actions started and completed in it (ACTION_COMPLETED is matched to its run by action id) and
 * the models used while it is open (MODEL_USED carries no run id: it goes to the newest open run)
 * add steps (an action whose run id is not an open run — processActions uses child run ids —
 * goes to the newest open run), RUN_ENDED closes it and hands back the trajectory. Bounded: long step texts are cut,
 * steps beyond MAX_STEPS are counted but not kept, runs that never end are dropped after an hour.
 */
export class RunRecorder {
  private readonly runs = new Map<string, OpenRun>();
  private readonly runOfAction = new Map<string, string>();

  get openRuns(): number {
    return this.runs.size;
  }

  start(runId: string, startMs: number, messageText?: string): void {
    for (const [id, run] of this.runs) if (startMs - run.startMs > STALE_RUN_MS) this.drop(id);
    const run: OpenRun = { runId, startMs, steps: [], modelTokens: 0, modelCalls: 0, actionCalls: 0 };
    this.runs.set(runId, run);
    if (messageText) this.push(run, { kind: 'message', text: clip(messageText), ts: iso(startMs) });
  }

  actionStarted(runId: string | undefined, actionId: string | undefined, name: string, atMs: number): void {
    // processActions gives its actions a run id of their own (child of the message's run): an
    // unknown run id means the newest open run.
    const run = (runId ? this.runs.get(runId) : undefined) ?? this.newest();
    if (!run) return;
    if (actionId) this.runOfAction.set(actionId, run.runId);
    run.actionCalls++;
    this.push(run, { kind: 'action', name, text: `Executing action: ${name}`, ts: iso(atMs) });
  }

  actionCompleted(actionId: string | undefined, name: string, text: string, ok: boolean, atMs: number): void {
    const runId = actionId ? this.runOfAction.get(actionId) : undefined;
    const run = (runId ? this.runs.get(runId) : undefined) ?? this.newest();
    if (!run) return;
    if (actionId) this.runOfAction.delete(actionId);
    this.push(run, { kind: 'output', name, text: clip(text), ok, ts: iso(atMs) });
  }

  modelUsed(modelType: string, totalTokens: number | undefined, atMs: number): void {
    const run = this.newest();
    if (!run) return;
    run.modelCalls++;
    run.modelTokens += totalTokens ?? 0;
    this.push(run, { kind: 'model', name: modelType, text: `${modelType} call`, ...(totalTokens === undefined ? {} : { tokens: totalTokens }), ts: iso(atMs) });
  }

  /**
   * Closes a run and returns its trajectory, or null for a run this recorder never saw. It ended
   * cleanly when the runtime reported it completed without an error (a timeout or an error is not
   * a clean end). Tokens are the models' reported totals, or ≈ characters / 4 when none reported.
   */
  end(runId: string, endMs: number, clean: boolean): TrajectoryInput | null {
    const run = this.runs.get(runId);
    if (!run) return null;
    this.drop(runId);
    const estimated = Math.ceil(run.steps.reduce((sum, s) => sum + s.text.length, 0) / 4);
    return {
      id: runId,
      steps: run.steps,
      started_at: iso(run.startMs),
      ended_at: iso(endMs),
      ended: clean,
      token_count: run.modelTokens > 0 ? run.modelTokens : estimated,
      tool_calls: run.actionCalls,
    };
  }

  private newest(): OpenRun | undefined {
    let newest: OpenRun | undefined;
    for (const run of this.runs.values()) if (!newest || run.startMs >= newest.startMs) newest = run;
    return newest;
  }

  private push(run: OpenRun, step: TrajectoryStep): void {
    if (run.steps.length < MAX_STEPS) run.steps.push(step);
  }

  private drop(runId: string): void {
    this.runs.delete(runId);
    for (const [actionId, id] of this.runOfAction) if (id === runId) this.runOfAction.delete(actionId);
  }
}
