import type { IAgentRuntime, Memory, ProviderResult } from '@elizaos/core';
import { loadConfig } from '../shared/config';
import { blockBudget, blockTokens } from './context-budget';
import type { EloBookService } from '../elo/elo-book-service';
import type { ScanOutcomeService } from '../scan/scan-outcome-service';
import { ELO_BOOK_SERVICE, SCAN_OUTCOME_SERVICE } from '../shared/service-names';
import { type ContextBlock, emptyBlock } from './context-block';
import { eloBlock } from '../elo/surfaces/elo-block';
import { scanLessonsBlock } from '../scan/surfaces/scan-lesson-block';
import { announceShownInPrompt, type ShownInPrompt } from './prompt-retrieval';
import { rulesBlock } from '../rules/surfaces/rule-block';
import { errorText } from '../shared/error-text';

const LOG_SRC = 'plugin:self-improve:context';
/** Messages whose assembled context is kept (oldest dropped first); providers run several times per message. */
const CACHED_MESSAGES = 64;

/**
 * What the three providers put into one message's prompt, in prompt order. Each block is computed
 * on first request, once, after the blocks before it (whose tokens and items it needs): a prompt
 * that asks for TOP_RULES alone computes only the rules.
 */
export class MessageContext {
  private rulesBlock: Promise<ContextBlock> | null = null;
  private scanLessonsBlock: Promise<ContextBlock> | null = null;
  private eloBlock: Promise<ContextBlock> | null = null;
  private readonly nowMs = Date.now();

  constructor(
    private readonly runtime: IAgentRuntime,
    private readonly message: Memory,
    private readonly totalTokens: number,
  ) {}

  async rules(): Promise<ProviderResult> {
    return (await this.rulesStage()).result;
  }

  async scanLessons(): Promise<ProviderResult> {
    return (await this.scanLessonsStage()).result;
  }

  async elo(): Promise<ProviderResult> {
    return (await this.eloStage()).result;
  }

  private rulesStage(): Promise<ContextBlock> {
    this.rulesBlock ??= this.stage('TOP_RULES', { topRuleIds: [] }, async () => rulesBlock(this.runtime, this.message, this.nowMs, blockBudget(this.totalTokens, this.totalTokens, 0)));
    return this.rulesBlock;
  }

  private scanLessonsStage(): Promise<ContextBlock> {
    this.scanLessonsBlock ??= this.stage('SCAN_LESSONS', { scanLessonIds: [] }, async () => {
      const used = blockTokens((await this.rulesStage()).result.text ?? '');
      return scanLessonsBlock(this.runtime, this.message, this.nowMs, blockBudget(this.totalTokens, this.totalTokens, used));
    });
    return this.scanLessonsBlock;
  }

  private eloStage(): Promise<ContextBlock> {
    this.eloBlock ??= this.stage('HIGH_ELO_CONTEXT', { highEloContextIds: [] }, async () => {
      const [rules, lessons] = [await this.rulesStage(), await this.scanLessonsStage()];
      const used = blockTokens(rules.result.text ?? '') + blockTokens(lessons.result.text ?? '');
      const shownBefore = new Set([...rules.keys, ...lessons.keys]);
      return eloBlock(this.runtime, this.message, this.nowMs, blockBudget(this.totalTokens, this.totalTokens, used), shownBefore, new Set(lessons.related));
    });
    return this.eloBlock;
  }

  /** Builds a block (a failure is logged and the block left out) and announces what it shows. */
  private async stage(what: string, emptyValues: Record<string, unknown>, build: () => Promise<ContextBlock>): Promise<ContextBlock> {
    const block = await safely(this.runtime, what, emptyValues, build);
    if (block.shown) await record(this.runtime, this.message, block.shown);
    return block;
  }
}

interface CacheEntry {
  signature: string;
  context: MessageContext;
}

const cacheByRuntime = new WeakMap<IAgentRuntime, Map<string, CacheEntry>>();
const totalBudgetByRuntime = new WeakMap<IAgentRuntime, number>();

/**
 * The plugin's context for one message, assembled once however many times (and however
 * concurrently) the runtime composes state for it: TOP_RULES' rules, then SCAN_LESSONS' prior and
 * lessons, then HIGH_ELO_CONTEXT, sharing SELF_IMPROVE_CONTEXT_TOKEN_BUDGET in that order (each
 * block also within its own budget). An item appears once: ELO context leaves out the rules and
 * lessons the blocks before it show. What each block shows is announced once (`itemsShown`; the ELO book records it).
 * Assembled again for the same message only when the lessons or the ELO book's content changed.
 */
export function assembleContext(runtime: IAgentRuntime, message: Memory): MessageContext {
  const total = totalBudget(runtime);
  if (!message.id) return new MessageContext(runtime, message, total);
  let cache = cacheByRuntime.get(runtime);
  if (!cache) {
    cache = new Map();
    cacheByRuntime.set(runtime, cache);
  }
  const signature = signatureOf(runtime);
  const cached = cache.get(message.id);
  if (cached && cached.signature === signature) return cached.context;
  const context = new MessageContext(runtime, message, total);
  cache.delete(message.id);
  cache.set(message.id, { signature, context });
  if (cache.size > CACHED_MESSAGES) cache.delete(cache.keys().next().value as string);
  return context;
}

/** What the assembly depends on besides the message: the versions of the lessons and of the ELO book's content (rules are content too). */
function signatureOf(runtime: IAgentRuntime): string {
  const lessons = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE)?.scanLessons?.index.version ?? -1;
  const content = runtime.getService<EloBookService>(ELO_BOOK_SERVICE)?.content.version ?? -1;
  return `${lessons}:${content}`;
}

function totalBudget(runtime: IAgentRuntime): number {
  let total = totalBudgetByRuntime.get(runtime);
  if (total === undefined) {
    total = loadConfig(runtime).SELF_IMPROVE_CONTEXT_TOKEN_BUDGET;
    totalBudgetByRuntime.set(runtime, total);
  }
  return total;
}

/** Announcing what the prompt showed never fails the prompt: a failure (finding the finding the message names) is logged. */
async function record(runtime: IAgentRuntime, message: Memory, shown: ShownInPrompt): Promise<void> {
  try {
    await announceShownInPrompt(runtime, message, shown);
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, tool: shown.tool, error: errorText(error) }, 'what the prompt showed was not announced');
  }
}

/** A block that fails is logged and left out; the prompt goes on with the others. */
async function safely(runtime: IAgentRuntime, what: string, emptyValues: Record<string, unknown>, build: () => Promise<ContextBlock>): Promise<ContextBlock> {
  try {
    return await build();
  } catch (error) {
    runtime.logger.warn({ src: LOG_SRC, agentId: runtime.agentId, block: what, error: errorText(error) }, 'a context block failed; the prompt goes on without it');
    return emptyBlock(emptyValues);
  }
}
