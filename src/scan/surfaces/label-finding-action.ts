import type { Action, ActionResult, HandlerCallback, IAgentRuntime, Memory } from '@elizaos/core';
import { type LabelRequest, parseLabelRequest } from '../model/label-request';
import { MAX_TEXT_CHARS, OUTCOME_LABELS, type OutcomeLabel } from '../model/outcome';
import { escapeForPrompt } from '../../shared/prompt-text';
import { refusalText } from '../../shared/trust';
import type { ScanOutcomeService } from '../scan-outcome-service';
import { SCAN_OUTCOME_SERVICE } from '../../shared/service-names';
import { trustOf } from '../../shared/speaker-trust';

const isLabel = (value: unknown): value is OutcomeLabel => (OUTCOME_LABELS as readonly unknown[]).includes(value);

/** What the message asks to record: explicit `finding_key` + `label` on its content win over the words of its text. */
export function labelRequestOf(message: Memory): LabelRequest | null {
  const content = message.content as Record<string, unknown>;
  if (typeof content.finding_key === 'string' && content.finding_key.trim() !== '' && isLabel(content.label)) {
    return { findingKey: content.finding_key.trim(), label: content.label };
  }
  return parseLabelRequest(message.content.text ?? '');
}

async function reply(callback: HandlerCallback | undefined, result: ActionResult): Promise<ActionResult> {
  await callback?.({ text: result.text ?? '', actions: ['LABEL_FINDING'] });
  return result;
}

/**
 * LABEL_FINDING: "finding X is a false positive", "X was fixed". Records an outcome for a finding
 * the agent already knows (from an earlier outcome or a SARIF log), with `source: "user"`, the
 * message time as `ts` and the person's words as `notes`; validated like every other row. A label
 * mints outcome rewards, so only a trusted person's is recorded (`trustOf`: the agent's owner or
 * admins, or people the operator lists); anyone else is told who may, and nothing is recorded.
 * Replies with what was recorded, or why nothing was.
 */
export const labelFindingAction: Action = {
  name: 'LABEL_FINDING',
  similes: ['MARK_FALSE_POSITIVE', 'MARK_FINDING_FIXED', 'TRIAGE_FINDING', 'RECORD_FINDING_OUTCOME'],
  description:
    "Record how a known scan finding turned out (fixed, accepted, ignored, rejected_fp as a false positive, reopened) when a person says so in chat. Only the agent's owner or admins may.",
  validate: async (runtime: IAgentRuntime, message: Memory) => {
    const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
    const request = service ? labelRequestOf(message) : null;
    if (!service || !request) return false;
    return (await service.lookupFindings([request.findingKey])).has(request.findingKey);
  },
  handler: async (runtime, message, _state, _options, callback) => {
    const service = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
    const request = labelRequestOf(message);
    if (!service || !request) {
      return reply(callback, { success: false, text: 'I could not tell which finding and which outcome you mean. Say, for example, "finding F-42 is a false positive".' });
    }
    if (!(await trustOf(runtime, message)).trusted) {
      return reply(callback, { success: false, text: refusalText('label findings'), values: { refused: 'not_trusted' } });
    }
    const shownKey = escapeForPrompt(request.findingKey);
    const known = (await service.lookupFindings([request.findingKey])).get(request.findingKey);
    if (!known) {
      return reply(callback, {
        success: false,
        text: `I do not know a finding "${shownKey}". Ingest its SARIF log or an outcome row first (it needs project, scanner, model_provider and model_name).`,
      });
    }
    const row = {
      ...known.row,
      label: request.label,
      ts: new Date(message.createdAt ?? Date.now()).toISOString(),
      source: 'user',
      notes: (message.content.text ?? '').slice(0, MAX_TEXT_CHARS),
    };
    const result = await service.ingest([row]);
    const f = known.row;
    const scope = `project ${f.project}, scanner ${f.scanner}, model ${f.model_provider}/${f.model_name}`;
    if (result.rejected.length > 0) {
      const why = result.rejected.map((r) => `${r.field}: ${r.message}`).join('; ');
      return reply(callback, { success: false, text: `Nothing recorded for "${shownKey}": ${why}.` });
    }
    const outcome = result.outcomes[0];
    const text =
      outcome?.status === 'duplicate'
        ? `Finding "${shownKey}" was already recorded as ${request.label} (${scope}); nothing changed.`
        : `Recorded finding "${shownKey}" as ${request.label} (${scope}). Outcome id ${outcome?.id}.`;
    return reply(callback, { success: true, text, values: { labelledFinding: request.findingKey, label: request.label }, data: { outcome, row } });
  },
  examples: [
    [
      { name: '{{user}}', content: { text: 'finding payments-api:semgrep:xss:12 is a false positive' } },
      { name: '{{agent}}', content: { text: 'Recorded finding "payments-api:semgrep:xss:12" as rejected_fp.', actions: ['LABEL_FINDING'] } },
    ],
    [
      { name: '{{user}}', content: { text: '`js/sql-injection@src/db.ts:88` was fixed in the last release' } },
      { name: '{{agent}}', content: { text: 'Recorded finding "js/sql-injection@src/db.ts:88" as fixed.', actions: ['LABEL_FINDING'] } },
    ],
  ],
};
